//! Parse errors with a byte position and a short reason.

use std::fmt;

/// A syntax error: what went wrong and at which byte offset of the input.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ParseError {
    /// Byte offset into the text that was parsed.
    pub pos: usize,
    /// Short reason, e.g. "unbalanced ')'".
    pub reason: String,
}

impl ParseError {
    /// Builds an error at `pos`.
    pub fn new(pos: usize, reason: impl Into<String>) -> Self {
        ParseError {
            pos,
            reason: reason.into(),
        }
    }

    /// The position as a character (not byte) offset into `src`.
    pub fn char_pos(&self, src: &str) -> usize {
        let mut pos = self.pos.min(src.len());
        while !src.is_char_boundary(pos) {
            pos -= 1;
        }
        src[..pos].chars().count()
    }

    /// The line of `src` holding the error and a caret under its character, e.g.
    /// `p ∧ (q` / `    ^`; control characters are shown as `?`.
    pub fn caret(&self, src: &str) -> String {
        let mut pos = self.pos.min(src.len());
        while !src.is_char_boundary(pos) {
            pos -= 1;
        }
        let line_start = src[..pos].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[pos..].find('\n').map_or(src.len(), |i| pos + i);
        let line: String = src[line_start..line_end]
            .chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect();
        let col = src[line_start..pos].chars().count();
        format!("{line}\n{}^", " ".repeat(col))
    }

    /// The same error shifted by `offset` bytes (when the parsed text was a slice).
    pub fn shifted(mut self, offset: usize) -> Self {
        self.pos += offset;
        self
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", self.reason, self.pos)
    }
}

impl std::error::Error for ParseError {}
