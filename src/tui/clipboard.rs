//! Copying through the terminal: OSC 52 (`ESC ] 52 ; c ; BASE64 BEL`) asks the
//! terminal to put text on the clipboard, so it works over SSH and in tmux (with
//! `set-clipboard on`) without a clipboard library or a display server.

/// Most bytes one copy sends (before base64): terminals drop longer sequences
/// (xterm's default limit is about 100 kB of base64).
pub const MAX_COPY: usize = 74_000;

/// Standard base64 with padding (RFC 4648), as OSC 52 takes it.
pub fn base64(data: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// The escape sequence that puts `text` on the clipboard, or why it cannot.
pub fn osc52(text: &str) -> Result<Vec<u8>, String> {
    if text.len() > MAX_COPY {
        return Err(format!(
            "{} bytes is more than a terminal takes in one copy ({MAX_COPY}); nothing copied",
            text.len()
        ));
    }
    let mut seq = b"\x1b]52;c;".to_vec();
    seq.extend_from_slice(base64(text.as_bytes()).as_bytes());
    seq.push(0x07);
    Ok(seq)
}

pub use crate::base::sanitize::shell_quote;

/// The one-line `autoeval verify --explain` command that checks this pair again.
pub fn verify_command(phi0: &str, phi1: &str, syntax: crate::syntax::SyntaxKind) -> String {
    use crate::syntax::SyntaxKind as S;
    let syntax = match syntax {
        S::Pl => "pl",
        S::Fol => "fol",
        S::Regex => "regex",
    };
    format!(
        "autoeval verify --explain --syntax {syntax} {} {}",
        shell_quote(phi0),
        shell_quote(phi1)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        // RFC 4648 §10.
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }

    #[test]
    fn quoting_survives_quotes_and_long_text_is_refused() {
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert!(osc52(&"x".repeat(MAX_COPY + 1)).is_err());
        assert_eq!(osc52("φ").unwrap(), b"\x1b]52;c;z4Y=\x07");
    }
}
