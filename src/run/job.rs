//! One sample's job and one model call of it: what a sample is, which call of a round,
//! where answers come from (`Caller`), how a call is recorded, and its custom id.
//! Below the pipeline and the reference tasks, which both run calls.

use super::score;
use crate::llm::BoxFut;
use crate::llm::ChatRequest;
use crate::llm::client::{CallError, CallResult};
use crate::prompt::{PromptSet, Rendered};
use crate::record::CallRecord;
use crate::syntax::{Expr, SyntaxKind};
use crate::verify::Verdict;

/// A dataset item to evaluate.
#[derive(Clone, Debug)]
pub struct Job {
    /// Sample id.
    pub id: String,
    /// Dataset index.
    pub idx: usize,
    /// Dataset batch.
    pub batch: Option<usize>,
    /// φ₀.
    pub phi0: Expr,
    /// φ₀ as written in the dataset.
    pub original: String,
    /// Operator count.
    pub num_operators: Option<usize>,
    /// Generation depth.
    pub depth: Option<usize>,
}

impl Job {
    /// The job of dataset item `item`: φ₀ parsed, or for a reference task whose sample
    /// has no formula, ⊤ standing in (never shown: the record keeps φ₀ empty).
    pub(crate) fn of(
        item: &crate::dataset::Item,
        syntax: SyntaxKind,
        task: bool,
    ) -> Result<Job, crate::syntax::ParseError> {
        let phi0 = if task && item.fs.is_empty() {
            Expr::Logic(crate::syntax::Formula::Bool(true))
        } else {
            crate::syntax::parse(&item.fs, syntax)?
        };
        Ok(Job {
            id: item.idx.to_string(),
            idx: item.idx,
            batch: item.batch,
            phi0,
            original: item.fs.clone(),
            num_operators: item.num_operators,
            depth: item.depth,
        })
    }
}

/// The record of one call: its answer and reasoning apart, tokens, cost, or its error.
pub(crate) fn call_record(prompt: &Rendered, r: &Result<CallResult, CallError>) -> CallRecord {
    match r {
        Ok(c) => CallRecord {
            prompt_id: prompt.id.clone(),
            output: Some(c.completion.text.clone()),
            input_tokens: c.completion.input_tokens,
            output_tokens: c.completion.output_tokens,
            latency_ms: c.latency_ms,
            cost_usd: c.cost_usd,
            attempts: c.attempts,
            finish_reason: c.completion.finish_reason.clone(),
            error: None,
            http_status: None,
            transport_error: false,
            implausible_usage: c.implausible_usage,
            cached: c.cached,
            batch_id: c.batch_id.clone(),
            reasoning: c.completion.reasoning.clone(),
            reasoning_tokens: c.completion.reasoning_tokens,
            reasoning_redacted: c.completion.reasoning_redacted,
            truncated: c.completion.truncated,
            unreadable: false,
            unread: c.completion.unread.clone(),
            reasoning_cut: None,
            output_cut: None,
        },
        Err(e) => {
            // A failed call the server billed keeps its tokens and cost.
            let (input_tokens, output_tokens) = e.error.billed.unwrap_or((0, 0));
            CallRecord {
                prompt_id: prompt.id.clone(),
                attempts: e.attempts,
                error: Some(e.error.message.clone()),
                http_status: e.error.status,
                transport_error: e.error.status.is_none() && e.error.retryable,
                unreadable: e.error.unreadable,
                input_tokens,
                output_tokens,
                cost_usd: e.cost_usd,
                ..Default::default()
            }
        }
    }
}

/// Which call of a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// φ → ψ.
    Informalize,
    /// ψ → φ₁.
    Autoformalize,
}

/// Where a sample's answers come from: the live client, or a provider batch's results.
pub(crate) trait Caller: Send + Sync {
    /// The answer to call `stage` of `round` of sample `id`; `None` when it is not
    /// there yet (a batch will ask it), which leaves the sample unfinished.
    fn call<'a>(
        &'a self,
        id: &'a str,
        round: usize,
        stage: Stage,
        req: ChatRequest,
    ) -> BoxFut<'a, Option<Result<CallResult, CallError>>>;

    /// A round already scored for this sample (replays skip extraction and the verifier).
    fn known_score(&self, _id: &str, _round: usize) -> Option<score::Scored> {
        None
    }

    /// Remembers a round's score for later replays.
    fn keep_score(&self, _id: &str, _round: usize, _s: &score::Scored) {}
}

/// The verdict of a call that stopped at `max_tokens` before answering (in `stage`).
pub(crate) fn truncated_verdict(max_tokens: u32, stage: &str) -> Verdict {
    Verdict::Unparseable {
        reason: format!(
            "{} ({max_tokens}) while reasoning ({stage})",
            crate::analysis::kinds::TRUNCATED_REASON,
        ),
        pos: 0,
    }
}

/// `sample_rROUND_i|a`: unique per call within a run, and within the providers'
/// custom-id alphabet (letters, digits, `_`, `-`; at most 64).
pub fn custom_id(sample: &str, round: usize, stage: Stage) -> String {
    let s = match stage {
        Stage::Informalize => 'i',
        Stage::Autoformalize => 'a',
    };
    format!("{sample}_r{round}_{s}")
}

/// What a reference-task sample needs of the pipeline running it: a trait, so the
/// tasks sit below the pipeline that dispatches to them.
pub(crate) trait Runs: Send + Sync {
    /// The run's prompt set.
    fn prompts(&self) -> &PromptSet;
    /// The dataset's syntax.
    fn syntax(&self) -> SyntaxKind;
    /// The request for a rendered prompt (a conversation of its own).
    fn request(&self, prompt: &Rendered) -> ChatRequest;
    /// The verdict of a call that stopped at the token limit before answering.
    fn truncated(&self, stage: &str) -> Verdict;
    /// Scores a reply through the one scoring path.
    fn score<'a>(
        &'a self,
        phi0: &'a Expr,
        input: &'a Expr,
        psi: &'a str,
        reply: String,
        prompt: String,
    ) -> BoxFut<'a, score::Scored>;
    /// BERTScore-MiniLM F1 of `text` against `reference` for sample `id` when the run has
    /// a model (`--bertscore-model`); a failure is warned about and gives `None`.
    fn text_bertscore<'a>(
        &'a self,
        id: &'a str,
        reference: String,
        text: String,
    ) -> BoxFut<'a, Option<f64>>;
}
