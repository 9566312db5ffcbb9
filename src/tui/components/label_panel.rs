//! Label mode's panel (`a`): the note being written and the undo history of this
//! session's labels; label-mode actions become intents the app carries out on the run.

use super::super::keymap::{Action, Context};
use super::text_field::TextField;

/// A label as it was before a change, for undo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Earlier {
    /// Index of the run.
    pub run: usize,
    /// The sample's id.
    pub id: String,
    /// Its categories then.
    pub categories: Vec<String>,
    /// Its note then.
    pub note: String,
}

/// What a label-mode action asks of the app.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelIntent {
    /// Record "reviewed, nothing wrong" (an empty label).
    Reviewed,
    /// Add the category the diff suggests.
    AcceptSuggestion,
    /// Open the note field.
    EditNote,
    /// Restore the last earlier state.
    Undo,
    /// Go to the next sample this annotator has not labelled.
    NextUnlabelled,
    /// Move the selection by this many samples.
    Move(isize),
    /// Leave label mode.
    Close,
    /// Quit the viewer.
    Quit,
    /// Not a label action: handle it as when browsing.
    Browse(Action),
}

/// The label panel's state.
#[derive(Debug, Default)]
pub struct LabelPanel {
    /// The note being typed.
    pub note: TextField,
    undo: Vec<Earlier>,
}

impl LabelPanel {
    /// The keymap context whose bindings drive it.
    pub const CONTEXT: Context = Context::Label;
    /// Undo steps kept.
    pub const MAX_UNDO: usize = 1_000;

    /// What an action of the label context asks for.
    pub fn intent(a: Action) -> LabelIntent {
        match a {
            Action::Reviewed => LabelIntent::Reviewed,
            Action::AcceptSuggestion => LabelIntent::AcceptSuggestion,
            Action::EditNote => LabelIntent::EditNote,
            Action::Undo => LabelIntent::Undo,
            Action::NextUnlabelled => LabelIntent::NextUnlabelled,
            Action::Up => LabelIntent::Move(-1),
            Action::Down => LabelIntent::Move(1),
            Action::Back => LabelIntent::Close,
            Action::Quit => LabelIntent::Quit,
            other => LabelIntent::Browse(other),
        }
    }

    /// Remembers a label's earlier state (the oldest go past [`LabelPanel::MAX_UNDO`]).
    pub fn remember(&mut self, earlier: Earlier) {
        if self.undo.len() >= Self::MAX_UNDO {
            self.undo.remove(0);
        }
        self.undo.push(earlier);
    }

    /// The last earlier state, taken off the history.
    pub fn take_last(&mut self) -> Option<Earlier> {
        self.undo.pop()
    }

    /// Forgets the last remembered state (restoring one records it again; that record is
    /// not a step to undo).
    pub fn forget_last(&mut self) {
        self.undo.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intents_and_a_bounded_undo_history() {
        assert_eq!(LabelPanel::intent(Action::Down), LabelIntent::Move(1));
        assert_eq!(LabelPanel::intent(Action::Reviewed), LabelIntent::Reviewed);
        assert_eq!(
            LabelPanel::intent(Action::Search),
            LabelIntent::Browse(Action::Search)
        );
        let mut p = LabelPanel::default();
        for k in 0..LabelPanel::MAX_UNDO + 3 {
            p.remember(Earlier {
                run: 0,
                id: k.to_string(),
                categories: vec![],
                note: String::new(),
            });
        }
        assert_eq!(
            p.take_last().map(|e| e.id),
            Some((LabelPanel::MAX_UNDO + 2).to_string())
        );
        p.forget_last();
        let mut n = 0;
        while p.take_last().is_some() {
            n += 1;
        }
        assert_eq!(n, LabelPanel::MAX_UNDO - 2);
    }
}
