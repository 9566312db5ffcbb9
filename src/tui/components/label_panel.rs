//! Label mode's panel (`a`): the note being written and the undo history of this
//! session's labels; the app carries out label-mode actions on the run.

use super::super::keymap::Context;
use super::text_field::TextField;

/// A label as it was before a change, for undo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Earlier {
    /// Index of the run.
    pub run: usize,
    /// The sample's id.
    pub id: String,
    /// Its state then (undo puts it back through the state machine).
    pub label: crate::labels::state::LabelState,
}

/// The label panel's state.
#[derive(Debug, Default)]
pub struct LabelPanel {
    /// The note being typed.
    pub note: TextField,
    undo: Vec<Earlier>,
    /// Notes typed on samples with no label in force, per (run, id): kept in the form
    /// until a category or "nothing wrong" records them.
    drafts: std::collections::HashMap<(usize, String), String>,
    /// The sample whose "nothing wrong" key was pressed once over named categories:
    /// pressed again at once, it replaces them.
    pub(crate) asked: Option<(usize, String)>,
}

impl LabelPanel {
    /// The keymap context whose bindings drive it.
    pub const CONTEXT: Context = Context::Label;
    /// Undo steps kept.
    pub(crate) const MAX_UNDO: usize = 1_000;

    /// The draft note of sample `id` of run `run` ("" when none).
    pub(crate) fn draft(&self, run: usize, id: &str) -> &str {
        self.drafts
            .get(&(run, id.to_string()))
            .map_or("", String::as_str)
    }

    /// Keeps `note` as the draft of sample `id` of run `run` (an empty one drops it).
    pub(crate) fn set_draft(&mut self, run: usize, id: &str, note: &str) {
        if note.is_empty() {
            self.drafts.remove(&(run, id.to_string()));
        } else {
            self.drafts.insert((run, id.to_string()), note.to_string());
        }
    }

    /// Remembers a label's earlier state (the oldest go past [`LabelPanel::MAX_UNDO`]).
    pub(crate) fn remember(&mut self, earlier: Earlier) {
        if self.undo.len() >= Self::MAX_UNDO {
            self.undo.remove(0);
        }
        self.undo.push(earlier);
    }

    /// The last earlier state, taken off the history.
    pub(crate) fn take_last(&mut self) -> Option<Earlier> {
        self.undo.pop()
    }

    /// Forgets the last remembered state (restoring one records it again; that record is
    /// not a step to undo).
    pub(crate) fn forget_last(&mut self) {
        self.undo.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bounded_undo_history() {
        let mut p = LabelPanel::default();
        for k in 0..LabelPanel::MAX_UNDO + 3 {
            p.remember(Earlier {
                run: 0,
                id: k.to_string(),
                label: crate::labels::state::LabelState::None,
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
