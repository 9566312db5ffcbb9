//! A reference-task sample's gold label, answer and correctness packed in one byte of
//! its row: what the viewer's gold / answer / correct filters read without the record.

use crate::analysis::task_answer::Label;

/// A gold label or an answer as a row keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// One of the tasks' labels.
    Label(Label),
    /// A reasoning task's reply with no answer the rule reads (`unknown`, counted wrong).
    Unknown,
    /// A string that is no label (a hand-edited or foreign file).
    Other,
}

/// Gold label (bits 0–2), answer (bits 3–5) and correctness (bits 6–7) of a sample;
/// zero for a sample of a dataset run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskMark(u8);

const NONE: u8 = 0;
const UNKNOWN: u8 = 6;
const OTHER: u8 = 7;

fn code(m: Option<Mark>) -> u8 {
    match m {
        None => NONE,
        Some(Mark::Label(l)) => Label::ALL.iter().position(|x| *x == l).unwrap_or(0) as u8 + 1,
        Some(Mark::Unknown) => UNKNOWN,
        Some(Mark::Other) => OTHER,
    }
}

fn mark(c: u8) -> Option<Mark> {
    match c {
        NONE => None,
        UNKNOWN => Some(Mark::Unknown),
        OTHER => Some(Mark::Other),
        c => Label::ALL.get(usize::from(c) - 1).copied().map(Mark::Label),
    }
}

fn label_or_other(s: &str) -> Mark {
    Label::from_name(s).map_or(Mark::Other, Mark::Label)
}

impl TaskMark {
    /// The same mark without its correctness (what a blind session may read: right or
    /// wrong is the outcome).
    #[must_use]
    pub fn without_correct(self) -> Self {
        TaskMark(self.0 & 0b0011_1111)
    }

    /// From a task record's fields. Only a reasoning task (one with a gold label) has an
    /// answer; its missing answer is [`Mark::Unknown`].
    pub(crate) fn new(gold: Option<&str>, answer: Option<&str>, correct: Option<bool>) -> Self {
        let g = gold.map(label_or_other);
        let a = g.map(|_| answer.map_or(Mark::Unknown, label_or_other));
        let c = match correct {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        };
        TaskMark(code(g) | code(a) << 3 | c << 6)
    }

    /// The stored byte (the row index keeps it).
    pub(crate) fn byte(self) -> u8 {
        self.0
    }

    /// From a stored byte.
    pub(crate) fn from_byte(b: u8) -> Self {
        TaskMark(b)
    }

    /// The gold label, for a reasoning task's sample.
    pub fn gold(self) -> Option<Mark> {
        mark(self.0 & 7)
    }

    /// The answer read from the reply, for a reasoning task's sample.
    pub fn answer(self) -> Option<Mark> {
        mark(self.0 >> 3 & 7)
    }

    /// Whether the answer was right (`folio-a`: whether the formula was equivalent).
    pub fn correct(self) -> Option<bool> {
        match self.0 >> 6 {
            1 => Some(false),
            2 => Some(true),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_combination_round_trips_through_its_byte() {
        let names = [None, Some("True"), Some("no"), Some("Maybe")];
        for g in names {
            for a in names {
                for c in [None, Some(true), Some(false)] {
                    let m = TaskMark::from_byte(TaskMark::new(g, a, c).byte());
                    assert_eq!(m.gold(), g.map(label_or_other));
                    let want = g.map(|_| a.map_or(Mark::Unknown, label_or_other));
                    assert_eq!(m.answer(), want, "{g:?} {a:?}");
                    assert_eq!(m.correct(), c);
                }
            }
        }
        assert_eq!(TaskMark::default().gold(), None);
        assert_eq!(
            TaskMark::new(Some("Uncertain"), None, Some(false)).answer(),
            Some(Mark::Unknown)
        );
        assert_eq!(
            TaskMark::new(Some("yes"), Some("yes"), Some(true)).gold(),
            Some(Mark::Label(Label::Yes))
        );
    }
}
