//! Every closeness metric of one (reference, candidate) pair of strings, as
//! `autoeval metrics pairs` prints it.
//!
//! Paper-compatible metrics (`bleu_fol`, `rouge_l_fol`, `meteor`, `le`, `smatch_paper`) take the
//! strings as given, as the paper's code does; autoeval-native ones (`smatch`, and the
//! older `bleu_smoothed`, `rouge_l`, `tree`) parse them with autoeval's own parser.

use super::bleu_fol::{bleu_fol, rouge_l_fol};
use super::closeness::closeness;
use super::le::le_parsed;
use super::meteor::meteor;
use super::paper_parse::parse_paper;
use super::smatch::smatch;
use super::smatch_paper::smatch_paper_parsed;
use crate::syntax::{Expr, SyntaxKind, parse};
use serde::{Deserialize, Serialize};

/// All metrics of a pair; `None` where a metric has no value (reason in `notes`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct PairMetrics {
    /// The paper's BLEU (msplit tokens, adaptive order, unsmoothed).
    pub bleu_fol: f64,
    /// The paper's ROUGE-L F1 on msplit tokens.
    pub rouge_l_fol: f64,
    /// nltk's METEOR on the raw strings, exact and Porter-stem stages only (no WordNet).
    pub meteor: Option<f64>,
    /// LogicLLaMA LE (0 when the paper's parser fails either side, as the paper scores it).
    pub le: Option<f64>,
    /// Smatch F1 on autoeval's correct graph, optimal alignment.
    pub smatch: Option<f64>,
    /// Smatch F1 on the paper's graph conversion, optimal alignment (0 on a failed paper parse).
    pub smatch_paper: Option<f64>,
    /// autoeval's older smoothed BLEU on canonical tokens (not the paper's BLEU).
    pub bleu_smoothed: Option<f64>,
    /// autoeval's ROUGE-L on canonical tokens.
    pub rouge_l: Option<f64>,
    /// autoeval's subtree Dice score.
    pub tree: Option<f64>,
    /// Whether the paper's parser read each side (reference, candidate).
    pub paper_parses: [bool; 2],
    /// Why a value is missing or not proved optimal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Computes every metric of `candidate` against `reference`.
pub(crate) fn pair_metrics(reference: &str, candidate: &str, syntax: SyntaxKind) -> PairMetrics {
    let mut notes = Vec::new();
    let (pr, pc) = (parse_paper(reference), parse_paper(candidate));
    for (side, p) in [("reference", &pr), ("candidate", &pc)] {
        if let Err(e) = p {
            notes.push(format!(
                "paper parser fails on the {side} ({e}): le and smatch_paper are 0 as in the paper"
            ));
        }
    }
    let le = match le_parsed(pc.as_ref(), pr.as_ref()) {
        Ok(v) => Some(v),
        Err(e) => {
            notes.push(format!("le: {e}"));
            None
        }
    };
    let smatch_paper = match smatch_paper_parsed(pc.as_ref(), pr.as_ref()) {
        Ok((v, optimal)) => {
            if !optimal {
                notes.push("smatch_paper: search budget ran out; best alignment found".into());
            }
            Some(v)
        }
        Err(e) => {
            notes.push(format!("smatch_paper: {e}"));
            None
        }
    };
    let meteor = match meteor(reference, candidate) {
        Ok(v) => Some(v),
        Err(e) => {
            notes.push(format!("meteor: {e}"));
            None
        }
    };
    let mut out = PairMetrics {
        bleu_fol: bleu_fol(candidate, reference),
        meteor,
        rouge_l_fol: rouge_l_fol(candidate, reference),
        le,
        smatch_paper,
        paper_parses: [pr.is_ok(), pc.is_ok()],
        ..PairMetrics::default()
    };
    match (parse(reference, syntax), parse(candidate, syntax)) {
        (Ok(r), Ok(c)) => {
            let cl = closeness(&r, &c);
            out.bleu_smoothed = Some(cl.bleu);
            out.rouge_l = Some(cl.rouge_l);
            out.tree = Some(cl.tree);
            if let (Expr::Logic(fr), Expr::Logic(fc)) = (&r, &c) {
                match smatch(fc, fr) {
                    Ok((v, optimal)) => {
                        if !optimal {
                            notes
                                .push("smatch: search budget ran out; best alignment found".into());
                        }
                        out.smatch = Some(v);
                    }
                    Err(e) => notes.push(format!("smatch: {e}")),
                }
            }
        }
        (r, c) => {
            for (side, e) in [("reference", r.err()), ("candidate", c.err())] {
                if let Some(e) = e {
                    notes.push(format!(
                        "autoeval's parser fails on the {side} ({e}): smatch, bleu_smoothed, rouge_l, tree have no value"
                    ));
                }
            }
        }
    }
    out.notes = notes;
    out
}
