//! A spending limit (`--max-cost`): every call reserves its worst case before it is
//! sent, so the spend cannot pass the limit even with many calls in flight.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// The start of the error a call gets when the budget refuses it.
pub(crate) const BUDGET_STOP: &str = "not sent: the --max-cost budget";

/// Spent and reserved dollars against a limit.
#[derive(Debug)]
pub struct Budget {
    limit: f64,
    /// (spent, reserved by calls in flight).
    state: Mutex<(f64, f64)>,
    exhausted: AtomicBool,
}

impl Budget {
    /// A budget of `limit` USD of which `spent_before` (earlier sessions of the run) is gone.
    pub fn new(limit: f64, spent_before: f64) -> Budget {
        Budget {
            limit,
            state: Mutex::new((spent_before.max(0.0), 0.0)),
            exhausted: AtomicBool::new(false),
        }
    }

    /// The limit in USD.
    pub fn limit(&self) -> f64 {
        self.limit
    }

    /// USD spent so far (earlier sessions included).
    pub fn spent(&self) -> f64 {
        self.state.lock().map_or(0.0, |s| s.0)
    }

    /// Adds spend that happened elsewhere (a resumed run's earlier samples).
    pub(crate) fn add_spent(&self, usd: f64) {
        if let Ok(mut s) = self.state.lock() {
            s.0 += usd.max(0.0);
        }
    }

    /// Whether a call has been refused: the run should stop.
    pub(crate) fn exhausted(&self) -> bool {
        self.exhausted.load(Ordering::SeqCst)
    }

    /// Reserves `worst` USD for a call; `false` (and the budget marked exhausted) when
    /// spent + reserved + worst would pass the limit.
    pub(crate) fn reserve(&self, worst: f64) -> bool {
        let Ok(mut s) = self.state.lock() else {
            return false;
        };
        if s.0 + s.1 + worst > self.limit {
            self.exhausted.store(true, Ordering::SeqCst);
            return false;
        }
        s.1 += worst;
        true
    }

    /// Whether `usd` more fits beside what is spent and reserved.
    pub(crate) fn room_for(&self, usd: f64) -> bool {
        self.state
            .lock()
            .is_ok_and(|s| s.0 + s.1 + usd <= self.limit)
    }

    /// Marks the budget exhausted (the run starts no more work).
    pub fn stop(&self) {
        self.exhausted.store(true, Ordering::SeqCst);
    }

    /// Ends a reservation: `worst` is released, `actual` spent.
    pub fn settle(&self, worst: f64, actual: f64) {
        if let Ok(mut s) = self.state.lock() {
            s.1 = (s.1 - worst).max(0.0);
            s.0 += actual.max(0.0);
        }
    }

    /// The message of a refused call.
    pub(crate) fn refusal(&self) -> String {
        format!(
            "{BUDGET_STOP} of ${:.4} would be passed (spent ${:.4})",
            self.limit,
            self.spent()
        )
    }
}

/// Whether an error message is a budget refusal.
pub(crate) fn is_refusal(message: &str) -> bool {
    message.contains(BUDGET_STOP)
}

/// Most prompt tokens a prompt of `bytes` bytes can take: BPE tokens cover at least a
/// byte each, plus the chat template's few tokens.
pub(crate) fn worst_input_tokens(bytes: usize) -> u64 {
    bytes as u64 + 16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_never_let_spend_pass_the_limit() {
        let b = Budget::new(1.0, 0.25);
        assert!(b.reserve(0.5));
        assert!(!b.reserve(0.3), "0.25 + 0.5 + 0.3 > 1");
        assert!(b.exhausted());
        b.settle(0.5, 0.2);
        assert!((b.spent() - 0.45).abs() < 1e-12);
        assert!(b.reserve(0.55));
        assert!(is_refusal(&b.refusal()));
    }
}
