//! Any text through the formula parser (every notation), then every pass a parsed
//! formula meets: printing in each notation and reparsing, metrics, normal form.
#![no_main]
use autoeval::syntax::{Notation, parse_formula, print_formula, operator_count};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(f) = parse_formula(text) {
        for n in [Notation::Unicode, Notation::Ascii, Notation::Original] {
            let printed = print_formula(&f, n);
            let again = parse_formula(&printed).expect("a printed formula parses");
            assert_eq!(again, f, "print/parse round trip in {n:?}: {printed}");
        }
        let _ = operator_count(&f);
        let _ = autoeval::verify::normalize::normalize(&f);
    }
});
