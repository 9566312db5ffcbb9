//! The filters over the sample list: what each admits, as free functions of what they
//! read so rows can be filtered on several threads.

use crate::analysis::kinds::FailureKind;
use crate::record::Metric;
use crate::report::By;
use crate::run::rows::Scores;
use crate::tui::data::RunIndex;
use crate::verify::VerdictKind;
use std::collections::BTreeSet;

/// Label state filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LabelFilter {
    /// All samples.
    #[default]
    Any,
    /// Only labelled ones.
    Labelled,
    /// Only unlabelled ones.
    Unlabelled,
}

/// The active filters (search aside).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    /// Inclusive range of the category metric.
    pub range: Option<(usize, usize)>,
    /// Verdicts shown (empty: all).
    pub verdicts: BTreeSet<VerdictKind>,
    /// Dataset kinds shown (empty: all).
    pub kinds: BTreeSet<String>,
    /// Runs shown (empty: all).
    pub runs: BTreeSet<usize>,
    /// Label state.
    pub labels: LabelFilter,
    /// Only samples whose automatic failure kinds include this one.
    pub failure: Option<FailureKind>,
    /// Only samples some annotator gave any of these categories (empty: no condition).
    pub label_any: BTreeSet<String>,
    /// Only samples no annotator gave any of these categories.
    pub label_none: BTreeSet<String>,
    /// The judge's answer.
    pub judge: JudgeFilter,
    /// Only failing samples whose φ₀ passes in this run (index into the runs).
    pub passes_in: Option<usize>,
    /// A closeness metric of φ₁ to φ₀ in a range.
    pub closeness: ClosenessFilter,
    /// Samples whose annotators named different categories.
    pub disagree: DisagreeFilter,
    /// Samples with a call that stopped at the token limit before answering.
    pub truncated: TruncatedFilter,
    /// A reference-task sample's gold label.
    pub gold: super::GoldFilter,
    /// The answer read from its reply (or none).
    pub answer: super::AnswerFilter,
    /// Whether it was answered right.
    pub correct: super::CorrectFilter,
}

/// The "truncated" filter: calls that ran out of tokens while reasoning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TruncatedFilter {
    /// All samples.
    #[default]
    Any,
    /// Only samples with a truncated call.
    Only,
    /// Only samples without one.
    Not,
}

impl TruncatedFilter {
    pub const ALL: [TruncatedFilter; 3] = [
        TruncatedFilter::Any,
        TruncatedFilter::Only,
        TruncatedFilter::Not,
    ];

    /// Its name in the filter editor and the summary.
    pub fn name(self) -> &'static str {
        match self {
            TruncatedFilter::Any => "any",
            TruncatedFilter::Only => "truncated",
            TruncatedFilter::Not => "not truncated",
        }
    }

    /// Whether a row passes.
    pub fn admits(self, truncated: bool) -> bool {
        match self {
            TruncatedFilter::Any => true,
            TruncatedFilter::Only => truncated,
            TruncatedFilter::Not => !truncated,
        }
    }
}

/// The "annotators disagree" filter: two or more annotators, different category sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DisagreeFilter {
    /// All samples.
    #[default]
    Any,
    /// Annotators disagree and no adjudicated label settles it yet.
    Unsettled,
    /// Annotators disagree, settled or not.
    All,
}

impl DisagreeFilter {
    pub const ALL: [DisagreeFilter; 3] = [
        DisagreeFilter::Any,
        DisagreeFilter::Unsettled,
        DisagreeFilter::All,
    ];

    /// Its name in the filter editor and the summary.
    pub fn name(self) -> &'static str {
        match self {
            DisagreeFilter::Any => "any",
            DisagreeFilter::Unsettled => "disagree, unsettled",
            DisagreeFilter::All => "disagree (settled too)",
        }
    }

    /// Whether a sample with these (latest) labels passes.
    pub fn admits(self, labels: Option<&Vec<crate::record::LabelRecord>>) -> bool {
        if self == DisagreeFilter::Any {
            return true;
        }
        let Some(ls) = labels else {
            return false;
        };
        let (unit, settled) = crate::labels::agreement::split(ls);
        crate::labels::agreement::disagrees(&unit)
            && (self == DisagreeFilter::All || settled.is_none())
    }
}

/// The closeness filter: one stored metric of φ₁ against φ₀ in a range (from–to,
/// inclusive), or only the samples without it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClosenessFilter {
    /// The metric the condition is on.
    pub metric: Metric,
    /// Inclusive range in 1/10,000 (`Scores::SCALE`); None: no range. An inverted
    /// one (from > to) matches nothing and shows as invalid.
    pub range: Option<(u16, u16)>,
    /// Only samples whose record lacks the metric (the range aside).
    pub missing: bool,
}

impl Default for ClosenessFilter {
    fn default() -> Self {
        ClosenessFilter {
            metric: Metric::Bleu,
            range: None,
            missing: false,
        }
    }
}

impl ClosenessFilter {
    /// Whether it filters anything.
    pub fn active(&self) -> bool {
        self.missing || self.range.is_some()
    }

    /// Whether the range is inverted (from > to): it matches nothing until fixed.
    pub fn invalid(&self) -> bool {
        !self.missing && self.range.is_some_and(|(lo, hi)| lo > hi)
    }

    /// The range as numbers in 0..=1 (the whole scale when there is none).
    pub fn bounds(&self) -> (f64, f64) {
        let (lo, hi) = self.range.unwrap_or((0, Scores::SCALE));
        let f = |v: u16| f64::from(v) / f64::from(Scores::SCALE);
        (f(lo), f(hi))
    }

    /// `smatch 0.50–0.90`, `no le`, with `invalid` after an inverted range; None when
    /// it filters nothing.
    pub fn describe(&self) -> Option<String> {
        let name = self.metric.label();
        if self.missing {
            return Some(format!("no {name}"));
        }
        self.range?;
        let (lo, hi) = self.bounds();
        Some(format!(
            "{name} {lo:.2}–{hi:.2}{}",
            if self.invalid() { " invalid" } else { "" }
        ))
    }

    /// Whether a row with these scores passes.
    pub fn admits(&self, scores: Scores) -> bool {
        let v = scores.get(self.metric);
        if self.missing {
            return v.is_none();
        }
        match self.range {
            None => true,
            Some((lo, hi)) => v.is_some_and(|v| lo <= v && v <= hi),
        }
    }
}

/// Judge filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum JudgeFilter {
    /// All samples.
    #[default]
    Any,
    /// The judge said equivalent.
    Yes,
    /// The judge said not equivalent.
    No,
    /// The judge's answer had no verdict.
    Unparseable,
    /// The judge and the verifier disagree (unparseable answers aside).
    Disagrees,
    /// No judge answer for the sample.
    Unjudged,
}

impl JudgeFilter {
    pub const ALL: [JudgeFilter; 6] = [
        JudgeFilter::Any,
        JudgeFilter::Yes,
        JudgeFilter::No,
        JudgeFilter::Unparseable,
        JudgeFilter::Disagrees,
        JudgeFilter::Unjudged,
    ];

    /// Its name in the filter editor.
    pub fn name(self) -> &'static str {
        match self {
            JudgeFilter::Any => "any",
            JudgeFilter::Yes => "said yes",
            JudgeFilter::No => "said no",
            JudgeFilter::Unparseable => "unparseable",
            JudgeFilter::Disagrees => "≠ verifier",
            JudgeFilter::Unjudged => "not judged",
        }
    }
}

/// The filter's run-level conditions (which runs, which dataset kinds).
pub(crate) fn run_passes(f: &Filter, run: usize, ri: &RunIndex) -> bool {
    (f.runs.is_empty() || f.runs.contains(&run))
        && (f.kinds.is_empty()
            || ri
                .manifest
                .as_ref()
                .is_some_and(|m| f.kinds.contains(&m.dataset.kind))
            || (ri.manifest.is_none() && f.kinds.contains("?")))
}

/// The filter's row-level conditions. A free function of what it reads, so rows can
/// be filtered on several threads.
pub(crate) fn row_passes(
    f: &Filter,
    by: By,
    passing_elsewhere: &std::collections::HashSet<u64>,
    run: usize,
    ri: &RunIndex,
    r: &crate::tui::data::Row,
) -> bool {
    if !f.verdicts.is_empty() && !f.verdicts.contains(&r.verdict) {
        return false;
    }
    if let Some((lo, hi)) = f.range {
        let c = match by {
            By::Operators => r.ops.or(r.depth),
            By::Depth => r.depth.or(r.ops),
        }
        .map(usize::from);
        match c {
            Some(c) if c >= lo && c <= hi => {}
            _ => return false,
        }
    }
    let labelled = match f.labels {
        LabelFilter::Any => true,
        LabelFilter::Labelled => ri.labels.contains_key(&*r.id),
        LabelFilter::Unlabelled => !ri.labels.contains_key(&*r.id),
    };
    if !labelled {
        return false;
    }
    if let Some(k) = f.failure
        && r.fails & crate::analysis::kinds::mask(&[k]) == 0
    {
        return false;
    }
    let has = |c: &str| {
        ri.labels
            .get(&*r.id)
            .is_some_and(|ls| ls.iter().any(|l| l.categories.iter().any(|x| x == c)))
    };
    if !f.label_any.is_empty() && !f.label_any.iter().any(|c| has(c)) {
        return false;
    }
    if f.label_none.iter().any(|c| has(c)) {
        return false;
    }
    if !judge_admits(f.judge, ri, r) {
        return false;
    }
    if !f.closeness.admits(r.scores) {
        return false;
    }
    if !f.disagree.admits(ri.labels.get(&*r.id)) {
        return false;
    }
    if !f.truncated.admits(r.truncated) {
        return false;
    }
    if !(f.gold.admits(r.task) && f.answer.admits(r.task) && f.correct.admits(r.task)) {
        return false;
    }
    if let Some(other) = f.passes_in
        && (other == run || r.verdict.is_pass() || !passing_elsewhere.contains(&r.phi0_hash))
    {
        return false;
    }
    true
}

/// Whether row `r`'s judge decision (in `ri`) is one `judge` lets through.
fn judge_admits(judge: JudgeFilter, ri: &RunIndex, r: &crate::tui::data::Row) -> bool {
    use crate::llm::judge::JudgeAnswer;
    if judge == JudgeFilter::Any {
        return true;
    }
    let answer = ri.judge.get(&*r.id).map(|j| j.answer);
    match (judge, answer) {
        (JudgeFilter::Unjudged, a) => a.is_none(),
        (_, None) => false,
        (JudgeFilter::Yes, Some(a)) => a == JudgeAnswer::Yes,
        (JudgeFilter::No, Some(a)) => a == JudgeAnswer::No,
        (JudgeFilter::Unparseable, Some(a)) => a == JudgeAnswer::Unparseable,
        (JudgeFilter::Disagrees, Some(a)) => match a {
            JudgeAnswer::Yes => !r.verdict.is_pass(),
            JudgeAnswer::No => r.verdict.is_pass(),
            JudgeAnswer::Unparseable => false,
        },
        (JudgeFilter::Any, _) => true,
    }
}

/// A verdict in seven columns: a narrow sample list's verdict column, a long filter.
pub(crate) fn verdict_short(k: VerdictKind) -> &'static str {
    use VerdictKind as V;
    match k {
        V::Equivalent => "equiv",
        V::NotEquivalent => "not-eq",
        V::Unparseable => "unparse",
        V::Unknown => "unknown",
        V::Copied => "copied",
        V::ModelError => "error",
    }
}

impl super::Model {
    /// A one-line description of the active filters and counts.
    pub fn filter_summary(&self) -> String {
        let mut parts = vec![self.listed_count()];
        parts.extend(self.filter_parts(false));
        parts.extend(self.search_part());
        parts.join(" · ")
    }

    /// Samples listed of all loaded: `86/584`.
    pub(crate) fn listed_count(&self) -> String {
        format!("{}/{}", self.listing.visible.len(), self.derived.total)
    }

    /// The search in force as the title names it: `/p12`, `/p12 +reasoning`.
    pub(crate) fn search_part(&self) -> Option<String> {
        let s = &self.listing.search;
        (!s.field.text.is_empty()).then(|| {
            format!(
                "/{}{}",
                s.field.text,
                if s.reasoning { " +reasoning" } else { "" }
            )
        })
    }

    /// Each filter in force, in a few words (`ops 2–39`, `not-equivalent`), search
    /// apart; `compact` names verdicts as a narrow list does (`not-eq`).
    pub(crate) fn filter_parts(&self, compact: bool) -> Vec<String> {
        let f = &self.listing.filter;
        let mut parts = Vec::new();
        if let Some((lo, hi)) = f.range {
            let name = if self.by == crate::report::By::Operators {
                "ops"
            } else {
                "depth"
            };
            parts.push(match lo.cmp(&hi) {
                std::cmp::Ordering::Greater => format!("{name} {lo}–{hi} invalid"),
                std::cmp::Ordering::Equal => format!("{name} {lo}"),
                std::cmp::Ordering::Less => format!("{name} {lo}–{hi}"),
            });
        }
        if !f.verdicts.is_empty() {
            let v: Vec<&str> = (f.verdicts.iter())
                .map(|k| if compact { verdict_short(*k) } else { k.name() })
                .collect();
            parts.push(v.join("|"));
        }
        // A set of names as one part: `a|b`.
        let joined = |set: &std::collections::BTreeSet<String>| {
            set.iter().map(String::as_str).collect::<Vec<_>>().join("|")
        };
        if !f.kinds.is_empty() {
            parts.push(joined(&f.kinds));
        }
        if !f.runs.is_empty() {
            parts.push(format!("{} run(s)", f.runs.len()));
        }
        match f.labels {
            LabelFilter::Any => {}
            LabelFilter::Labelled => parts.push("labelled".into()),
            LabelFilter::Unlabelled => parts.push("unlabelled".into()),
        }
        if let Some(k) = f.failure {
            parts.push(k.name().to_string());
        }
        if !f.label_any.is_empty() {
            parts.push(format!("label {}", joined(&f.label_any)));
        }
        if !f.label_none.is_empty() {
            parts.push(format!("no label {}", joined(&f.label_none)));
        }
        if f.judge != JudgeFilter::Any {
            parts.push(format!("judge {}", f.judge.name()));
        }
        if let Some(r) = f.passes_in.and_then(|i| self.runs.get(i)) {
            parts.push(format!("passes in {}", r.name()));
        }
        if let Some(c) = f.closeness.describe() {
            parts.push(c);
        }
        if f.disagree != DisagreeFilter::Any {
            parts.push(format!("annotators {}", f.disagree.name()));
        }
        if f.truncated != TruncatedFilter::Any {
            parts.push(f.truncated.name().to_string());
        }
        if f.gold != super::GoldFilter::Any {
            parts.push(format!("gold {}", f.gold.name()));
        }
        if f.answer != super::AnswerFilter::Any {
            parts.push(format!("answer {}", f.answer.name()));
        }
        if f.correct != super::CorrectFilter::Any {
            parts.push(f.correct.name().to_string());
        }
        parts
    }
}
