//! Blind sessions by construction. A blind session filters, searches, sorts, draws and
//! copies a sample through its *projection*: [`BlindRow`] for the list (the filter,
//! the search, the sort and the ✎ mark) and [`BlindSample`] for the detail and the copy
//! menu. They hold only what an annotator may see — φ₀, ψ and the model's reply as
//! plain text, the prompt's vocabulary, the sample's size and place, and this
//! annotator's own label. Verdicts, failure kinds, diffs, copy spans, scores, judges,
//! other annotators' labels and notes, run and model names are not in them, so a
//! screen built on them cannot show one, whatever case it forgets.

use super::Model;
use super::filter::{Filter, LabelFilter};
use crate::record::{LabelRecord, SampleRecord, TaskRecord};
use crate::report::By;
use crate::run::task_mark::TaskMark;
use crate::tui::data::{Row, RunIndex};

/// What a blind session knows of one row of the sample list.
#[derive(Clone, Copy, Debug)]
pub struct BlindRow<'a> {
    /// (run, row) in the model.
    pub at: (u32, u32),
    /// The sample's id (the dataset's, shared by every run).
    pub id: &'a str,
    /// Place of its run (shown as `run N`, never by name).
    pub run: usize,
    /// Its size under the chart's measure (operators, else depth).
    pub measure: Option<usize>,
    /// A reference task's gold label and answer (both on screen); never right/wrong.
    pub task: TaskMark,
    /// This annotator's label in force, and nobody else's.
    pub mine: Option<&'a LabelRecord>,
}

impl<'a> BlindRow<'a> {
    /// The projection of row `i` of run `run` for `annotator`.
    pub fn of(
        run: usize,
        ri: &'a RunIndex,
        i: u32,
        row: &'a Row,
        annotator: &str,
        by: By,
    ) -> BlindRow<'a> {
        let measure = match by {
            By::Operators => row.ops.or(row.depth),
            By::Depth => row.depth.or(row.ops),
        }
        .map(usize::from);
        BlindRow {
            at: (run as u32, i),
            id: &row.id,
            run,
            measure,
            task: row.task.without_correct(),
            mine: ri
                .labels
                .get(&*row.id)
                .and_then(|ls| ls.iter().find(|l| l.annotator == annotator)),
        }
    }

    /// Whether this annotator labelled it.
    pub fn labelled(&self) -> bool {
        self.mine.is_some()
    }

    /// Whether this annotator named category `c`.
    pub fn has(&self, c: &str) -> bool {
        self.mine
            .is_some_and(|l| l.categories.iter().any(|x| x == c))
    }

    /// Whether a hand-label query matches this annotator's own categories or note.
    pub fn label_matches(&self, q: &crate::tui::search::Query) -> bool {
        self.mine
            .is_some_and(|l| q.matches(&l.note) || l.categories.iter().any(|c| q.matches(c)))
    }
}

/// The filter as a blind session applies it: the size range, this annotator's label
/// state and categories, and a task's gold label and answer. The fields that tell an
/// outcome or read others' labels (verdicts, failure kind, judge, passes in,
/// closeness, truncated, right/wrong, annotators disagree) are not read here: the
/// filter editor keeps them closed, and what [`BlindRow`] lacks cannot be asked.
pub(crate) fn passes(f: &Filter, b: &BlindRow) -> bool {
    if let Some((lo, hi)) = f.range
        && !b.measure.is_some_and(|c| lo <= c && c <= hi)
    {
        return false;
    }
    let labelled = match f.labels {
        LabelFilter::Any => true,
        LabelFilter::Labelled => b.labelled(),
        LabelFilter::Unlabelled => !b.labelled(),
    };
    labelled
        && (f.label_any.is_empty() || f.label_any.iter().any(|c| b.has(c)))
        && !f.label_none.iter().any(|c| b.has(c))
        && f.gold.admits(b.task)
        && f.answer.admits(b.task)
}

/// What a blind session shows of the selected sample: the detail's Overview and the
/// copy menu read only this.
#[derive(Clone, Debug, PartialEq)]
pub struct BlindSample {
    /// The sample's id.
    pub id: String,
    /// Place of its run (`run N`).
    pub run: usize,
    /// φ₀.
    pub phi0: String,
    /// The vocabulary the prompts gave the model (from φ₀).
    pub vocabulary: String,
    /// ψ as plain text (no copy marks), None when the model gave none.
    pub psi: Option<String>,
    /// The autoformalization reply as the model wrote it, None when there is none; never
    /// φ₁'s parse or the verdict.
    pub reply: Option<String>,
    /// A reference task's item without right/wrong and scores, and the call's reply.
    pub task: Option<(TaskRecord, Option<String>)>,
}

impl BlindSample {
    /// The projection of record `rec` of the run at place `run`.
    pub fn of(rec: &SampleRecord, run: usize) -> BlindSample {
        let r1 = rec.rounds.first();
        let vocabulary = crate::syntax::parse(&rec.phi0, rec.syntax)
            .map(|e| crate::prompt::vocabulary::describe(&e, rec.syntax))
            .unwrap_or_default();
        let task = rec.task.as_ref().map(|t| {
            let reply = r1
                .and_then(|r| t.reply_call(r))
                .and_then(|c| c.output.clone());
            (
                TaskRecord {
                    correct: None,
                    text_scores: None,
                    ..t.clone()
                },
                reply,
            )
        });
        BlindSample {
            id: rec.id.clone(),
            run,
            phi0: rec.phi0.clone(),
            vocabulary,
            psi: r1.and_then(|r| r.psi.clone()),
            reply: r1
                .and_then(|r| r.autoformalize.as_ref())
                .and_then(|c| c.output.clone()),
            task,
        }
    }
}

impl Model {
    /// The blind projection of row `at` for this annotator.
    pub fn blind_row(&self, (r, i): (u32, u32)) -> BlindRow<'_> {
        let ri = &self.runs[r as usize];
        BlindRow::of(
            r as usize,
            ri,
            i,
            &ri.rows[i as usize],
            &self.annotator,
            self.by,
        )
    }
}
