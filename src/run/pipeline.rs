//! One sample through (A∘I)ⁿ: informalize, fresh context, autoformalize, parse, verify.

use super::job::{Caller, Runs, call_record, truncated_verdict};
pub use super::job::{Job, Stage, custom_id};
use super::round_loop::{Ending, RoundLoop};
use super::score;
use crate::llm::client::{CallError, CallResult};
use crate::llm::{BoxFut, ChatRequest, Client};
use crate::prompt::{PromptSet, Rendered};
use crate::record::{RoundRecord, SampleRecord};
use crate::syntax::{Expr, SyntaxKind};
use crate::verify::{self, Verdict};
use std::sync::Arc;

/// Everything a sample needs; shared by all tasks of a run.
pub struct Pipeline {
    /// The model.
    pub client: Arc<Client>,
    /// The prompts.
    pub prompts: Arc<PromptSet>,
    /// The syntax of the dataset.
    pub syntax: SyntaxKind,
    /// Rounds n.
    pub rounds: usize,
    /// Verifier settings.
    pub verify: verify::Options,
    /// How replies without full parentheses are grouped.
    pub reading: crate::syntax::Reading,
    /// Stores `bertscore_minilm` in each closeness record (`--bertscore-model`).
    pub bertscore: Option<super::bertscore::Bertscore>,
    /// A reference task's samples (`run --task`): each sample is then one call of it.
    pub task: Option<Arc<super::task::TaskSet>>,
}

/// Every call goes to the model now.
struct Live<'p>(&'p Client);

impl Caller for Live<'_> {
    fn call<'a>(
        &'a self,
        id: &'a str,
        round: usize,
        stage: Stage,
        req: ChatRequest,
    ) -> BoxFut<'a, Option<Result<CallResult, CallError>>> {
        let call = custom_id(id, round, stage);
        Box::pin(async move { Some(self.0.complete_as(&req, &call).await) })
    }
}

impl Pipeline {
    /// The request for a rendered prompt. Each call is its own conversation: nothing
    /// from earlier calls is sent.
    pub fn request(&self, prompt: &Rendered) -> ChatRequest {
        self.client.request(prompt.text.clone())
    }

    /// The verdict of a call that stopped at the token limit before answering.
    pub(crate) fn truncated_verdict(&self, stage: &str) -> Verdict {
        truncated_verdict(self.client.params().max_tokens, stage)
    }

    /// Scores a reply on the blocking pool (Z3 and automata are CPU work, kept off the
    /// async executor) through the one scoring path every command shares.
    pub(crate) async fn score(
        &self,
        phi0: &Expr,
        input: &Expr,
        psi: &str,
        reply: String,
        prompt: String,
    ) -> score::Scored {
        let (phi0, input, psi, opts) = (
            phi0.clone(),
            input.clone(),
            psi.to_string(),
            self.verify.clone(),
        );
        let syntax = self.syntax;
        let reading = self.reading;
        tokio::task::spawn_blocking(move || {
            score::score_round(
                &score::RoundText {
                    phi0: &phi0,
                    input: &input,
                    psi: Some(&psi),
                    reply: &reply,
                    prompt: &prompt,
                    syntax,
                    reading,
                },
                &opts,
            )
        })
        .await
        .unwrap_or_else(|e| score::Scored {
            verdict: Verdict::Unknown {
                reason: format!("verifier crashed: {e}"),
            },
            phi1: None,
            copy_span: None,
            verify_ms: 0.0,
        })
    }

    /// Whether the budget leaves room to start `job` beside `in_flight` samples: two
    /// worst-case calls for each, so started samples can finish their round.
    pub(crate) fn affordable(&self, job: &Job, in_flight: usize) -> bool {
        let Some(b) = self.client.budget() else {
            return true;
        };
        let text = match &self.task {
            Some(t) => t
                .prompt(&self.prompts, job.idx)
                .map(|r| r.text)
                .unwrap_or_default(),
            None => self.prompts.informalize(&job.phi0, self.syntax).text,
        };
        let req = self.client.request(text);
        let worst = self.client.worst_cost(&req).unwrap_or(f64::INFINITY);
        b.room_for(2.0 * worst * (in_flight + 1) as f64)
    }

    /// Runs one sample to completion; never fails (errors become verdicts).
    pub async fn process(&self, job: Job) -> SampleRecord {
        let id = job.id.clone();
        match self.process_with(job, &Live(&self.client)).await {
            Some(r) => r,
            // Live answers are never pending; kept total rather than trusted.
            None => SampleRecord {
                id,
                idx: 0,
                batch: None,
                syntax: self.syntax,
                phi0: String::new(),
                phi0_original: String::new(),
                num_operators: None,
                depth: None,
                rounds: Vec::new(),
                verdict: Verdict::ModelError {
                    message: "internal: a live call was left pending".into(),
                },
                rounds_passed: 0,
                closeness: None,
                input_tokens: 0,
                output_tokens: 0,
                cost_usd: None,
                finished: crate::base::clock::now_rfc3339_ms(),
                task: None,
            },
        }
    }

    /// Runs one sample with answers from `caller`; `None` while an answer is pending.
    pub(crate) async fn process_with<C: Caller + ?Sized>(
        &self,
        job: Job,
        caller: &C,
    ) -> Option<SampleRecord> {
        if let Some(t) = &self.task {
            return super::task_sample::process(self, t, job, caller).await;
        }
        let mut lp = RoundLoop::new(&job.phi0, self.rounds.max(1));
        for round in 1..=self.rounds.max(1) {
            if !self.round(&job, caller, round, &mut lp).await? {
                break;
            }
        }
        let Ending {
            rounds,
            verdict,
            rounds_passed,
            closeness,
        } = lp.finish(&job.phi0);
        let (tin, tout, cost) = call_totals(&rounds);
        let mut rec = SampleRecord {
            id: job.id,
            idx: job.idx,
            batch: job.batch,
            syntax: self.syntax,
            phi0: job.phi0.to_unicode(),
            phi0_original: job.original,
            num_operators: job.num_operators,
            depth: job.depth,
            closeness,
            rounds,
            verdict,
            rounds_passed,
            input_tokens: tin,
            output_tokens: tout,
            cost_usd: cost,
            finished: crate::base::clock::now_rfc3339_ms(),
            task: None,
        };
        if let Some(b) = &self.bertscore
            && let Some(w) = b.fill_one(&mut rec).await
        {
            self.client.warn(w);
        }
        Some(rec)
    }

    /// Runs round `round` of `job` into `lp`: true when the sample goes on to another
    /// round; `None` while an answer is pending.
    async fn round<C: Caller + ?Sized>(
        &self,
        job: &Job,
        caller: &C,
        round: usize,
        lp: &mut RoundLoop,
    ) -> Option<bool> {
        let current = lp.current().clone();
        let inf_prompt = self.prompts.informalize(&current, self.syntax);
        let inf = caller
            .call(
                &job.id,
                round,
                Stage::Informalize,
                self.request(&inf_prompt),
            )
            .await?;
        let mut rec = RoundRecord {
            round,
            input: current.to_unicode(),
            informalize: call_record(&inf_prompt, &inf),
            psi: None,
            autoformalize: None,
            phi1: None,
            phi1_span: None,
            verdict: Verdict::Unknown {
                reason: String::new(),
            },
            verify_ms: 0.0,
        };
        let psi = match inf {
            Ok(c) if c.completion.truncated => {
                rec.verdict = self.truncated_verdict("informalization");
                lp.stop(rec);
                return Some(false);
            }
            // Only the answer: the reasoning never becomes ψ.
            Ok(c) => c.completion.text.trim().to_string(),
            Err(e) => {
                rec.verdict = Verdict::ModelError {
                    message: format!("informalization failed: {}", e.error.message),
                };
                lp.stop(rec);
                return Some(false);
            }
        };
        rec.psi = Some(psi.clone());
        if let Some(v) = score::copied(&psi, &current) {
            rec.verdict = v;
            lp.stop(rec);
            return Some(false);
        }
        let auto_prompt = self.prompts.autoformalize(&psi, &current, self.syntax);
        let auto = caller
            .call(
                &job.id,
                round,
                Stage::Autoformalize,
                self.request(&auto_prompt),
            )
            .await?;
        rec.autoformalize = Some(call_record(&auto_prompt, &auto));
        let raw = match auto {
            Ok(c) if c.completion.truncated => {
                rec.verdict = self.truncated_verdict("autoformalization");
                lp.stop(rec);
                return Some(false);
            }
            Ok(c) => c.completion.text,
            Err(e) => {
                rec.verdict = Verdict::ModelError {
                    message: format!("autoformalization failed: {}", e.error.message),
                };
                lp.stop(rec);
                return Some(false);
            }
        };
        let scored = if let Some(s) = caller.known_score(&job.id, round) {
            s
        } else {
            let s = self
                .score(&job.phi0, &current, &psi, raw, auto_prompt.text.clone())
                .await;
            caller.keep_score(&job.id, round, &s);
            s
        };
        Some(lp.scored(rec, scored))
    }
}

/// Input and output tokens and cost of a sample's calls (cost unknown once a call
/// that answered has none).
fn call_totals(rounds: &[RoundRecord]) -> (u64, u64, Option<f64>) {
    let calls = rounds
        .iter()
        .flat_map(|r| std::iter::once(&r.informalize).chain(r.autoformalize.as_ref()));
    let (mut tin, mut tout, mut cost) = (0, 0, Some(0.0));
    for c in calls {
        tin = u64::saturating_add(tin, c.input_tokens);
        tout = u64::saturating_add(tout, c.output_tokens);
        cost = match (cost, c.cost_usd, c.error.is_some()) {
            (Some(a), Some(b), _) => Some(a + b),
            (Some(a), None, true) => Some(a),
            _ => None,
        };
    }
    (tin, tout, cost)
}

impl Runs for Pipeline {
    fn prompts(&self) -> &PromptSet {
        &self.prompts
    }

    fn syntax(&self) -> SyntaxKind {
        self.syntax
    }

    fn request(&self, prompt: &Rendered) -> ChatRequest {
        Pipeline::request(self, prompt)
    }

    fn truncated(&self, stage: &str) -> Verdict {
        self.truncated_verdict(stage)
    }

    fn score<'a>(
        &'a self,
        phi0: &'a Expr,
        input: &'a Expr,
        psi: &'a str,
        reply: String,
        prompt: String,
    ) -> crate::llm::BoxFut<'a, score::Scored> {
        Box::pin(Pipeline::score(self, phi0, input, psi, reply, prompt))
    }

    fn text_bertscore<'a>(
        &'a self,
        id: &'a str,
        reference: String,
        text: String,
    ) -> crate::llm::BoxFut<'a, Option<f64>> {
        Box::pin(async move {
            let b = self.bertscore.as_ref()?;
            let (v, warning) = b.score_pair(id, reference, text, "").await;
            if let Some(w) = warning {
                self.client.warn(w);
            }
            v
        })
    }
}
