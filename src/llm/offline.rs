//! The offline `perturb` model: no network, synthetic answers for demos and tests.
//!
//! It reads the formula from an informalization prompt's `[FORMULA]` block and
//! answers with a plain English rendering. Asked to autoformalize a description it
//! produced, it answers with the original formula — or, at the configured rate, a
//! verifier perturbation of it (seeded by the formula, so runs are reproducible), or
//! with `--perturb-per-op R` each operator perturbed with probability R, so accuracy
//! falls with complexity.
//! As a judge it says "yes" exactly when the two expressions print the same. Asked a
//! reference task's question it answers a label picked by the question's hash.
//! Run manifests mark it `synthetic`.

use super::verbalize::verbalize;
use super::{BoxFut, ChatModel, ChatRequest, Completion, LlmError, ModelInfo};
use crate::base::rng::Rng;
use crate::perturb::{PerturbKind, perturb};
use crate::syntax::{Expr, SyntaxKind, parse};
use std::collections::HashMap;
use std::sync::Mutex;

pub use super::provider::REASONING;

/// In reasoning mode, one autoformalization in this many runs out of tokens while
/// reasoning (seeded by the description), so truncated samples can be seen too.
const TRUNCATE_ONE_IN: u64 = 8;

/// The offline model.
pub(crate) struct Perturb {
    rate: f64,
    /// `--perturb-per-op`: each operator (regex: depth level) perturbed with this probability.
    per_op: Option<f64>,
    seed: u64,
    memory: Mutex<HashMap<String, Expr>>,
    /// Answers through an inline `<think>` trace that restates φ₀ and drafts a wrong
    /// formula (as an open-weight reasoning model served without a parser does).
    reasoning: bool,
}

impl Perturb {
    /// `rate`: share of answers that are perturbed; `reasoning`: answer through a trace.
    pub fn new(rate: f64, seed: u64, reasoning: bool) -> Perturb {
        Perturb {
            rate,
            per_op: None,
            seed,
            memory: Mutex::new(HashMap::new()),
            reasoning,
        }
    }

    /// Perturbs each operator with probability `r` instead of a share of answers.
    pub fn per_op(mut self, r: Option<f64>) -> Perturb {
        self.per_op = r;
        self
    }
}

/// A wrong draft of `phi` for a reasoning trace (a perturbation, else its negation).
fn wrong_draft(phi: &Expr, rng: &mut Rng) -> String {
    let kinds: &[PerturbKind] = match phi {
        Expr::Regex(_) => &PerturbKind::REGEX,
        Expr::Logic(_) => &PerturbKind::LOGIC,
    };
    kinds
        .iter()
        .find_map(|k| perturb(phi, *k, rng))
        .map_or_else(|| format!("¬({})", phi.to_unicode()), |p| p.to_unicode())
}

fn block<'a>(prompt: &'a str, name: &str) -> Option<&'a str> {
    let i = prompt.rfind(name)?;
    let rest = &prompt[i + name.len()..];
    let end = rest.find("\n[").unwrap_or(rest.len());
    Some(rest[..end].trim())
}

fn parse_any(text: &str) -> Option<Expr> {
    parse(text, SyntaxKind::Fol)
        .or_else(|_| parse(text, SyntaxKind::Regex))
        .ok()
}

/// Whether the prompt's task is about regular expressions: `001` parses as a logic
/// name too, and must not get logic perturbations (`¬001`).
fn regex_task(prompt: &str) -> bool {
    block(prompt, "[TASK]").is_some_and(|t| t.to_lowercase().contains("regular expression"))
}

fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn tokens(text: &str) -> u64 {
    text.split_whitespace().count() as u64
}

impl Perturb {
    /// The reply and its finish reason (`length` when a trace ran out of tokens).
    fn reply(&self, prompt: &str) -> Result<(String, &'static str), LlmError> {
        let answer = self.answer(prompt)?;
        if !self.reasoning {
            return Ok((answer, "stop"));
        }
        if let Some(desc) = block(prompt, "[NL DESCRIPTION]") {
            let mut rng = Rng::new(self.seed ^ fnv(desc) ^ 0x7411);
            let draft = parse_any(&answer).map(|phi| wrong_draft(&phi, &mut rng));
            let draft = draft.unwrap_or_else(|| "p1 ∧ ¬p1".into());
            if fnv(desc) % TRUNCATE_ONE_IN == self.seed % TRUNCATE_ONE_IN {
                return Ok((
                    format!(
                        "<think>\nThe description reads: {desc}\nA first draft: {draft}\n\
                         That draft does not fit every clause; checking each clause again"
                    ),
                    "length",
                ));
            }
            return Ok((
                format!(
                    "<think>\nThe description reads: {desc}\nA first draft: {draft}\n\
                     No: the draft changes the meaning. The formula is {answer}.\n</think>\n\n{answer}"
                ),
                "stop",
            ));
        }
        if let Some(text) = block(prompt, "[FORMULA]") {
            let mut rng = Rng::new(self.seed ^ fnv(text));
            let draft = parse_any(text).map_or_else(String::new, |phi| wrong_draft(&phi, &mut rng));
            return Ok((
                format!(
                    "<think>\nThe formula is {text}. Restating it: {text}.\nA reading I rejected: {draft}.\n\
                     Now in plain English, without symbols.\n</think>\n\n{answer}"
                ),
                "stop",
            ));
        }
        Ok((answer, "stop"))
    }

    /// A reference task's question (FOLIO's True/False/Uncertain, Multi-LogiEval's
    /// yes/no): the offline model cannot reason, so it answers a label picked by the
    /// question's hash, after a short reasoning text; one reply in ten gives no answer
    /// (so `unknown` answers show up too).
    fn task_answer(&self, prompt: &str) -> Option<String> {
        let labels: &[&str] = if prompt.contains("Answer: True/False/Uncertain") {
            &["True", "False", "Uncertain"]
        } else if prompt.contains("Answer: Yes/No") {
            &["Yes", "No"]
        } else {
            return None;
        };
        let asked = ["[CONCLUSION]", "Question:"]
            .iter()
            .filter_map(|m| prompt.rfind(m))
            .max()
            .map_or(prompt, |i| &prompt[i..]);
        let mut rng = Rng::new(self.seed ^ fnv(asked) ^ 0x7a5c);
        if rng.below(10) == 0 {
            return Some(
                "Reasoning Steps:\n1. The premises speak of other things than the question.\n\
                 2. I could not connect them."
                    .into(),
            );
        }
        let label = labels[rng.below(labels.len())];
        Some(format!(
            "Reasoning Steps:\n1. Reading the premises one by one.\n2. Comparing them with \
             what is asked.\n\nAnswer: {label}"
        ))
    }

    fn answer(&self, prompt: &str) -> Result<String, LlmError> {
        if let Some(a) = self.task_answer(prompt) {
            return Ok(a);
        }
        if let (Some(a), Some(b)) = (
            block(prompt, "[EXPRESSION 1]"),
            block(prompt, "[EXPRESSION 2]"),
        ) {
            let same = parse_any(a)
                .zip(parse_any(b))
                .is_some_and(|(x, y)| x.to_unicode() == y.to_unicode());
            return Ok(format!(
                "Comparing the two expressions symbol by symbol.\n[Answer] {}",
                if same { "yes" } else { "no" }
            ));
        }
        if let Some(desc) = block(prompt, "[NL DESCRIPTION]") {
            // Taken out, not copied: a long run must not keep every sample's formula.
            let phi = self.memory.lock().ok().and_then(|mut m| m.remove(desc));
            let Some(phi) = phi else {
                return Ok("I cannot tell which formula this describes.".into());
            };
            let mut rng = Rng::new(self.seed ^ fnv(desc));
            if let Some(r) = self.per_op {
                return Ok(crate::perturb::perturb_per_op(&phi, r, &mut rng).to_unicode());
            }
            if rng.chance(self.rate) {
                let kinds: &[PerturbKind] = match phi {
                    Expr::Regex(_) => &PerturbKind::REGEX,
                    Expr::Logic(_) => &PerturbKind::LOGIC,
                };
                let start = rng.below(kinds.len());
                for k in 0..kinds.len() {
                    if let Some(p) = perturb(&phi, kinds[(start + k) % kinds.len()], &mut rng) {
                        return Ok(p.to_unicode());
                    }
                }
            }
            return Ok(phi.to_unicode());
        }
        if let Some(text) = block(prompt, "[FORMULA]") {
            let phi = if regex_task(prompt) {
                parse(text, SyntaxKind::Regex).ok()
            } else {
                parse_any(text)
            };
            let Some(phi) = phi else {
                return Err(LlmError::fatal(
                    "the offline model could not read the [FORMULA] block",
                ));
            };
            let psi = verbalize(&phi);
            if let Ok(mut m) = self.memory.lock() {
                m.insert(psi.clone(), phi);
            }
            return Ok(psi);
        }
        Err(LlmError::fatal(
            "the offline model needs a [FORMULA], [NL DESCRIPTION] or [EXPRESSION 1]/[EXPRESSION 2] block",
        ))
    }
}

impl ChatModel for Perturb {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            provider: super::provider::Provider::Perturb.name().into(),
            name: match (self.reasoning, self.per_op) {
                (true, Some(r)) => format!("perturb-{REASONING}-per-op-{r}"),
                (false, Some(r)) => format!("perturb-per-op-{r}"),
                (true, None) => format!("perturb-{REASONING}-{}", self.rate),
                (false, None) => format!("perturb-{}", self.rate),
            },
            base_url: None,
            api_key_env: None,
            synthetic: true,
        }
    }

    fn send<'a>(&'a self, req: &'a ChatRequest) -> BoxFut<'a, Result<Completion, LlmError>> {
        Box::pin(async move {
            let (text, finish) = self.reply(&req.prompt)?;
            let split = super::reasoning::split(&text);
            let reasoning_tokens = split.reasoning.map(tokens);
            super::completion(super::RawReply {
                input_tokens: tokens(&req.prompt),
                output_tokens: tokens(&text),
                reasoning_tokens,
                finish_reason: Some(finish.into()),
                content: text,
                ..super::RawReply::default()
            })
        })
    }
}
