//! Any text as a user grammar file: errors, never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = autoeval::grammar::cfg::Cfg::parse(text);
});
