//! Regex equivalence by product construction with a shortest witness.

use super::automata::{Dfa, distinguishing_string};
use super::verdict::{Countermodel, Side, Verdict};
use crate::syntax::Regex;

/// Decides `a ≡ b` over the union of their alphabets.
pub fn check(a: &Regex, b: &Regex) -> Verdict {
    let mut alphabet = a.alphabet();
    alphabet.extend(b.alphabet());
    alphabet.sort_unstable();
    alphabet.dedup();
    let build = |r: &Regex| Dfa::build(r, &alphabet).map(|d| d.minimize());
    let (da, db) = match (build(a), build(b)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => {
            return Verdict::Unknown {
                reason: e.to_string(),
            };
        }
    };
    match distinguishing_string(&da, &db) {
        None => Verdict::Equivalent { notes: vec![] },
        Some((string, left_accepts)) => {
            // Re-check the witness on both automata before showing it.
            if da.accepts(&string) == db.accepts(&string) {
                return Verdict::Unknown {
                    reason: "internal error: witness failed re-check (please report)".into(),
                };
            }
            Verdict::NotEquivalent {
                countermodel: Countermodel::Witness {
                    string,
                    accepted_by: if left_accepts {
                        Side::Left
                    } else {
                        Side::Right
                    },
                },
                notes: vec![],
            }
        }
    }
}
