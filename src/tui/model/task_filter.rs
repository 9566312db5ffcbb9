//! The filters on reference-task samples: gold label, the model's answer (`unknown`
//! when the reply marks none), and right or wrong. A dataset sample has none of them,
//! so any of these filters set hides it.

use crate::analysis::task_answer::Label;
use crate::run::task_mark::{Mark, TaskMark};

/// The gold-label filter: any, or one label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GoldFilter {
    /// All samples.
    #[default]
    Any,
    /// Task samples whose gold label is this one.
    Is(Label),
}

impl GoldFilter {
    /// Its name in the filter editor and the summary.
    pub fn name(self) -> &'static str {
        match self {
            GoldFilter::Any => "any",
            GoldFilter::Is(l) => l.name(),
        }
    }

    /// Whether a row with this mark passes.
    pub fn admits(self, m: TaskMark) -> bool {
        match self {
            GoldFilter::Any => true,
            GoldFilter::Is(l) => m.gold() == Some(Mark::Label(l)),
        }
    }

    /// "any", then each label of `labels`.
    pub(crate) fn choices(labels: &[Label]) -> Vec<GoldFilter> {
        std::iter::once(GoldFilter::Any)
            .chain(labels.iter().map(|l| GoldFilter::Is(*l)))
            .collect()
    }
}

/// The answer filter: any, one label, or no answer read (`unknown`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AnswerFilter {
    /// All samples.
    #[default]
    Any,
    /// Task samples answered with this label.
    Is(Label),
    /// Task samples whose reply marks no answer (counted wrong).
    Unknown,
}

impl AnswerFilter {
    /// Its name in the filter editor and the summary.
    pub fn name(self) -> &'static str {
        match self {
            AnswerFilter::Any => "any",
            AnswerFilter::Is(l) => l.name(),
            AnswerFilter::Unknown => "unknown",
        }
    }

    /// Whether a row with this mark passes.
    pub fn admits(self, m: TaskMark) -> bool {
        match self {
            AnswerFilter::Any => true,
            AnswerFilter::Is(l) => m.answer() == Some(Mark::Label(l)),
            AnswerFilter::Unknown => m.answer() == Some(Mark::Unknown),
        }
    }

    /// "any", each label of `labels`, then "unknown".
    pub(crate) fn choices(labels: &[Label]) -> Vec<AnswerFilter> {
        std::iter::once(AnswerFilter::Any)
            .chain(labels.iter().map(|l| AnswerFilter::Is(*l)))
            .chain(std::iter::once(AnswerFilter::Unknown))
            .collect()
    }
}

/// The correctness filter: any, right, or wrong (no answer counts wrong).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CorrectFilter {
    /// All samples.
    #[default]
    Any,
    /// Task samples answered right (`folio-a`: proved equivalent).
    Right,
    /// Task samples answered wrong or not at all.
    Wrong,
}

impl CorrectFilter {
    pub const ALL: [CorrectFilter; 3] = [
        CorrectFilter::Any,
        CorrectFilter::Right,
        CorrectFilter::Wrong,
    ];

    /// Its name in the filter editor and the summary.
    pub fn name(self) -> &'static str {
        match self {
            CorrectFilter::Any => "any",
            CorrectFilter::Right => "right",
            CorrectFilter::Wrong => "wrong",
        }
    }

    /// Whether a row with this mark passes.
    pub fn admits(self, m: TaskMark) -> bool {
        match self {
            CorrectFilter::Any => true,
            CorrectFilter::Right => m.correct() == Some(true),
            CorrectFilter::Wrong => m.correct() == Some(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_filter_admits_its_marks_and_hides_dataset_samples() {
        let right = TaskMark::new(Some("True"), Some("True"), Some(true));
        let none = TaskMark::new(Some("False"), None, Some(false));
        let dataset = TaskMark::default();
        assert!(GoldFilter::Is(Label::True).admits(right));
        assert!(!GoldFilter::Is(Label::True).admits(none));
        assert!(!GoldFilter::Is(Label::True).admits(dataset));
        assert!(AnswerFilter::Unknown.admits(none));
        assert!(!AnswerFilter::Unknown.admits(right) && !AnswerFilter::Unknown.admits(dataset));
        assert!(AnswerFilter::Is(Label::True).admits(right));
        assert!(CorrectFilter::Wrong.admits(none) && !CorrectFilter::Wrong.admits(right));
        assert!(!CorrectFilter::Right.admits(dataset) && !CorrectFilter::Wrong.admits(dataset));
        for m in [right, none, dataset] {
            assert!(GoldFilter::Any.admits(m) && AnswerFilter::Any.admits(m));
            assert!(CorrectFilter::Any.admits(m));
        }
        assert_eq!(
            AnswerFilter::choices(&[Label::Yes, Label::No]),
            [
                AnswerFilter::Any,
                AnswerFilter::Is(Label::Yes),
                AnswerFilter::Is(Label::No),
                AnswerFilter::Unknown
            ]
        );
    }
}
