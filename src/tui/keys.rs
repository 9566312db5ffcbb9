//! Typed keys: a key code with modifiers, parsed from names like `ctrl-c`, `shift-tab`, `G`.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::fmt;
use std::str::FromStr;

/// A key as the viewer sees it: one code and the ctrl/alt/shift modifiers that matter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    code: KeyCode,
    mods: KeyModifiers,
}

/// A key name that names no key the viewer can receive.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{name}' is not a key name ({why}); use one character or enter, esc, tab, shift-tab, backspace, delete, space, up, down, left, right, pageup, pagedown, home, end, f1–f12, optionally after ctrl- or alt-"
)]
pub struct KeyError {
    /// The name as written.
    pub name: String,
    /// What is wrong with it.
    pub why: &'static str,
}

const NAMED: [(&str, KeyCode); 15] = [
    ("enter", KeyCode::Enter),
    ("esc", KeyCode::Esc),
    ("tab", KeyCode::Tab),
    ("shift-tab", KeyCode::BackTab),
    ("backspace", KeyCode::Backspace),
    ("delete", KeyCode::Delete),
    ("space", KeyCode::Char(' ')),
    ("up", KeyCode::Up),
    ("down", KeyCode::Down),
    ("left", KeyCode::Left),
    ("right", KeyCode::Right),
    ("pageup", KeyCode::PageUp),
    ("pagedown", KeyCode::PageDown),
    ("home", KeyCode::Home),
    ("end", KeyCode::End),
];

impl Key {
    /// Ctrl-C: quits in every mode, whatever the keymap says.
    pub(crate) fn ctrl_c() -> Key {
        Key::new(KeyCode::Char('c'), KeyModifiers::CONTROL)
    }

    /// Ctrl-L, which repaints the screen in every mode.
    pub(crate) fn ctrl_l() -> Key {
        Key::new(KeyCode::Char('l'), KeyModifiers::CONTROL)
    }

    /// A key from a code and modifiers, normalised so that equal keys compare equal:
    /// shift is carried by a character's case (and by `BackTab`), not by the modifier.
    pub fn new(code: KeyCode, mods: KeyModifiers) -> Key {
        let mut mods = mods & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match code {
            KeyCode::Tab if mods.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
            KeyCode::Char(c) if mods.contains(KeyModifiers::CONTROL) => {
                KeyCode::Char(c.to_ascii_lowercase())
            }
            c => c,
        };
        if matches!(code, KeyCode::Char(_) | KeyCode::BackTab) {
            mods.remove(KeyModifiers::SHIFT);
        }
        Key { code, mods }
    }

    /// The key of a terminal event, or `None` for keys the viewer does not use.
    pub(crate) fn from_event(e: KeyEvent) -> Option<Key> {
        match e.code {
            KeyCode::Char(_)
            | KeyCode::Enter
            | KeyCode::Esc
            | KeyCode::Tab
            | KeyCode::BackTab
            | KeyCode::Backspace
            | KeyCode::Delete
            | KeyCode::Up
            | KeyCode::Down
            | KeyCode::Left
            | KeyCode::Right
            | KeyCode::PageUp
            | KeyCode::PageDown
            | KeyCode::Home
            | KeyCode::End => Some(Key::new(e.code, e.modifiers)),
            KeyCode::F(n) if (1..=12).contains(&n) => Some(Key::new(e.code, e.modifiers)),
            _ => None,
        }
    }

    /// The character this key types into a text field (none with ctrl or alt held).
    pub fn typed(self) -> Option<char> {
        match self.code {
            KeyCode::Char(c)
                if !self
                    .mods
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                Some(c)
            }
            _ => None,
        }
    }

    /// The name footers show: arrows as glyphs, else the key's name.
    pub fn short(self) -> String {
        let glyph = match self.code {
            KeyCode::Left => "←",
            KeyCode::Right => "→",
            KeyCode::Up => "↑",
            KeyCode::Down => "↓",
            _ => return self.to_string(),
        };
        if self.mods.is_empty() {
            glyph.to_string()
        } else {
            self.to_string()
        }
    }

    /// The key code.
    pub fn code(self) -> KeyCode {
        self.code
    }
}

impl FromStr for Key {
    type Err = KeyError;

    fn from_str(name: &str) -> Result<Key, KeyError> {
        let err = |why| KeyError {
            name: name.to_string(),
            why,
        };
        let mut mods = KeyModifiers::NONE;
        let mut rest = name;
        loop {
            let lower = rest.to_ascii_lowercase();
            let (prefix, m) = if lower.starts_with("ctrl-") {
                ("ctrl-", KeyModifiers::CONTROL)
            } else if lower.starts_with("alt-") {
                ("alt-", KeyModifiers::ALT)
            } else if lower.starts_with("shift-") && lower != "shift-tab" {
                ("shift-", KeyModifiers::SHIFT)
            } else {
                break;
            };
            if rest.len() == prefix.len() {
                break;
            }
            mods |= m;
            rest = &rest[prefix.len()..];
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (None, _) => return Err(err("empty")),
            (Some(c), None) => {
                if mods.contains(KeyModifiers::SHIFT) {
                    return Err(err(
                        "shift with a character: write the character itself, e.g. G",
                    ));
                }
                if c.is_control() {
                    return Err(err("a control character"));
                }
                KeyCode::Char(c)
            }
            _ => {
                let lower = rest.to_ascii_lowercase();
                if let Some((_, code)) = NAMED.iter().find(|(n, _)| *n == lower) {
                    *code
                } else if let Some(n) = lower
                    .strip_prefix('f')
                    .and_then(|n| n.parse::<u8>().ok())
                    .filter(|n| (1..=12).contains(n))
                {
                    KeyCode::F(n)
                } else {
                    return Err(err("unknown name"));
                }
            }
        };
        Ok(Key::new(code, mods))
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mods.contains(KeyModifiers::CONTROL) {
            f.write_str("ctrl-")?;
        }
        if self.mods.contains(KeyModifiers::ALT) {
            f.write_str("alt-")?;
        }
        if self.mods.contains(KeyModifiers::SHIFT) {
            f.write_str("shift-")?;
        }
        match self.code {
            KeyCode::F(n) => write!(f, "f{n}"),
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            code => {
                let name = NAMED
                    .iter()
                    .find(|(_, c)| *c == code)
                    .map_or("?", |(n, _)| *n);
                f.write_str(name)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_events_normalise() {
        for name in [
            "q",
            "G",
            "ctrl-c",
            "shift-tab",
            "enter",
            "space",
            "f2",
            "alt-x",
            "-",
            "ctrl--",
            "?",
            "shift-up",
            "pagedown",
            "φ",
        ] {
            let k: Key = name.parse().unwrap();
            assert_eq!(k.to_string(), name);
        }
        let ev = |c, m| Key::from_event(KeyEvent::new(c, m)).unwrap();
        assert_eq!(
            ev(KeyCode::Char('G'), KeyModifiers::SHIFT),
            "G".parse().unwrap()
        );
        assert_eq!(
            ev(KeyCode::BackTab, KeyModifiers::SHIFT),
            "shift-tab".parse().unwrap()
        );
        assert_eq!(
            ev(KeyCode::Tab, KeyModifiers::SHIFT),
            "shift-tab".parse().unwrap()
        );
        assert_eq!(
            ev(KeyCode::Char('c'), KeyModifiers::CONTROL),
            "ctrl-c".parse().unwrap()
        );
        assert_eq!("Enter".parse::<Key>().unwrap(), "enter".parse().unwrap());
        assert_eq!(
            ev(KeyCode::Char('x'), KeyModifiers::NONE).typed(),
            Some('x')
        );
        assert_eq!(ev(KeyCode::Char('x'), KeyModifiers::CONTROL).typed(), None);
        assert!(Key::from_event(KeyEvent::new(KeyCode::CapsLock, KeyModifiers::NONE)).is_none());
        for bad in ["", "ctrl-", "shift-x", "f13", "bogus", "\u{1b}"] {
            let e = bad.parse::<Key>().unwrap_err();
            assert!(e.to_string().contains("not a key name"), "{bad}: {e}");
        }
    }
}
