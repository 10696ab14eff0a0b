//! libFuzzer target: the detector on arbitrary text, and the text round trip.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_veil_fuzz::check_detect(data));
