//! A one-line text field (the search query, a label's note): typed characters, the
//! delete key, and keep or cancel.

use super::super::keymap::Action;

/// What a text-field key asks of the app.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextEffect {
    /// Nothing happened.
    None,
    /// The text changed.
    Edited,
    /// Keep the text and leave the field.
    Confirm,
    /// Drop the text and leave the field.
    Cancel,
    /// Quit the viewer.
    Quit,
}

/// The field's text; the longest a field takes, so a paste cannot grow it without bound.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextField {
    /// What has been typed.
    pub text: String,
}

impl TextField {
    /// Longest text, in characters.
    pub const MAX_CHARS: usize = 2_000;

    /// Types a character.
    pub fn type_char(&mut self, c: char) -> TextEffect {
        if self.text.chars().count() >= Self::MAX_CHARS {
            return TextEffect::None;
        }
        self.text.push(c);
        TextEffect::Edited
    }

    /// Handles an action of a text context (search, note).
    pub fn handle(&mut self, a: Action) -> TextEffect {
        match a {
            Action::DeleteChar => {
                if self.text.pop().is_some() {
                    TextEffect::Edited
                } else {
                    TextEffect::None
                }
            }
            Action::Confirm => TextEffect::Confirm,
            Action::Cancel => {
                self.text.clear();
                TextEffect::Cancel
            }
            Action::Quit => TextEffect::Quit,
            _ => TextEffect::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_confirms_cancels_and_is_bounded() {
        let mut f = TextField::default();
        assert_eq!(f.type_char('p'), TextEffect::Edited);
        f.type_char('1');
        assert_eq!(f.handle(Action::DeleteChar), TextEffect::Edited);
        assert_eq!(f.text, "p");
        assert_eq!(f.handle(Action::Confirm), TextEffect::Confirm);
        assert_eq!(f.text, "p");
        assert_eq!(f.handle(Action::Cancel), TextEffect::Cancel);
        assert!(f.text.is_empty());
        assert_eq!(f.handle(Action::DeleteChar), TextEffect::None);
        for _ in 0..TextField::MAX_CHARS + 5 {
            f.type_char('x');
        }
        assert_eq!(f.text.chars().count(), TextField::MAX_CHARS);
        assert_eq!(f.handle(Action::Quit), TextEffect::Quit);
    }
}
