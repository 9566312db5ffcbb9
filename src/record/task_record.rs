//! A reference-task sample's own record (`samples.jsonl`'s `task`): what was asked, the
//! gold label, the answer read, and the scores.

use super::{CallRecord, RoundRecord};
use crate::dataset::task_kind::{TaskKind, TaskShape};
use serde::{Deserialize, Serialize};

/// What a reference-task sample (`run --task`) asked and answered, beside its call.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TaskRecord {
    /// The task (`folio-r-nl`, `multi-logieval-pl`, …), stored as its name under `name`.
    #[serde(rename = "name")]
    pub kind: TaskKind,
    /// The item's id in the task's data (`3-7`, `d3/pl/HS_MP_MP/7`, `3-7/p2`).
    pub item: String,
    /// Premises (FOLIO, in English or FOL) or the context (Multi-LogiEval).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub premises: Vec<String>,
    /// The conclusion (FOLIO) or question (Multi-LogiEval); for `folio-a` and `folio-i`
    /// the premise asked about.
    pub conclusion: String,
    /// The gold label, normalised (`True`/`False`/`Uncertain`, `yes`/`no`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold: Option<String>,
    /// The answer read from the reply; None for a reply without one (`unknown`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// How the answer was read: `marked`, `closing`, `folio`, or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<String>,
    /// Whether the answer equals the gold label (None when nothing was asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correct: Option<bool>,
    /// `folio-a`/`folio-i`: the reference the reply is scored against (FOLIO's
    /// premise-FOL, or its English premise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// `folio-i`: the informalization's text scores against the English premise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_scores: Option<TextScores>,
    /// Multi-LogiEval's rule combination (`HS_MP_MP`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

impl TaskRecord {
    /// A record of task `kind` with nothing asked or answered yet.
    pub fn new(kind: TaskKind) -> TaskRecord {
        TaskRecord {
            kind,
            item: String::new(),
            premises: Vec::new(),
            conclusion: String::new(),
            gold: None,
            answer: None,
            read: None,
            correct: None,
            reference: None,
            text_scores: None,
            rule: None,
        }
    }

    /// The call of `round` that holds the task's reply: `folio-a`'s autoformalization
    /// sits in `autoformalize` (FOLIO's premise is ψ), every other task's call in
    /// `informalize`.
    pub fn reply_call<'a>(&self, round: &'a RoundRecord) -> Option<&'a CallRecord> {
        match self.kind.shape() {
            TaskShape::Autoformalize => round.autoformalize.as_ref().or(Some(&round.informalize)),
            TaskShape::Reasoning | TaskShape::Informalize => Some(&round.informalize),
        }
    }
}

/// `folio-i`'s scores of a text against FOLIO's English premise.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct TextScores {
    /// BLEU (nmt `compute_bleu`, as the paper's `evaluate` computes it).
    pub bleu: f64,
    /// ROUGE-L F-measure (`rouge_score`).
    pub rouge_l: f64,
    /// METEOR (nltk: exact and Porter-stem stages, no WordNet).
    pub meteor: f64,
    /// BERTScore-MiniLM F1 (`run --bertscore-model`, builds with `--features bertscore`);
    /// absent when not computed, never 0 in its place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bertscore_minilm: Option<f64>,
}
