//! The filter editor (`f`): a cursor over the filter fields that edits the app's
//! [`Filter`] — operator/depth bounds (arrows or typed digits), verdicts, label state,
//! dataset and failure kinds, hand-label categories, judge, "passes in", closeness
//! (any stored metric, a from–to range or "without it"), annotators disagree,
//! truncated, and for reference-task samples the gold label, the answer and right/wrong.

use super::super::keymap::{Action, Context};
use super::super::model::{
    AnswerFilter, ClosenessFilter, CorrectFilter, DisagreeFilter, Filter, GoldFilter, JudgeFilter,
    LabelFilter, TruncatedFilter,
};
use super::Effect;
use crate::analysis::kinds::FailureKind;
use crate::analysis::task_answer::Label;
use crate::record::Metric;
use crate::run::rows::Scores;
use crate::verify::VerdictKind;
use std::collections::BTreeSet;

/// A field of the editor, in the order the editor lists them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Field {
    /// The operator/depth range's lower bound.
    #[default]
    From,
    /// Its upper bound.
    To,
    /// One verdict (toggled).
    Verdict(VerdictKind),
    /// Label state (any, labelled, unlabelled).
    Labels,
    /// Dataset kind.
    Kind,
    /// Failure kind.
    Failure,
    /// Hand-label categories, any of.
    LabelAny,
    /// Hand-label categories, none of.
    LabelNone,
    /// The judge's answer.
    Judge,
    /// Passes in another run.
    PassesIn,
    /// The closeness metric (space: only samples without it).
    Metric,
    /// The closeness range's lower bound.
    CloseFrom,
    /// Its upper bound.
    CloseTo,
    /// Annotators disagree.
    Disagree,
    /// Calls that ran out of tokens while reasoning.
    Truncated,
    /// A reference-task sample's gold label.
    Gold,
    /// The answer read from its reply (`unknown`: none).
    Answer,
    /// Answered right or wrong.
    Correct,
}

/// How many fields the editor has.
pub const FIELDS: usize = Field::ALL.len();

impl Field {
    /// Every field, in the editor's order.
    pub const ALL: [Field; 23] = [
        Field::From,
        Field::To,
        Field::Verdict(VerdictKind::ALL[0]),
        Field::Verdict(VerdictKind::ALL[1]),
        Field::Verdict(VerdictKind::ALL[2]),
        Field::Verdict(VerdictKind::ALL[3]),
        Field::Verdict(VerdictKind::ALL[4]),
        Field::Verdict(VerdictKind::ALL[5]),
        Field::Labels,
        Field::Kind,
        Field::Failure,
        Field::LabelAny,
        Field::LabelNone,
        Field::Judge,
        Field::PassesIn,
        Field::Metric,
        Field::CloseFrom,
        Field::CloseTo,
        Field::Disagree,
        Field::Truncated,
        Field::Gold,
        Field::Answer,
        Field::Correct,
    ];

    /// Its row in the editor.
    pub fn index(self) -> usize {
        Field::ALL.iter().position(|f| *f == self).unwrap_or(0)
    }

    /// The field `d` rows away, wrapping around.
    fn step(self, d: isize) -> Field {
        let i = (self.index() as isize + d).rem_euclid(FIELDS as isize) as usize;
        Field::ALL[i]
    }

    /// Whether the field filters by outcome (verdicts, failure kind, judge, passes in,
    /// closeness, truncated, right/wrong): blind mode keeps those closed, since what they
    /// keep would tell. The gold label and the answer stay open: the overview shows both
    /// in blind mode too (only right/wrong is hidden there).
    pub(crate) fn tells_outcome(self) -> bool {
        match self {
            Field::Verdict(_)
            | Field::Failure
            | Field::Judge
            | Field::PassesIn
            | Field::Metric
            | Field::CloseFrom
            | Field::CloseTo
            | Field::Truncated
            | Field::Correct => true,
            Field::From
            | Field::To
            | Field::Labels
            | Field::Kind
            | Field::LabelAny
            | Field::LabelNone
            | Field::Disagree
            | Field::Gold
            | Field::Answer => false,
        }
    }
}

impl Field {
    /// Why a blind session keeps the field closed, or None when it may be used: the
    /// outcome fields would tell, and "annotators disagree" reads the others' labels.
    pub(crate) fn blind_refusal(self) -> Option<&'static str> {
        if self == Field::Disagree {
            return Some(
                "blind: whether annotators disagree reads the others' labels; that field stays closed",
            );
        }
        self.tells_outcome().then_some(
            "blind: filtering by verdict, failure kind, judge, passes in or closeness would tell; those fields stay closed",
        )
    }
}

/// What ←/→ moves a closeness bound by, in 1/10,000.
const CLOSENESS_STEP: u16 = 500;

/// What the editor needs to know about the loaded runs.
#[derive(Clone, Debug, Default)]
pub struct FilterEnv {
    /// The largest bucket (operator count or depth) on the chart's axis.
    pub max: usize,
    /// Dataset kinds of the loaded runs, sorted.
    pub kinds: Vec<String>,
    /// Taxonomy category ids, in order.
    pub categories: Vec<String>,
    /// How many runs are loaded.
    pub runs: usize,
    /// The answer labels of the loaded reference-task runs (every label when none is
    /// loaded yet), in [`Label::ALL`] order.
    pub labels: Vec<Label>,
}

/// The editor's state: the field under the cursor, a number being typed, and the
/// category under the cursor in the label fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilterEditor {
    /// The field under the cursor.
    pub field: Field,
    /// Digits typed into a bound so far.
    pub typed: Option<usize>,
    /// The taxonomy category under the cursor in the any-of / none-of fields.
    pub label_cursor: usize,
}

fn step<T: Clone + PartialEq>(choices: &[T], cur: &T, d: isize) -> T {
    let n = choices.len() as isize;
    let i = choices.iter().position(|c| c == cur).unwrap_or(0) as isize;
    choices[(i + d).rem_euclid(n.max(1)) as usize].clone()
}

/// Whether the operator range is inverted (from > to): it matches nothing until fixed.
pub fn invalid(filter: &Filter) -> bool {
    filter.range.is_some_and(|(lo, hi)| lo > hi)
}

fn set_range(filter: &mut Filter, lo: usize, hi: usize, max: usize) {
    filter.range = if lo == 0 && hi == max {
        None
    } else {
        Some((lo, hi))
    };
}

/// Sets the closeness range (the whole scale is no range) and leaves "without it".
fn set_closeness(c: &mut ClosenessFilter, lo: u16, hi: u16) {
    c.missing = false;
    c.range = if lo == 0 && hi == Scores::SCALE {
        None
    } else {
        Some((lo, hi))
    };
}

impl FilterEditor {
    /// The keymap context whose bindings drive it.
    pub const CONTEXT: Context = Context::Filter;

    /// Opens where it was left, with no number half-typed.
    pub fn open(&mut self) {
        self.typed = None;
    }

    /// A digit (or `None` for delete) typed on a bound field; returns whether it was
    /// taken (other fields leave digits to the keymap).
    pub fn digit(&mut self, d: Option<u32>, filter: &mut Filter, env: &FilterEnv) -> bool {
        match self.field {
            Field::CloseFrom | Field::CloseTo => return self.closeness_digit(d, filter),
            Field::From | Field::To => {}
            _ => return false,
        }
        let typed = self.typed.unwrap_or(0);
        let v = match d {
            Some(d) => typed
                .saturating_mul(10)
                .saturating_add(d as usize)
                .min(u16::MAX as usize),
            None => typed / 10,
        };
        self.typed = Some(v);
        let (lo, hi) = filter.range.unwrap_or((0, env.max));
        // Typing a bound never changes the other: an inverted range stays as typed
        // (shown as invalid, matching nothing) until the user fixes it.
        let (lo, hi) = if self.field == Field::From {
            (v, hi)
        } else {
            (lo, v)
        };
        set_range(filter, lo, hi, env.max);
        true
    }

    /// A digit typed on a closeness bound: the digits are hundredths (`75` is 0.75,
    /// `100` is 1), capped at 1. As with the operator range, the other bound stays.
    fn closeness_digit(&mut self, d: Option<u32>, filter: &mut Filter) -> bool {
        let typed = self.typed.unwrap_or(0);
        let v = match d {
            Some(d) => typed.saturating_mul(10).saturating_add(d as usize).min(100),
            None => typed / 10,
        };
        self.typed = Some(v);
        let c = &mut filter.closeness;
        let (lo, hi) = c.range.unwrap_or((0, Scores::SCALE));
        let units = (v * 100) as u16;
        let (lo, hi) = if self.field == Field::CloseFrom {
            (units, hi)
        } else {
            (lo, units)
        };
        set_closeness(c, lo, hi);
        true
    }

    /// Handles an action of the filter context.
    pub fn handle(&mut self, a: Action, filter: &mut Filter, env: &FilterEnv) -> Effect {
        self.typed = None;
        match a {
            Action::PrevField => self.field = self.field.step(-1),
            Action::NextField => self.field = self.field.step(1),
            Action::Decrease | Action::Increase => {
                return self.change(if a == Action::Decrease { -1 } else { 1 }, filter, env);
            }
            Action::Toggle if matches!(self.field, Field::LabelAny | Field::LabelNone) => {
                if let Some(id) = env.categories.get(self.label_cursor) {
                    let set = if self.field == Field::LabelAny {
                        &mut filter.label_any
                    } else {
                        &mut filter.label_none
                    };
                    if !set.remove(id) {
                        set.insert(id.clone());
                    }
                    return Effect::Refilter;
                }
            }
            Action::Toggle if self.field == Field::Metric => {
                // Space on the metric: only the samples without it (again: off).
                filter.closeness.missing = !filter.closeness.missing;
                return Effect::Refilter;
            }
            Action::Toggle | Action::Confirm if matches!(self.field, Field::Verdict(_)) => {
                if let Field::Verdict(v) = self.field
                    && !filter.verdicts.remove(&v)
                {
                    filter.verdicts.insert(v);
                }
                return Effect::Refilter;
            }
            Action::Back | Action::Confirm => return Effect::Close,
            Action::ClearFilters => {
                // The panel's fields only: runs shown or isolated in the run list stay.
                *filter = Filter {
                    runs: std::mem::take(&mut filter.runs),
                    ..Filter::default()
                };
                return Effect::Refilter;
            }
            _ => {}
        }
        Effect::None
    }

    /// ←/→ on the field under the cursor.
    fn change(&mut self, d: isize, filter: &mut Filter, env: &FilterEnv) -> Effect {
        let max = env.max;
        match self.field {
            Field::From | Field::To => move_range(filter, self.field == Field::From, d, max),
            Field::Labels => {
                filter.labels = match (filter.labels, d > 0) {
                    (LabelFilter::Any, true) | (LabelFilter::Unlabelled, false) => {
                        LabelFilter::Labelled
                    }
                    (LabelFilter::Labelled, true) | (LabelFilter::Any, false) => {
                        LabelFilter::Unlabelled
                    }
                    _ => LabelFilter::Any,
                };
            }
            Field::Kind => {
                // Dataset kind: cycles through "any" and the kinds of the loaded runs.
                let choices: Vec<Option<&String>> = std::iter::once(None)
                    .chain(env.kinds.iter().map(Some))
                    .collect();
                let cur = filter.kinds.iter().next();
                filter.kinds = match step(&choices, &cur, d) {
                    Some(k) => [k.clone()].into(),
                    None => BTreeSet::new(),
                };
            }
            Field::Failure => {
                let kinds: Vec<Option<FailureKind>> = std::iter::once(None)
                    .chain(FailureKind::ALL.into_iter().map(Some))
                    .collect();
                filter.failure = step(&kinds, &filter.failure, d);
            }
            Field::LabelAny | Field::LabelNone => {
                // ←/→ move the cursor over the taxonomy; space ticks the category.
                let n = env.categories.len().max(1) as isize;
                self.label_cursor = (self.label_cursor as isize + d).rem_euclid(n) as usize;
                return Effect::None;
            }
            Field::Judge => filter.judge = step(&JudgeFilter::ALL, &filter.judge, d),
            Field::PassesIn => {
                let runs: Vec<Option<usize>> = std::iter::once(None)
                    .chain((0..env.runs).map(Some))
                    .collect();
                filter.passes_in = step(&runs, &filter.passes_in, d);
            }
            Field::Metric => {
                filter.closeness.metric = step(&Metric::ALL, &filter.closeness.metric, d);
            }
            Field::CloseFrom | Field::CloseTo => {
                move_closeness(filter, self.field == Field::CloseFrom, d);
            }
            Field::Disagree => filter.disagree = step(&DisagreeFilter::ALL, &filter.disagree, d),
            Field::Truncated => {
                filter.truncated = step(&TruncatedFilter::ALL, &filter.truncated, d);
            }
            Field::Gold => {
                filter.gold = step(&GoldFilter::choices(&env.labels), &filter.gold, d);
            }
            Field::Answer => {
                filter.answer = step(&AnswerFilter::choices(&env.labels), &filter.answer, d);
            }
            Field::Correct => filter.correct = step(&CorrectFilter::ALL, &filter.correct, d),
            // ←/→ do nothing on a verdict: space or enter ticks it.
            Field::Verdict(_) => return Effect::None,
        }
        Effect::Refilter
    }
}

/// ←/→ (`d`) on the range's lower bound (`from`) or upper one, kept within 0 and `max`
/// and the other bound.
fn move_range(filter: &mut Filter, from: bool, d: isize, max: usize) {
    let (lo, hi) = filter.range.unwrap_or((0, max));
    let (lo, hi) = if from {
        ((lo as isize + d).clamp(0, hi as isize) as usize, hi)
    } else {
        (
            lo,
            (hi as isize + d).clamp(lo as isize, max.max(lo) as isize) as usize,
        )
    };
    set_range(filter, lo, hi, max);
}

/// ←/→ (`d`) on the closeness bound `from` (else the upper one), a step at a time,
/// kept within the scale and the other bound.
fn move_closeness(filter: &mut Filter, from: bool, d: isize) {
    let c = &mut filter.closeness;
    let (lo, hi) = c.range.unwrap_or((0, Scores::SCALE));
    let by = |v: u16, lim_lo: u16, lim_hi: u16| {
        let moved = if d > 0 {
            v.saturating_add(CLOSENESS_STEP)
        } else {
            v.saturating_sub(CLOSENESS_STEP)
        };
        moved.clamp(lim_lo, lim_hi.max(lim_lo))
    };
    let (lo, hi) = if from {
        (by(lo, 0, hi), hi)
    } else {
        (lo, by(hi, lo, Scores::SCALE))
    };
    set_closeness(c, lo, hi);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> FilterEnv {
        FilterEnv {
            max: 20,
            kinds: vec!["fol".into(), "pl".into()],
            categories: vec!["incomplete".into(), "off-format".into()],
            runs: 2,
            labels: vec![Label::Yes, Label::No],
        }
    }

    #[test]
    #[allow(clippy::too_many_lines)] // one editing session, keystroke by keystroke
    fn bounds_by_arrow_and_digits_and_the_other_fields() {
        let (mut e, mut f, env) = (FilterEditor::default(), Filter::default(), env());
        assert_eq!(e.handle(Action::Increase, &mut f, &env), Effect::Refilter);
        assert_eq!(f.range, Some((1, 20)));
        assert!(e.digit(Some(1), &mut f, &env) && e.digit(Some(2), &mut f, &env));
        assert_eq!(f.range, Some((12, 20)));
        e.digit(None, &mut f, &env);
        assert_eq!(f.range, Some((1, 20)));
        e.handle(Action::NextField, &mut f, &env);
        e.digit(Some(0), &mut f, &env);
        assert_eq!(f.range, Some((1, 0)), "typing 'to' leaves 'from' alone");
        assert!(invalid(&f));
        // from 5, then to 1, 0: the range is 5–10, never clamped on the way.
        e.handle(Action::PrevField, &mut f, &env);
        e.digit(None, &mut f, &env);
        e.digit(Some(5), &mut f, &env);
        e.handle(Action::NextField, &mut f, &env);
        e.digit(Some(1), &mut f, &env);
        assert_eq!(f.range, Some((5, 1)));
        assert!(invalid(&f));
        e.digit(Some(0), &mut f, &env);
        assert_eq!(f.range, Some((5, 10)));
        assert!(!invalid(&f));
        // A verdict field toggles with space or enter.
        e.field = Field::Verdict(VerdictKind::Equivalent);
        assert!(!e.digit(Some(3), &mut f, &env), "digits go to bounds only");
        e.handle(Action::Toggle, &mut f, &env);
        assert_eq!(f.verdicts.len(), 1);
        e.handle(Action::Confirm, &mut f, &env);
        assert!(f.verdicts.is_empty());
        // Dataset kind cycles any → fol → pl → any.
        e.field = Field::Kind;
        e.handle(Action::Increase, &mut f, &env);
        assert_eq!(f.kinds, ["fol".to_string()].into());
        e.handle(Action::Increase, &mut f, &env);
        e.handle(Action::Increase, &mut f, &env);
        assert!(f.kinds.is_empty());
        // Category fields: arrows move the cursor, space ticks.
        e.field = Field::LabelNone;
        assert_eq!(e.handle(Action::Increase, &mut f, &env), Effect::None);
        e.handle(Action::Toggle, &mut f, &env);
        assert_eq!(f.label_none, ["off-format".to_string()].into());
        e.field = Field::PassesIn;
        e.handle(Action::Decrease, &mut f, &env);
        assert_eq!(f.passes_in, Some(1));
        f.runs = [1].into();
        assert_eq!(
            e.handle(Action::ClearFilters, &mut f, &env),
            Effect::Refilter
        );
        assert_eq!(f.runs, [1].into(), "an isolated run stays isolated");
        f.runs.clear();
        assert_eq!(f, Filter::default());
        e.field = Field::Disagree;
        e.handle(Action::Increase, &mut f, &env);
        assert_eq!(f.disagree, DisagreeFilter::Unsettled);
        e.handle(Action::Increase, &mut f, &env);
        assert_eq!(f.disagree, DisagreeFilter::All);
        e.handle(Action::Increase, &mut f, &env);
        assert_eq!(f.disagree, DisagreeFilter::Any);
        e.handle(Action::NextField, &mut f, &env);
        assert_eq!(e.field, Field::Truncated);
        e.handle(Action::Increase, &mut f, &env);
        assert_eq!(f.truncated, TruncatedFilter::Only);
        e.handle(Action::Increase, &mut f, &env);
        assert_eq!(f.truncated, TruncatedFilter::Not);
        e.handle(Action::Increase, &mut f, &env);
        assert_eq!(f.truncated, TruncatedFilter::Any);
        // Closeness: pick a metric, type a range in hundredths, step it by 0.05.
        e.field = Field::Metric;
        e.handle(Action::Increase, &mut f, &env);
        e.handle(Action::Increase, &mut f, &env);
        assert_eq!(f.closeness.metric, Metric::Tree);
        e.handle(Action::Decrease, &mut f, &env);
        assert_eq!(f.closeness.metric, Metric::RougeL);
        assert!(!f.closeness.active());
        e.handle(Action::NextField, &mut f, &env);
        e.digit(Some(8), &mut f, &env);
        e.digit(Some(5), &mut f, &env);
        assert_eq!(f.closeness.range, Some((8500, 10_000)));
        e.handle(Action::NextField, &mut f, &env);
        e.digit(Some(5), &mut f, &env);
        assert_eq!(
            f.closeness.range,
            Some((8500, 500)),
            "an inverted range stays"
        );
        assert!(f.closeness.invalid());
        assert_eq!(f.closeness.describe().unwrap(), "rouge_l 0.85–0.05 invalid");
        e.digit(Some(0), &mut f, &env);
        e.digit(Some(0), &mut f, &env);
        assert_eq!(f.closeness.range, Some((8500, 10_000)), "capped at 1");
        e.handle(Action::Decrease, &mut f, &env);
        assert_eq!(f.closeness.range, Some((8500, 9500)));
        e.handle(Action::PrevField, &mut f, &env);
        e.handle(Action::Decrease, &mut f, &env);
        assert_eq!(f.closeness.describe().unwrap(), "rouge_l 0.80–0.95");
        e.handle(Action::PrevField, &mut f, &env);
        e.handle(Action::Toggle, &mut f, &env);
        assert_eq!(f.closeness.describe().unwrap(), "no rouge_l");
        // Task fields: gold any → yes → no → any; answer … → no → unknown; right/wrong.
        e.field = Field::Truncated;
        e.handle(Action::NextField, &mut f, &env);
        assert_eq!(e.field, Field::Gold);
        e.handle(Action::Increase, &mut f, &env);
        assert_eq!(f.gold, GoldFilter::Is(Label::Yes));
        e.handle(Action::Increase, &mut f, &env);
        e.handle(Action::Increase, &mut f, &env);
        assert_eq!(f.gold, GoldFilter::Any);
        e.handle(Action::NextField, &mut f, &env);
        e.handle(Action::Decrease, &mut f, &env);
        assert_eq!(f.answer, AnswerFilter::Unknown);
        e.handle(Action::NextField, &mut f, &env);
        e.handle(Action::Decrease, &mut f, &env);
        assert_eq!(f.correct, CorrectFilter::Wrong);
        assert!(Field::Correct.tells_outcome() && !Field::Answer.tells_outcome());
        e.field = Field::From;
        assert_eq!(e.handle(Action::Confirm, &mut f, &env), Effect::Close);
        e.handle(Action::PrevField, &mut f, &env);
        assert_eq!(e.field, Field::Correct);
        assert_eq!(FIELDS, 23);
        assert_eq!(Field::ALL[Field::Metric.index()], Field::Metric);
    }
}
