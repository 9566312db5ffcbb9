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
    /// Its categories and note then, or None when it had no label (undo retracts).
    pub label: Option<(Vec<String>, String)>,
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
    pub(crate) const MAX_UNDO: usize = 1_000;

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
                label: None,
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
