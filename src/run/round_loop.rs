//! The end of each round of (A∘I)ⁿ and of the sample, shared by `run` (fresh replies)
//! and `rescore` (stored ones), so both decide "go on, stop, passed" and build the
//! sample's verdict, `rounds_passed` and closeness the same way.

use super::score::{self, Scored};
use crate::analysis::closeness::closeness_within;
use crate::record::{Closeness, RoundRecord};
use crate::syntax::Expr;
use crate::verify::Verdict;

/// The rounds of one sample so far: what was recorded, how many passed, and where the
/// next round starts.
pub(crate) struct RoundLoop {
    /// Rounds recorded, in order.
    rounds: Vec<RoundRecord>,
    /// The next round's input: φ₀, then each passing round's φ₁.
    current: Expr,
    /// Rounds whose φ₁ was equivalent.
    passed: usize,
    /// The first φ₁ extracted (closeness compares it with φ₀).
    first_phi1: Option<Expr>,
}

/// What the rounds give the sample record.
pub(crate) struct Ending {
    /// The rounds recorded.
    pub rounds: Vec<RoundRecord>,
    /// The first failing round's verdict, else the last.
    pub verdict: Verdict,
    /// Rounds passed.
    pub rounds_passed: usize,
    /// φ₀ against the first φ₁.
    pub closeness: Option<Closeness>,
}

impl RoundLoop {
    /// A sample about to start its first round from `phi0`.
    pub(crate) fn new(phi0: &Expr, rounds: usize) -> RoundLoop {
        RoundLoop {
            rounds: Vec::with_capacity(rounds),
            current: phi0.clone(),
            passed: 0,
            first_phi1: None,
        }
    }

    /// The input of the round being run.
    pub(crate) fn current(&self) -> &Expr {
        &self.current
    }

    /// Rounds recorded so far.
    pub(crate) fn recorded(&self) -> usize {
        self.rounds.len()
    }

    /// Rounds passed so far.
    pub(crate) fn passed(&self) -> usize {
        self.passed
    }

    /// Records a round that ended before a score (model error, truncation, copy); the
    /// caller stops the loop.
    pub(crate) fn stop(&mut self, rec: RoundRecord) {
        self.rounds.push(rec);
    }

    /// Records a scored round; true when the sample goes on to another round (φ₁ was
    /// extracted and is equivalent, and becomes the next input).
    pub(crate) fn scored(&mut self, mut rec: RoundRecord, scored: Scored) -> bool {
        scored.apply(&mut rec);
        let ok = rec.verdict.is_equivalent();
        self.rounds.push(rec);
        let Some(phi1) = scored.phi1.map(|x| x.value) else {
            return false;
        };
        if self.first_phi1.is_none() {
            self.first_phi1 = Some(phi1.clone());
        }
        if !ok {
            return false;
        }
        self.passed += 1;
        self.current = phi1;
        true
    }

    /// The sample's verdict, rounds passed and closeness against `phi0`.
    pub(crate) fn finish(self, phi0: &Expr) -> Ending {
        Ending {
            verdict: score::final_verdict(&self.rounds),
            rounds_passed: self.passed,
            closeness: self.first_phi1.and_then(|p| closeness_within(phi0, &p)),
            rounds: self.rounds,
        }
    }
}
