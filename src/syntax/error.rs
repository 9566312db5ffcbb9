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
