//! libFuzzer target: the interceptor on arbitrary message bytes with planted values.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_veil_fuzz::check_interceptor(data));
