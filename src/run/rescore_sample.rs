//! Rescoring one stored sample: its rounds scored again from the stored ψ and raw
//! autoformalization replies, through the round loop the pipeline uses.

use super::round_loop::{Ending, RoundLoop};
use super::score;
use crate::prompt::PromptSet;
use crate::record::{RoundRecord, SampleRecord};
use crate::syntax::{Expr, Reading, parse};
use crate::verify::{self, Verdict};
use std::collections::HashMap;

/// What rescoring one sample gave.
pub enum Rescored {
    /// The sample with its new verdicts.
    Scored(Box<SampleRecord>),
    /// The new score needs a model reply the run never asked for.
    NeedsCalls(String),
}

fn round_start(old: &RoundRecord, input: &Expr) -> RoundRecord {
    RoundRecord {
        input: input.to_unicode(),
        phi1: None,
        phi1_span: None,
        verify_ms: 0.0,
        ..old.clone()
    }
}

/// Rescores one stored sample; `prompts` re-renders the autoformalization prompt for
/// the echo check (None: headers and vocabulary are still checked). Replies are read
/// under the standard convention; `rescore_with` takes another.
pub fn rescore_sample(
    rec: &SampleRecord,
    prompts: Option<&PromptSet>,
    rounds_wanted: usize,
    opts: &verify::Options,
) -> Rescored {
    let source = prompts.map_or(Prompts::Unknown, Prompts::Set);
    rescore_with(rec, &source, rounds_wanted, opts, Reading::Standard)
}

/// Where the autoformalization prompt of a stored round comes from.
pub(crate) enum Prompts<'a> {
    /// Re-rendered from the run's prompt set.
    Set(&'a PromptSet),
    /// Kept verbatim by `import` (sample id → prompt text), for the original's runs.
    Stored(&'a HashMap<String, String>),
    /// Not known: the echo check has no prompt lines to compare with.
    Unknown,
}

impl Prompts<'_> {
    fn text(&self, rec: &SampleRecord, psi: &str, input: &Expr) -> String {
        match self {
            Prompts::Set(p) => p.autoformalize(psi, input, rec.syntax).text,
            Prompts::Stored(m) => m.get(&rec.id).cloned().unwrap_or_default(),
            Prompts::Unknown => String::new(),
        }
    }
}

/// [`rescore_sample`] with the prompts from any [`Prompts`] source and replies read
/// under `reading`.
pub(crate) fn rescore_with(
    rec: &SampleRecord,
    prompts: &Prompts<'_>,
    rounds_wanted: usize,
    opts: &verify::Options,
    reading: Reading,
) -> Rescored {
    let phi0 = match parse(&rec.phi0, rec.syntax) {
        Ok(p) => p,
        Err(e) => return Rescored::NeedsCalls(format!("φ₀ does not parse ({e})")),
    };
    let mut lp = RoundLoop::new(&phi0, rec.rounds.len());
    for old in &rec.rounds {
        match rescore_round(rec, old, &phi0, prompts, opts, reading, &mut lp) {
            Ok(true) => {}
            Ok(false) => break,
            Err(why) => return Rescored::NeedsCalls(why),
        }
    }
    if lp.recorded() == 0 {
        return Rescored::NeedsCalls("no round was recorded".into());
    }
    let passed = lp.passed();
    if passed == lp.recorded() && passed < rounds_wanted.max(1) {
        return Rescored::NeedsCalls(format!(
            "round {passed} now passes; round {} was never asked",
            passed + 1
        ));
    }
    let Ending {
        rounds,
        verdict,
        rounds_passed,
        closeness,
    } = lp.finish(&phi0);
    Rescored::Scored(Box::new(SampleRecord {
        rounds,
        verdict,
        rounds_passed,
        closeness,
        ..rec.clone()
    }))
}

/// Rescores the stored round `old` of `rec` into `lp`: true when the sample goes on to
/// another round; `Err` says why the new score needs a reply the run never asked for.
fn rescore_round(
    rec: &SampleRecord,
    old: &RoundRecord,
    phi0: &Expr,
    prompts: &Prompts<'_>,
    opts: &verify::Options,
    reading: Reading,
    lp: &mut RoundLoop,
) -> Result<bool, String> {
    let current = lp.current().clone();
    let mut r = round_start(old, &current);
    if old.informalize.error.is_some() {
        r.verdict = match &old.verdict {
            v @ Verdict::ModelError { .. } => v.clone(),
            _ => Verdict::ModelError {
                message: "informalization failed".into(),
            },
        };
        lp.stop(r);
        return Ok(false);
    }
    let psi = old.psi.clone().unwrap_or_default();
    // A copy needs no reply; a stored one is kept (an imported run has one), so a
    // later rule that no longer calls ψ a copy can score it without a model call.
    if let Some(v) = score::copied(&psi, &current) {
        r.verdict = v;
        lp.stop(r);
        return Ok(false);
    }
    let Some(call) = &old.autoformalize else {
        return Err(format!(
            "round {}: ψ is no longer a copy, and the autoformalization was never asked",
            old.round
        ));
    };
    if let Some(err) = &call.error {
        r.verdict = match &old.verdict {
            v @ Verdict::ModelError { .. } => v.clone(),
            _ => Verdict::ModelError {
                message: format!("autoformalization failed: {err}"),
            },
        };
        lp.stop(r);
        return Ok(false);
    }
    let raw = call.output.clone().unwrap_or_default();
    let prompt = prompts.text(rec, &psi, &current);
    let scored = score::score_round(
        &score::RoundText {
            phi0,
            input: &current,
            psi: Some(&psi),
            reply: &raw,
            prompt: &prompt,
            syntax: rec.syntax,
            reading,
        },
        opts,
    );
    Ok(lp.scored(r, scored))
}
