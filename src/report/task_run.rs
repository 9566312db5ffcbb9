//! `report` on a reference-task run (`run --task`): accuracy with its Wilson interval,
//! balanced accuracy, the confusion matrix with its `unknown` column, the unknown
//! answers listed, and accuracy by depth (Multi-LogiEval) or operator count (FOLIO).
//! `folio-a` counts verified premises; `folio-i` gives its mean text scores instead.
//!
//! A sample whose call failed (`model-error`) is not an answer of the model: it is left
//! out of the scores and counted apart (`--resume --retry-errors` asks it again).

use super::By;
use super::task::{Scored, score};
use crate::analysis::counts::TaskScoring;
use crate::analysis::task_answer::{self, LabelSet};
use crate::dataset::task_kind::TaskKind;
use crate::record::{Manifest, SampleRecord};
use crate::run::store;
use crate::verify::VerdictKind;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Accuracy of one category value.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CategoryScore {
    /// The value (depth or operator count).
    pub value: usize,
    /// Samples.
    pub n: usize,
    /// Right ones.
    pub correct: usize,
    /// correct / n.
    pub accuracy: f64,
    /// Wilson 95 % interval.
    pub ci: [f64; 2],
}

/// Mean text scores of `folio-i`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TextMeans {
    /// Mean BLEU.
    pub bleu: f64,
    /// Mean ROUGE-L.
    pub rouge_l: f64,
    /// Mean METEOR.
    pub meteor: f64,
    /// Samples scored.
    pub n: usize,
    /// Mean BERTScore-MiniLM F1 over the samples that have one; `null` when none has
    /// (the run had no `--bertscore-model`).
    pub bertscore_minilm: Option<f64>,
    /// Samples with a BERTScore-MiniLM F1.
    pub bertscore_n: usize,
}

/// A `folio-i` score `correlate` can take (`--folio-i-metric`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TextMetric {
    /// BLEU.
    Bleu,
    /// ROUGE-L F-measure.
    RougeL,
    /// METEOR.
    #[default]
    Meteor,
    /// BERTScore-MiniLM F1 (runs made with `--bertscore-model`).
    BertscoreMinilm,
}

impl TextMetric {
    /// Its name in tables.
    pub fn label(self) -> &'static str {
        match self {
            Self::Bleu => "BLEU",
            Self::RougeL => "ROUGE-L",
            Self::Meteor => "METEOR",
            Self::BertscoreMinilm => "BERTScore-MiniLM F1",
        }
    }
}

impl TextMeans {
    /// The mean of `metric` and the samples it is over (`None`: not computed).
    pub fn get(&self, metric: TextMetric) -> Option<(f64, usize)> {
        match metric {
            TextMetric::Bleu => Some((self.bleu, self.n)),
            TextMetric::RougeL => Some((self.rouge_l, self.n)),
            TextMetric::Meteor => Some((self.meteor, self.n)),
            TextMetric::BertscoreMinilm => self.bertscore_minilm.map(|b| (b, self.bertscore_n)),
        }
    }
}

/// Sums of text scores, for means.
#[derive(Clone, Copy, Default)]
struct TextSum {
    n: usize,
    bleu: f64,
    rouge_l: f64,
    meteor: f64,
    bert_n: usize,
    bert: f64,
}

impl TextSum {
    fn add(&mut self, t: &crate::record::TextScores) {
        self.n += 1;
        self.bleu += t.bleu;
        self.rouge_l += t.rouge_l;
        self.meteor += t.meteor;
        if let Some(b) = t.bertscore_minilm {
            self.bert_n += 1;
            self.bert += b;
        }
    }

    fn means(&self) -> TextMeans {
        let n = self.n.max(1) as f64;
        TextMeans {
            bleu: self.bleu / n,
            rouge_l: self.rouge_l / n,
            meteor: self.meteor / n,
            n: self.n,
            bertscore_minilm: (self.bert_n > 0).then(|| self.bert / self.bert_n as f64),
            bertscore_n: self.bert_n,
        }
    }
}

/// The report of one task run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TaskRunReport {
    /// Run id.
    pub run: String,
    /// Run directory.
    pub dir: String,
    /// `provider:model`.
    pub model: String,
    /// The task (`folio-r-nl`, …).
    pub task: TaskKind,
    /// Run status.
    pub status: String,
    /// Samples scored (model errors left out).
    pub n: usize,
    /// Right answers (`folio-a`: verified premises).
    pub correct: usize,
    /// Replies without an answer (counted wrong).
    pub unknown: usize,
    /// Samples whose call failed (not scored).
    pub model_errors: usize,
    /// correct / n, 0–1 (None for `folio-i`, scored by text metrics).
    pub accuracy: Option<f64>,
    /// Wilson 95 % interval of the accuracy.
    pub ci: Option<[f64; 2]>,
    /// Mean recall over the gold labels present (reasoning tasks).
    pub balanced_accuracy: Option<f64>,
    /// Gold label → answer (`unknown` for none) → samples (reasoning tasks).
    pub confusion: Option<BTreeMap<String, BTreeMap<String, usize>>>,
    /// A2 for a task: the share of answered samples that gave a usable answer (a marked
    /// answer read; `folio-a`: a formula that parses; `folio-i`: an informalization,
    /// not blank nor a copy of the formula), as `leaderboard` counts it.
    pub a2: Option<f64>,
    /// Wilson 95 % interval of A2.
    pub a2_ci: Option<[f64; 2]>,
    /// A2's numerator and denominator.
    pub compliant: usize,
    /// Samples answered (model errors left out; `folio-a`: copies too).
    pub answered: usize,
    /// Verdict name → samples.
    pub verdicts: BTreeMap<String, usize>,
    /// What the categories are (`depth` or `operators`).
    pub by: String,
    /// Accuracy per category value.
    pub by_category: Vec<CategoryScore>,
    /// The task items whose reply had no answer (`sample id: item id`).
    pub unknown_items: Vec<String>,
    /// `folio-i`: mean BLEU, ROUGE-L, METEOR (and BERTScore-MiniLM) against FOLIO's premises.
    pub text_scores: Option<TextMeans>,
    /// `folio-i`: mean text scores per category value.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub text_by_category: Vec<CategoryText>,
}

/// `folio-i`'s mean text scores of one category value.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CategoryText {
    /// The value (operator count).
    pub value: usize,
    /// Samples.
    pub n: usize,
    /// Mean METEOR.
    pub meteor: f64,
    /// Every mean of the value's samples.
    pub scores: TextMeans,
}

/// The latest record per sample id, in first-seen order (a retried sample has two).
fn latest(records: Vec<SampleRecord>) -> Vec<SampleRecord> {
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    let mut out: Vec<SampleRecord> = Vec::new();
    for r in records {
        if let Some(&i) = at.get(&r.id) {
            out[i] = r;
        } else {
            at.insert(r.id.clone(), out.len());
            out.push(r);
        }
    }
    out
}

/// What a task run's samples add up to, before the scores are taken.
#[derive(Default)]
struct Tally {
    counts: super::Counts,
    verdicts: BTreeMap<String, usize>,
    /// Reasoning tasks: gold label against answer, per sample.
    scored: Vec<Scored>,
    /// `folio-a`/`folio-i`: whether the sample verified, and its category.
    passes: Vec<(bool, Option<usize>)>,
    model_errors: usize,
    unknown_items: Vec<String>,
    sums: TextSum,
    text_cats: BTreeMap<usize, TextSum>,
}

impl Tally {
    /// Counts the samples of task `kind`, grouped by `by`.
    fn of(samples: &[SampleRecord], kind: TaskKind, by: By) -> Tally {
        let set = kind.labels();
        let mut t = Tally::default();
        for s in samples {
            *t.verdicts.entry(s.verdict.name().to_string()).or_insert(0) += 1;
            t.counts.add_task_kind(s.verdict.kind(), kind.scoring());
            if s.verdict.kind() == VerdictKind::ModelError {
                t.model_errors += 1;
                continue;
            }
            t.add(s, set, by);
        }
        t
    }

    /// Adds one answered sample.
    fn add(&mut self, s: &SampleRecord, set: Option<LabelSet>, by: By) {
        let task = s.task.as_ref();
        if let Some(ts) = task.and_then(|t| t.text_scores.as_ref()) {
            self.sums.add(ts);
            if let Some(c) = by.key(s) {
                self.text_cats.entry(c).or_default().add(ts);
            }
        }
        let answer = task.and_then(|t| t.answer.as_deref());
        if answer.is_none() && set.is_some() {
            let item = task.map_or("", |t| t.item.as_str());
            self.unknown_items.push(format!("{}: {item}", s.id));
        }
        let category = by.key(s);
        match set {
            Some(set) => {
                let gold = task.and_then(|t| t.gold.as_deref());
                let Some(gold) = gold.and_then(|g| task_answer::gold(g, set)) else {
                    return;
                };
                let answer = answer.and_then(|a| set.word(a));
                self.scored.push(Scored {
                    gold,
                    answer,
                    category,
                });
            }
            None => self.passes.push((s.verdict.is_equivalent(), category)),
        }
    }
}

/// Accuracy and interval per category value.
fn per_category(cats: BTreeMap<usize, (usize, usize)>) -> Vec<CategoryScore> {
    cats.into_iter()
        .map(|(value, (n, correct))| CategoryScore {
            value,
            n,
            correct,
            accuracy: correct as f64 / n.max(1) as f64,
            ci: super::intervals::wilson95(correct, n).unwrap_or([0.0, 1.0]),
        })
        .collect()
}

/// The report of task run `kind` in `dir` (whose manifest is `m`), grouped by `by`
/// (None: the task's own category).
pub fn task_report(
    dir: &Path,
    m: &Manifest,
    kind: TaskKind,
    by: Option<By>,
) -> Result<(TaskRunReport, Vec<String>), store::StoreError> {
    let loaded = store::read_samples(dir)?;
    let by = by.unwrap_or(if m.dataset.filter_field == "depth" {
        By::Depth
    } else {
        By::Operators
    });
    let mut samples = latest(loaded.records);
    // Dataset order, not finishing order: sums (and so means) are then the same bits
    // for two runs of the same items, however their samples finished.
    samples.sort_by_key(|s| s.idx);
    let t = Tally::of(&samples, kind, by);
    let mut r = TaskRunReport {
        run: m.id.clone(),
        dir: dir.display().to_string(),
        model: format!("{}:{}", m.model.provider, m.model.name),
        task: kind,
        status: crate::run::liveness::shown_status(dir, &m.status).to_string(),
        n: 0,
        correct: 0,
        unknown: 0,
        model_errors: t.model_errors,
        accuracy: None,
        ci: None,
        balanced_accuracy: None,
        confusion: None,
        a2: t.counts.compliance(),
        a2_ci: super::intervals::wilson95(t.counts.compliant, t.counts.answered),
        compliant: t.counts.compliant,
        answered: t.counts.answered,
        verdicts: t.verdicts,
        by: by.label().to_string(),
        by_category: Vec::new(),
        unknown_items: t.unknown_items,
        text_by_category: t
            .text_cats
            .into_iter()
            .map(|(value, sum)| {
                let scores = sum.means();
                CategoryText {
                    value,
                    n: sum.n,
                    meteor: scores.meteor,
                    scores,
                }
            })
            .collect(),
        text_scores: (t.sums.n > 0).then(|| t.sums.means()),
    };
    match (kind.scoring(), kind.labels()) {
        (TaskScoring::Answer, Some(set)) => {
            let t = score(&t.scored, set);
            r.n = t.n;
            r.correct = t.correct;
            r.unknown = t.unknown;
            r.accuracy = Some(t.accuracy);
            r.ci = Some([t.interval.0, t.interval.1]);
            r.balanced_accuracy = Some(t.balanced_accuracy);
            r.confusion = Some(confusion(&t.confusion, set));
            r.by_category = per_category(t.by_category);
        }
        (TaskScoring::Formula, _) => {
            let mut cats: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
            for &(ok, c) in &t.passes {
                if let Some(c) = c {
                    let e = cats.entry(c).or_default();
                    e.0 += 1;
                    e.1 += usize::from(ok);
                }
            }
            r.n = t.passes.len();
            r.correct = t.passes.iter().filter(|p| p.0).count();
            r.accuracy = Some(r.correct as f64 / r.n.max(1) as f64);
            r.ci = super::intervals::wilson95(r.correct, r.n);
            r.by_category = per_category(cats);
        }
        // A reasoning task answers with labels (the table says so for each).
        (TaskScoring::Text, _) | (TaskScoring::Answer, None) => r.n = t.passes.len(),
    }
    Ok((r, loaded.warnings))
}

/// The confusion matrix with every label of the set and `unknown` as columns.
fn confusion(
    c: &BTreeMap<(task_answer::Label, Option<task_answer::Label>), usize>,
    set: LabelSet,
) -> BTreeMap<String, BTreeMap<String, usize>> {
    let mut out = BTreeMap::new();
    for &g in set.labels() {
        let row: BTreeMap<String, usize> = set
            .labels()
            .iter()
            .map(|&a| Some(a))
            .chain([None])
            .map(|a| {
                (
                    a.map_or("unknown", |l| l.name()).to_string(),
                    c.get(&(g, a)).copied().unwrap_or(0),
                )
            })
            .collect();
        out.insert(g.name().to_string(), row);
    }
    out
}

/// A share as a percentage with one decimal.
fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// The reports as text (a table per run), or Markdown.
pub fn render_text(reports: &[TaskRunReport], md: bool) -> String {
    let mut out = String::new();
    for r in reports {
        out += &if md {
            format!("\n### {} — {} ({})\n\n", r.task, r.model, r.run)
        } else {
            format!("\n{} — {} ({})\n", r.task, r.model, r.run)
        };
        out += &score_lines(r);
        if let Some(c) = &r.confusion {
            out += &confusion_grid(c, md);
        }
        if !r.by_category.is_empty() {
            out += &category_grid(r, md);
        }
        if !r.unknown_items.is_empty() {
            out += &format!(
                "no answer (counted wrong): {}{}\n",
                r.unknown_items
                    .iter()
                    .take(20)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
                if r.unknown_items.len() > 20 {
                    format!(", … ({} in all)", r.unknown_items.len())
                } else {
                    String::new()
                }
            );
        }
    }
    out
}

/// A run's accuracy (or sample count), A2 and text-score lines.
fn score_lines(r: &TaskRunReport) -> String {
    let mut out = String::new();
    match (r.accuracy, r.ci) {
        (Some(a), Some([lo, hi])) => {
            out += &format!(
                "accuracy {} ({}/{}, 95% CI {}–{})",
                pct(a),
                r.correct,
                r.n,
                pct(lo),
                pct(hi)
            );
            if let Some(b) = r.balanced_accuracy {
                out += &format!(" · balanced accuracy {}", pct(b));
            }
            out += &format!(
                " · unknown {} · model errors {}\n",
                r.unknown, r.model_errors
            );
        }
        _ => out += &format!("{} samples · model errors {}\n", r.n, r.model_errors),
    }
    if let (Some(a2), Some([lo, hi])) = (r.a2, r.a2_ci) {
        let what = match r.task.scoring() {
            TaskScoring::Formula => "a formula that parses",
            TaskScoring::Text => "an informalization (not blank, not a copy)",
            TaskScoring::Answer => "a marked answer",
        };
        out += &format!(
            "A2 {} ({}/{} gave {what}, 95% CI {}–{})\n",
            pct(a2),
            r.compliant,
            r.answered,
            pct(lo),
            pct(hi)
        );
    }
    if let Some(t) = &r.text_scores {
        out += &format!(
            "text scores against FOLIO's premises (mean of {}): BLEU {:.3} · ROUGE-L {:.3} · METEOR {:.3} · {}\n",
            t.n,
            t.bleu,
            t.rouge_l,
            t.meteor,
            bertscore_text(t)
        );
    }
    out
}

/// The confusion matrix as a grid (gold label rows, answer columns).
fn confusion_grid(c: &BTreeMap<String, BTreeMap<String, usize>>, md: bool) -> String {
    let cols: Vec<&String> = c
        .values()
        .next()
        .map(|r| r.keys().collect())
        .unwrap_or_default();
    let mut rows = vec![
        std::iter::once("gold \\ answer".to_string())
            .chain(cols.iter().map(|s| (*s).clone()))
            .collect::<Vec<_>>(),
    ];
    for (g, row) in c {
        rows.push(
            std::iter::once(g.clone())
                .chain(row.values().map(usize::to_string))
                .collect(),
        );
    }
    super::render::grid(&rows, md)
}

/// Accuracy per category value as a grid.
fn category_grid(r: &TaskRunReport, md: bool) -> String {
    let mut rows = vec![vec![
        r.by.clone(),
        "n".into(),
        "accuracy".into(),
        "95% CI".into(),
    ]];
    for c in &r.by_category {
        rows.push(vec![
            c.value.to_string(),
            c.n.to_string(),
            pct(c.accuracy),
            format!("{}–{}", pct(c.ci[0]), pct(c.ci[1])),
        ]);
    }
    super::render::grid(&rows, md)
}

/// The BERTScore-MiniLM part of a text-score line: its mean, or why there is none.
fn bertscore_text(t: &TextMeans) -> String {
    match t.bertscore_minilm {
        None => "BERTScore-MiniLM not computed (run with --bertscore-model DIR, a \
                 --features bertscore build)"
            .into(),
        Some(b) if t.bertscore_n == t.n => format!("BERTScore-MiniLM F1 {b:.3}"),
        Some(b) => format!(
            "BERTScore-MiniLM F1 {b:.3} (on {} of {} samples; the others have none)",
            t.bertscore_n, t.n
        ),
    }
}

/// The reports as CSV: one line per run.
pub fn render_csv(reports: &[TaskRunReport]) -> String {
    let mut out = String::from(
        "run,model,task,n,correct,unknown,model_errors,accuracy,ci_low,ci_high,balanced_accuracy,\
         bleu,rouge_l,meteor,bertscore_minilm,a2\n",
    );
    let f = |x: Option<f64>| x.map_or_else(String::new, |x| format!("{x:.6}"));
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    for r in reports {
        out += &format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            q(&r.run),
            q(&r.model),
            q(r.task.name()),
            r.n,
            r.correct,
            r.unknown,
            r.model_errors,
            f(r.accuracy),
            f(r.ci.map(|c| c[0])),
            f(r.ci.map(|c| c[1])),
            f(r.balanced_accuracy),
            f(r.text_scores.as_ref().map(|t| t.bleu)),
            f(r.text_scores.as_ref().map(|t| t.rouge_l)),
            f(r.text_scores.as_ref().map(|t| t.meteor)),
            f(r.text_scores.as_ref().and_then(|t| t.bertscore_minilm)),
            f(r.a2)
        );
    }
    out
}
