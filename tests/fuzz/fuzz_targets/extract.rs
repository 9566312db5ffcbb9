//! Model chatter through extraction with a prompt context; the span taken must be
//! inside the reply and parse to the value returned.
#![no_main]
use autoeval::syntax::{ExtractContext, SyntaxKind, extract_for};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let ctx = ExtractContext::new(
        vec!["p1".into(), "p2".into(), "pred1".into()],
        "[TASK]\nWrite it.\n[VOCABULARY]\nPropositions: p1, p2\n[NL DESCRIPTION]\np1 and p2",
        "p1 and p2",
    );
    for kind in [SyntaxKind::Pl, SyntaxKind::Fol, SyntaxKind::Regex] {
        if let Ok(x) = extract_for(text, kind, &ctx) {
            assert!(x.start <= x.end && x.end <= text.len(), "span inside the reply");
            assert!(text.is_char_boundary(x.start) && text.is_char_boundary(x.end));
        }
    }
});
