//! The closeness metrics a sample record stores, and the record's field for each.

use serde::{Deserialize, Serialize};

/// Closeness of φ₁ to φ₀ (metrics paper).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Closeness {
    /// Token BLEU (up to 4-grams, smoothed).
    pub bleu: f64,
    /// ROUGE-L F1 over tokens.
    pub rouge_l: f64,
    /// Dice overlap of subtree multisets.
    pub tree: f64,
    /// Paper-compatible BLEU (FOLIO printing, msplit tokens, adaptive order, unsmoothed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bleu_fol: Option<f64>,
    /// Paper-compatible ROUGE-L F1 on the same tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rouge_l_fol: Option<f64>,
    /// LogicLLaMA's LE on the FOLIO printing (0 when the paper's parser fails).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub le: Option<f64>,
    /// Smatch F1 on autoeval's correct formula graph, optimal alignment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smatch: Option<f64>,
    /// Smatch F1 on the paper's graph conversion of the FOLIO printing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smatch_paper: Option<f64>,
    /// nltk's METEOR on the FOLIO printing, exact and Porter-stem stages (no WordNet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meteor: Option<f64>,
    /// bertscore-minilm F1 (all-MiniLM-L6-v2), only when asked for with a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bertscore_minilm: Option<f64>,
}

/// A metric a `closeness` record stores, in the order screens, tables and exports show
/// them; [`Metric::name`] is its field name everywhere (records, exports, `report --json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Metric {
    /// `bleu`: autoeval's smoothed token BLEU.
    Bleu,
    /// `rouge_l`: ROUGE-L F1 over autoeval's tokens.
    RougeL,
    /// `tree`: Dice overlap of subtree multisets.
    Tree,
    /// `bleu_fol`: the paper's BLEU on the FOLIO printing.
    BleuFol,
    /// `rouge_l_fol`: the paper's ROUGE-L on the same tokens.
    RougeLFol,
    /// `le`: LogicLLaMA's logical-equivalence score.
    Le,
    /// `smatch`: Smatch F1 on autoeval's formula graph, optimal alignment.
    Smatch,
    /// `smatch_paper`: Smatch F1 on the paper's graph conversion.
    SmatchPaper,
    /// `meteor`: nltk's METEOR (exact + Porter stem, no WordNet) on the FOLIO printing.
    Meteor,
    /// `bertscore_minilm`: greedy-matching F1 of all-MiniLM-L6-v2 token embeddings.
    BertscoreMinilm,
}

impl Metric {
    /// How many metrics a record can store.
    pub const COUNT: usize = 10;

    /// Every stored metric, in display order.
    pub const ALL: [Metric; Metric::COUNT] = [
        Metric::Bleu,
        Metric::RougeL,
        Metric::Tree,
        Metric::BleuFol,
        Metric::RougeLFol,
        Metric::Le,
        Metric::Smatch,
        Metric::SmatchPaper,
        Metric::Meteor,
        Metric::BertscoreMinilm,
    ];

    /// The field name (`rouge_l_fol`).
    pub fn name(self) -> &'static str {
        match self {
            Metric::Bleu => "bleu",
            Metric::RougeL => "rouge_l",
            Metric::Tree => "tree",
            Metric::BleuFol => "bleu_fol",
            Metric::RougeLFol => "rouge_l_fol",
            Metric::Le => "le",
            Metric::Smatch => "smatch",
            Metric::SmatchPaper => "smatch_paper",
            Metric::Meteor => "meteor",
            Metric::BertscoreMinilm => "bertscore_minilm",
        }
    }

    /// Its name on screens: the field name, but `bertscore-minilm` for
    /// `bertscore_minilm` (the spelling; never "BERTScore").
    pub fn label(self) -> &'static str {
        match self {
            Metric::BertscoreMinilm => "bertscore-minilm",
            m => m.name(),
        }
    }

    /// The metric a field name names (`-` read as `_`, any case), if any.
    pub fn from_name(s: &str) -> Option<Metric> {
        let s = s.trim().to_ascii_lowercase().replace('-', "_");
        Metric::ALL.into_iter().find(|m| m.name() == s)
    }

    /// Its position in [`Metric::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Where a field named `name` goes in a table of metrics: its place in
    /// [`Metric::ALL`]; names that are no stored metric after them (break ties by name).
    pub fn table_place(name: &str) -> usize {
        Metric::from_name(name).map_or(Metric::COUNT, Metric::index)
    }
}

impl Closeness {
    /// The stored value of `m`, when the record has a finite one.
    pub fn get(&self, m: Metric) -> Option<f64> {
        match m {
            Metric::Bleu => Some(self.bleu),
            Metric::RougeL => Some(self.rouge_l),
            Metric::Tree => Some(self.tree),
            Metric::BleuFol => self.bleu_fol,
            Metric::RougeLFol => self.rouge_l_fol,
            Metric::Le => self.le,
            Metric::Smatch => self.smatch,
            Metric::SmatchPaper => self.smatch_paper,
            Metric::Meteor => self.meteor,
            Metric::BertscoreMinilm => self.bertscore_minilm,
        }
        .filter(|x| x.is_finite())
    }
}
