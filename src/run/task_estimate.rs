//! Token estimates of a reference-task run's calls from their real prompts: one source
//! for `run --dry-run --task` and the viewer's new-run form, so the two agree.

use super::task::TaskSet;
use crate::dataset::Item;
use crate::prompt::{PromptSet, Rendered};

/// Tokens a reasoning task's answer is taken to take (step-by-step reasoning, then the
/// answer).
pub const REASONING_ANSWER_TOKENS: u64 = 150;

/// Rough token count of text (about four characters a token in English and formulas).
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4).max(1)
}

/// One sample's call: its real prompt and estimated prompt and answer tokens.
pub struct TaskCall {
    /// The prompt the run sends.
    pub prompt: Rendered,
    /// Estimated prompt tokens.
    pub input: u64,
    /// Estimated answer tokens: [`REASONING_ANSWER_TOKENS`], or for `folio-a` and
    /// `folio-i` three times the premise's length.
    pub output: u64,
}

/// The call of dataset item `item` of `task` (`None`: the task has no such sample).
pub fn call(task: &TaskSet, prompts: &PromptSet, item: &Item) -> Option<TaskCall> {
    let prompt = task.prompt(prompts, item.idx)?;
    let output = if task.kind.labels().is_some() {
        REASONING_ANSWER_TOKENS
    } else {
        estimate_tokens(&item.fs) * 3 + 10
    };
    Some(TaskCall {
        input: estimate_tokens(&prompt.text),
        output,
        prompt,
    })
}
