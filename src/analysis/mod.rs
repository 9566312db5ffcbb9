//! Analysis of samples beside the verdict: closeness metrics, the paper's metrics
//! (seed 004), perturbations and alignment statistics. Sits below `run`.

pub mod align;
pub(crate) mod align_interval;
#[cfg(feature = "bertscore")]
pub mod bertscore_minilm;
pub mod bleu_fol;
pub mod breaking;
pub mod closeness;
pub mod counts;
pub mod design;
pub mod failure_kind;
pub mod fol_text;
pub mod kinds;
pub mod le;
pub mod meteor;
pub mod pair_metrics;
pub mod paper_notation;
pub mod paper_parse;
pub mod perturb_paper;
pub mod porter;
pub mod proof;
pub mod sensitivity;
pub mod smatch;
pub mod smatch_align;
pub(crate) mod smatch_ends;
pub mod smatch_paper;
pub(crate) mod smatch_tree_bound;
pub mod task_answer;
