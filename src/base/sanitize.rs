//! Text from run files and model replies made safe to print on a terminal.
//!
//! Everything printed to a terminal from data goes through [`for_terminal`]: C0 and
//! C1 control characters (escape sequences, OSC 52 clipboard writes, title changes,
//! screen clears) and invisible or reordering characters (bidi overrides such as
//! U+202E, zero-width characters) are shown visibly as `\u{…}` instead of acting.
//! Newlines and tabs stay. Machine formats (JSON, CSV written to files) stay exact.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as itself.
pub(crate) fn is_unsafe(c: char) -> bool {
    let u = c as u32;
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(u, 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2069 | 0xFEFF | 0x061C)
}

/// `s` with every unsafe character replaced by a visible `\u{XXXX}` escape.
pub fn for_terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            out.push_str(&format!("\\u{{{:04X}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A CSV cell a spreadsheet would not run: text starting with `=`, `+`, `-`, `@`, a tab
/// or a carriage return gets a leading `'` (numbers, `-0.5` too, stay as they are).
pub fn csv_cell(s: &str) -> Cow<'_, str> {
    let risky = s.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if risky && s.parse::<f64>().is_err() {
        Cow::Owned(format!("'{s}"))
    } else {
        Cow::Borrowed(s)
    }
}

/// A CSV record with every cell made safe by [`csv_cell`].
pub fn csv_record<I, T>(record: I) -> Vec<String>
where
    I: IntoIterator<Item = T>,
    T: AsRef<str>,
{
    record
        .into_iter()
        .map(|c| csv_cell(c.as_ref()).into_owned())
        .collect()
}

/// Like [`for_terminal`] but also shows newlines and tabs, for one-line fields.
pub fn one_line(s: &str) -> Cow<'_, str> {
    if !s
        .chars()
        .any(|c| is_unsafe(c) || c == '\n' || c == '\t' || c == '\r')
    {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:04X}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Every string inside a JSON value made safe with [`for_terminal`] (an explicit
/// stack: file JSON can nest deeply).
pub(crate) fn json_for_terminal(v: &mut serde_json::Value) {
    let mut stack = vec![v];
    while let Some(x) = stack.pop() {
        match x {
            serde_json::Value::String(s) => {
                if let Cow::Owned(t) = for_terminal(s) {
                    *s = t;
                }
            }
            serde_json::Value::Array(a) => stack.extend(a.iter_mut()),
            serde_json::Value::Object(o) => stack.extend(o.values_mut()),
            _ => {}
        }
    }
}

/// `s` quoted for a POSIX shell: in single quotes, each `'` written `'\''` (commands
/// the viewer copies and the resume advice a stopped run prints).
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_and_bidi() {
        assert_eq!(for_terminal("a\x1b]0;x\x07b"), "a\\u{001B}]0;x\\u{0007}b");
        assert_eq!(for_terminal("x\u{202E}y\u{200B}"), "x\\u{202E}y\\u{200B}");
        assert_eq!(for_terminal("\u{9b}2J"), "\\u{009B}2J");
        assert!(matches!(for_terminal("p ∧ q\n"), Cow::Borrowed(_)));
        assert_eq!(one_line("a\nb"), "a\\nb");
    }
}
