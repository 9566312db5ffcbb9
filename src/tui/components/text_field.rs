//! A one-line text field (the search query, a label's note): typed characters, the
//! delete key, and keep or cancel.

use super::super::keymap::Action;
use super::Effect;

/// The field's text; the longest a field takes, so a paste cannot grow it without bound.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextField {
    /// What has been typed.
    pub text: String,
}

impl TextField {
    /// Longest text, in characters.
    pub(crate) const MAX_CHARS: usize = 2_000;

    /// Types a character.
    pub(crate) fn type_char(&mut self, c: char) -> Effect {
        if self.text.chars().count() >= Self::MAX_CHARS {
            return Effect::None;
        }
        self.text.push(c);
        Effect::Edited
    }

    /// Handles an action of a text context (search, note).
    pub fn handle(&mut self, a: Action) -> Effect {
        match a {
            Action::DeleteChar => {
                if self.text.pop().is_some() {
                    Effect::Edited
                } else {
                    Effect::None
                }
            }
            Action::Confirm => Effect::Confirm,
            Action::Cancel => {
                self.text.clear();
                Effect::Close
            }
            _ => Effect::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_confirms_cancels_and_is_bounded() {
        let mut f = TextField::default();
        assert_eq!(f.type_char('p'), Effect::Edited);
        f.type_char('1');
        assert_eq!(f.handle(Action::DeleteChar), Effect::Edited);
        assert_eq!(f.text, "p");
        assert_eq!(f.handle(Action::Confirm), Effect::Confirm);
        assert_eq!(f.text, "p");
        assert_eq!(f.handle(Action::Cancel), Effect::Close);
        assert!(f.text.is_empty());
        assert_eq!(f.handle(Action::DeleteChar), Effect::None);
        for _ in 0..TextField::MAX_CHARS + 5 {
            f.type_char('x');
        }
        assert_eq!(f.text.chars().count(), TextField::MAX_CHARS);
    }
}
