//! Two formulas (split at the first tab) verified; a countermodel must separate them.
#![no_main]
use autoeval::syntax::{SyntaxKind, parse};
use autoeval::verify::{Verdict, verify};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Some((a, b)) = text.split_once('\t') else { return };
    for kind in [SyntaxKind::Fol, SyntaxKind::Regex] {
        let (Ok(x), Ok(y)) = (parse(a, kind), parse(b, kind)) else { continue };
        let opts = autoeval::verify::Options {
            timeout: std::time::Duration::from_millis(200),
            ..Default::default()
        };
        let v = verify(&x, &y, &opts);
        if let Verdict::Unknown { reason } = &v {
            assert!(!reason.contains("internal error"), "{reason}");
        }
    }
});
