//! One sample through (A∘I)ⁿ: informalize, fresh context, autoformalize, parse, verify.

use super::format::{CallRecord, RoundRecord, SampleRecord, now_rfc3339};
use super::score;
use crate::analysis::closeness::closeness;
use crate::llm::client::{CallError, CallResult};
use crate::llm::{ChatRequest, Client};
use crate::prompt::{PromptSet, Rendered};
use crate::syntax::{Expr, SyntaxKind};
use crate::verify::{self, Verdict};
use std::sync::Arc;
use std::time::Instant;

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
    /// Temperature.
    pub temperature: f32,
    /// Output token limit.
    pub max_tokens: u32,
    /// Verifier settings.
    pub verify: verify::Options,
}

fn record(prompt: &Rendered, r: &Result<CallResult, CallError>) -> CallRecord {
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
            transport_error: false,
            implausible_usage: c.implausible_usage,
        },
        Err(e) => CallRecord {
            prompt_id: prompt.id.clone(),
            attempts: e.attempts,
            error: Some(e.error.message.clone()),
            transport_error: e.error.status.is_none() && e.error.retryable,
            ..Default::default()
        },
    }
}

impl Pipeline {
    async fn call(&self, prompt: &Rendered) -> Result<CallResult, CallError> {
        // Each call is its own conversation: nothing from earlier calls is sent.
        let req = ChatRequest {
            prompt: prompt.text.clone(),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
        };
        self.client.complete(&req).await
    }

    async fn verify(&self, a: &Expr, b: &Expr) -> (Verdict, f64) {
        let (a, b, opts) = (a.clone(), b.clone(), self.verify.clone());
        let started = Instant::now();
        // Z3 and automata are CPU work: keep them off the async executor.
        let v = tokio::task::spawn_blocking(move || verify::verify(&a, &b, &opts))
            .await
            .unwrap_or_else(|e| Verdict::Unknown {
                reason: format!("verifier crashed: {e}"),
            });
        (v, started.elapsed().as_secs_f64() * 1000.0)
    }

    /// Runs one sample to completion; never fails (errors become verdicts).
    pub async fn process(&self, job: Job) -> SampleRecord {
        let mut rounds = Vec::new();
        let mut current = job.phi0.clone();
        let mut passed = 0;
        let mut first_phi1: Option<Expr> = None;
        for round in 1..=self.rounds.max(1) {
            let inf_prompt = self.prompts.informalize(&current, self.syntax);
            let inf = self.call(&inf_prompt).await;
            let mut rec = RoundRecord {
                round,
                input: current.to_unicode(),
                informalize: record(&inf_prompt, &inf),
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
                Ok(c) => c.completion.text.trim().to_string(),
                Err(e) => {
                    rec.verdict = Verdict::ModelError {
                        message: format!("informalization failed: {}", e.error.message),
                    };
                    rounds.push(rec);
                    break;
                }
            };
            rec.psi = Some(psi.clone());
            if let Some(v) = score::copied(&psi, &current) {
                rec.verdict = v;
                rounds.push(rec);
                break;
            }
            let auto_prompt = self.prompts.autoformalize(&psi, &current, self.syntax);
            let auto = self.call(&auto_prompt).await;
            rec.autoformalize = Some(record(&auto_prompt, &auto));
            let raw = match auto {
                Ok(c) => c.completion.text,
                Err(e) => {
                    rec.verdict = Verdict::ModelError {
                        message: format!("autoformalization failed: {}", e.error.message),
                    };
                    rounds.push(rec);
                    break;
                }
            };
            let phi1 =
                match score::extract_phi1(&raw, &current, &auto_prompt.text, &psi, self.syntax) {
                    Ok(x) => {
                        rec.phi1_span = Some((x.start, x.end));
                        x.value
                    }
                    Err(v) => {
                        rec.verdict = *v;
                        rounds.push(rec);
                        break;
                    }
                };
            rec.phi1 = Some(phi1.to_unicode());
            if first_phi1.is_none() {
                first_phi1 = Some(phi1.clone());
            }
            let (verdict, ms) = self.verify(&job.phi0, &phi1).await;
            rec.verify_ms = ms;
            let ok = verdict.is_equivalent();
            rec.verdict = verdict;
            rounds.push(rec);
            if !ok {
                break;
            }
            passed += 1;
            current = phi1;
        }
        let verdict = score::final_verdict(&rounds);
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
        SampleRecord {
            id: job.id,
            idx: job.idx,
            batch: job.batch,
            syntax: self.syntax,
            phi0: job.phi0.to_unicode(),
            phi0_original: job.original,
            num_operators: job.num_operators,
            depth: job.depth,
            closeness: first_phi1.map(|p| closeness(&job.phi0, &p)),
            rounds,
            verdict,
            rounds_passed: passed,
            input_tokens: tin,
            output_tokens: tout,
            cost_usd: cost,
            finished: now_rfc3339(),
        }
    }
}
