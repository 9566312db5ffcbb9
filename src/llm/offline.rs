//! The offline `perturb` model: no network, synthetic answers for demos and tests.
//!
//! It reads the formula from an informalization prompt's `[FORMULA]` block and
//! answers with a plain English rendering. Asked to autoformalize a description it
//! produced, it answers with the original formula — or, at the configured rate, a
//! verifier perturbation of it (seeded by the formula, so runs are reproducible).
//! As a judge it says "yes" exactly when the two expressions print the same.
//! Run manifests mark it `synthetic`.

use super::verbalize::verbalize;
use super::{BoxFut, ChatModel, ChatRequest, Completion, LlmError, ModelInfo};
use crate::perturb::{PerturbKind, perturb};
use crate::rng::Rng;
use crate::syntax::{Expr, SyntaxKind, parse};
use std::collections::HashMap;
use std::sync::Mutex;

/// The offline model.
pub(crate) struct Perturb {
    rate: f64,
    seed: u64,
    memory: Mutex<HashMap<String, Expr>>,
}

impl Perturb {
    /// `rate`: share of answers that are perturbed.
    pub fn new(rate: f64, seed: u64) -> Perturb {
        Perturb {
            rate,
            seed,
            memory: Mutex::new(HashMap::new()),
        }
    }
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
    fn answer(&self, prompt: &str) -> Result<String, LlmError> {
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
            provider: "perturb".into(),
            name: format!("perturb-{}", self.rate),
            base_url: None,
            api_key_env: None,
            synthetic: true,
        }
    }

    fn send<'a>(&'a self, req: &'a ChatRequest) -> BoxFut<'a, Result<Completion, LlmError>> {
        Box::pin(async move {
            let text = self.answer(&req.prompt)?;
            Ok(Completion {
                input_tokens: tokens(&req.prompt),
                output_tokens: tokens(&text),
                text,
                finish_reason: Some("stop".into()),
            })
        })
    }
}
