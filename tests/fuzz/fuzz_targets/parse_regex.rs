//! Any text through the regex parser, then printing, reparsing and the automata.
#![no_main]
use autoeval::syntax::{parse_regex, print_regex};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(r) = parse_regex(text) {
        let printed = print_regex(&r, true);
        let again = parse_regex(&printed).expect("a printed regex parses");
        let _ = autoeval::syntax::regex_metrics(&again);
        if r.size() < 200 {
            let e = autoeval::syntax::Expr::Regex(r);
            let v = autoeval::verify::verify(&e, &e, &Default::default());
            assert!(v.is_equivalent() || v.name() == "unknown", "{v:?}");
        }
    }
});
