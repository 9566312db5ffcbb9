//! A row's failure kinds, computed apart from the parse: a not-equivalent sample's
//! kinds come from the proof search (milliseconds each for first-order pairs), so the
//! scanner gathers those samples and classifies them on every core at once.

use crate::analysis::kinds::{FailureKind, UNPROVED, classify_parts_mask, mask};
use crate::syntax::SyntaxKind;
use crate::verify::{Countermodel, VerdictKind};

/// What a not-equivalent sample's kinds are computed from (its deciding round).
#[derive(Debug)]
pub(crate) struct Pending {
    /// The sample's notation.
    pub syntax: SyntaxKind,
    /// The deciding round's input (φ₀ of that round).
    pub input: Option<Box<str>>,
    /// The deciding round's φ₁.
    pub phi1: Option<Box<str>>,
    /// The verifier's countermodel for that round, when the record keeps one.
    pub countermodel: Option<Countermodel>,
}

impl Pending {
    /// The row's kind mask ([`classify_parts_mask`] of a not-equivalent sample).
    pub fn mask(&self) -> u32 {
        classify_parts_mask(
            VerdictKind::NotEquivalent,
            None,
            self.syntax,
            self.input.as_deref(),
            self.phi1.as_deref(),
            self.countermodel.as_ref(),
        )
    }
}

/// How many pending samples are gathered before they are classified: enough to keep
/// every core busy, few enough that their texts stay small.
pub(crate) const BATCH: usize = 1024;

/// Computes the masks of `pending` (row index, what to classify) into `rows`' kind
/// masks via `set`, splitting the work over the machine's cores.
pub(crate) fn classify_all(pending: &mut Vec<(usize, Pending)>, mut set: impl FnMut(usize, u32)) {
    if pending.is_empty() {
        return;
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .clamp(1, 8)
        .min(pending.len());
    let masks: Vec<(usize, u32)> = if threads == 1 {
        pending.iter().map(|(i, p)| (*i, p.mask())).collect()
    } else {
        // Interleaved shares: slow (large) samples cluster in a run's later batches.
        std::thread::scope(|s| {
            let jobs: &[(usize, Pending)] = pending;
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    s.spawn(move || {
                        jobs.iter()
                            .skip(t)
                            .step_by(threads)
                            .map(|(i, p)| (*i, p.mask()))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            let mut out = Vec::with_capacity(jobs.len());
            for (t, h) in handles.into_iter().enumerate() {
                match h.join() {
                    Ok(masks) => out.extend(masks),
                    // A worker that panicked leaves its rows as unproved "other"
                    // rather than taking the scan down.
                    Err(_) => out.extend(
                        jobs.iter()
                            .skip(t)
                            .step_by(threads)
                            .map(|(i, _)| (*i, fallback())),
                    ),
                }
            }
            out
        })
    };
    for (i, m) in masks {
        set(i, m);
    }
    pending.clear();
}

/// The mask of a sample whose classification failed: a structural guess of "other".
fn fallback() -> u32 {
    mask(&[FailureKind::Other]) | UNPROVED
}
