//! libFuzzer target: the JSON walk (tokenize, rehydrate) on arbitrary bytes.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_veil_fuzz::check_walk(data));
