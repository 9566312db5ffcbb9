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
    /// Why the run stopped because a call billed more than it reserved.
    overrun: Mutex<Option<String>>,
}

impl Budget {
    /// A budget of `limit` USD of which `spent_before` (earlier sessions of the run) is gone.
    pub fn new(limit: f64, spent_before: f64) -> Budget {
        Budget {
            limit,
            state: Mutex::new((spent_before.max(0.0), 0.0)),
            exhausted: AtomicBool::new(false),
            overrun: Mutex::new(None),
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
        // After an overrun the reservations cannot be trusted: nothing more is sent.
        if s.0 + s.1 + worst > self.limit || self.overrun().is_some() {
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

    /// Stops the run because a call billed more than it reserved; `why` says which.
    pub(crate) fn overran(&self, why: String) {
        if let Ok(mut o) = self.overrun.lock()
            && o.is_none()
        {
            *o = Some(why);
        }
        self.stop();
    }

    /// Why the run stopped on a call that billed more than it reserved, if it did.
    pub fn overrun(&self) -> Option<String> {
        self.overrun.lock().ok().and_then(|o| o.clone())
    }

    /// Settles a reservation of `worst` at `actual`; a bill above the reservation
    /// (beyond rounding) stops the run. Returns whether it overran.
    pub(crate) fn settle_checked(&self, worst: f64, actual: f64, what: &str) -> bool {
        self.settle(worst, actual);
        let over = actual > worst * (1.0 + 1e-9) + 1e-12;
        if over {
            self.overran(format!(
                "{what} billed ${actual:.4}, more than the ${worst:.4} reserved for it"
            ));
        }
        over
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

    #[test]
    fn a_bill_above_its_reservation_stops_everything() {
        let b = Budget::new(100.0, 0.0);
        assert!(b.reserve(0.01));
        assert!(!b.settle_checked(0.01, 0.01, "call x"));
        assert!(b.overrun().is_none());
        assert!(b.reserve(0.01));
        assert!(b.settle_checked(0.01, 12.0, "call y"));
        assert!((b.spent() - 12.01).abs() < 1e-9);
        assert!(b.exhausted());
        assert!(
            b.overrun()
                .is_some_and(|w| w.contains("call y billed $12.0000"))
        );
        assert!(!b.reserve(0.001), "nothing more is sent after an overrun");
    }
}
