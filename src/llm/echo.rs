//! Finding a key echoed back in server text: verbatim, in pieces, `\u`-escaped (the
//! text is decoded JSON), reversed, hex-encoded, base64-encoded at any byte alignment,
//! or spelled out with whitespace between its characters.

use super::MIN_KEY_ECHO;
use std::collections::HashSet;

/// Base64 without padding (standard or URL-safe alphabet): how a key shows inside an
/// encoded stream.
fn base64(bytes: &[u8], url: bool) -> String {
    use base64::Engine as _;
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    if url {
        URL_SAFE_NO_PAD.encode(bytes)
    } else {
        STANDARD_NO_PAD.encode(bytes)
    }
}

/// The texts a key can be echoed as; any piece of one counts.
fn forms(s: &str) -> Vec<String> {
    let hex: String = s.bytes().map(|b| format!("{b:02x}")).collect();
    let mut out = vec![
        s.to_string(),
        s.chars().rev().collect(),
        hex.to_ascii_uppercase(),
        hex,
    ];
    for url in [false, true] {
        out.push(base64(s.as_bytes(), url));
        // The key one or two bytes into an encoded stream: its characters there are
        // another string; the first and last four mix in neighbouring bytes.
        for shift in 1..=2 {
            let mut b = vec![0u8; shift];
            b.extend_from_slice(s.as_bytes());
            let e = base64(&b, url);
            if e.len() > 8 {
                out.push(e[4..e.len() - 4].to_string());
            }
        }
    }
    out.retain(|f| f.len() >= MIN_KEY_ECHO);
    out
}

/// Removes every trace of `secret` from `text`: any piece of [`MIN_KEY_ECHO`] or more
/// characters of one of its forms, also when whitespace is put between them.
pub fn scrub(text: &str, secret: Option<&str>) -> String {
    let Some(s) = secret.filter(|s| s.len() >= 4) else {
        return text.to_string();
    };
    let forms = forms(s);
    let min = MIN_KEY_ECHO.min(s.len());
    // Every piece of the minimum length: most positions are rejected by one lookup.
    let seeds: HashSet<&[u8]> = forms
        .iter()
        .flat_map(|f| f.as_bytes().windows(min))
        .collect();
    // The text without whitespace, and where each of its bytes came from.
    let mut compact = Vec::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if !c.is_whitespace() {
            let mut buf = [0u8; 4];
            for (k, b) in c.encode_utf8(&mut buf).bytes().enumerate() {
                compact.push(b);
                origin.push(i + k);
            }
        }
    }
    // Byte ranges of `text` to redact.
    let mut cut: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i + min <= compact.len() {
        if !seeds.contains(&compact[i..i + min]) {
            i += 1;
            continue;
        }
        let mut best = min;
        for f in &forms {
            let f = f.as_bytes();
            let mut len = best + 1;
            while i + len <= compact.len() && contains(f, &compact[i..i + len]) {
                best = len;
                len += 1;
            }
        }
        let (start, last) = (origin[i], origin[i + best - 1]);
        cut.push((start, last + 1));
        i += best;
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (a, b) in cut {
        // Redacted ranges may end inside a multi-byte character: widen to boundaries.
        let a = (0..=a)
            .rev()
            .find(|&k| text.is_char_boundary(k))
            .unwrap_or(0);
        let b = (b..=text.len())
            .find(|&k| text.is_char_boundary(k))
            .unwrap_or(text.len());
        if a < at {
            continue;
        }
        out.push_str(&text[at..a]);
        out.push_str("[redacted]");
        at = b;
    }
    out.push_str(&text[at..]);
    out
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.len() <= hay.len() && hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const KEY: &str = "sk-test-SECRETKEY-0123456789abcdef";

    fn leaks(text: &str) -> bool {
        let s = scrub(text, Some(KEY));
        assert!(s.contains("[redacted]"), "{text:?} → {s:?}");
        ["SECRET", "TERCES", "0123456789", "9876543210", "5345435245"]
            .iter()
            .any(|p| s.contains(p))
    }

    #[test]
    fn reversed_hex_spaced_and_shifted_base64_echoes_are_redacted() {
        let rev: String = KEY.chars().rev().collect();
        let hex: String = KEY.bytes().map(|b| format!("{b:02x}")).collect();
        let spaced: String = KEY.chars().flat_map(|c| [c, ' ']).collect();
        let newlines: String = KEY.chars().flat_map(|c| [c, '\n', '\t']).collect();
        for shift in 1..=2 {
            let mut b = vec![b'x'; shift];
            b.extend_from_slice(KEY.as_bytes());
            let shifted = base64(&b, false);
            let s = scrub(&format!("here: {shifted}"), Some(KEY));
            assert!(s.contains("[redacted]") && s.len() < shifted.len(), "{s}");
            assert!(!s.contains(&shifted[6..20]), "shift {shift}: {s}");
        }
        for t in [
            format!("echo {rev} done"),
            format!("hex {hex}"),
            format!("hex {}", hex.to_uppercase()),
            format!("spaced {spaced} end"),
            format!("spread {newlines}"),
            format!("plain {KEY}"),
        ] {
            assert!(!leaks(&t), "{t:?} → {:?}", scrub(&t, Some(KEY)));
        }
        // Ordinary text around it survives.
        let s = scrub(&format!("before {KEY} after"), Some(KEY));
        assert_eq!(s, "before [redacted] after");
        assert_eq!(
            scrub("nothing here at all", Some(KEY)),
            "nothing here at all"
        );
    }
}
