//! A row's failure kinds, computed apart from the parse: a not-equivalent sample's
//! kinds come from the proof search (milliseconds each for first-order pairs), so the
//! rows are listed first ([`PENDING`]) and the kinds pass ([`super::kinds_cache`])
//! classifies those samples afterwards on every core at once.

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
    /// Its key in the kinds cache ([`key`]).
    pub key: u64,
}

/// Bit of a row's kind mask set while a not-equivalent sample's kinds are not proved
/// yet (the kinds pass has not reached it, or was skipped with `--no-kinds`).
pub const PENDING: u32 = 1 << 30;

/// Whether the row's kinds are still to be proved.
pub fn is_pending(fails: u32) -> bool {
    fails & PENDING != 0
}

/// The kinds cache's key of a not-equivalent sample: a hash of everything its kinds are
/// computed from (notation, the deciding round's input and φ₁, the countermodel's text),
/// so a rescore that leaves the pair alone keeps its kinds and one that changes it does
/// not. Never 0 (0 marks a row with nothing to prove).
pub(crate) fn key(
    syntax: SyntaxKind,
    input: Option<&str>,
    phi1: Option<&str>,
    countermodel: Option<&str>,
) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h: u64 = 0x51_7CC1_B727_220A;
    let mut eat = |b: &[u8]| {
        // Length first: the parts cannot run into one another.
        h = (h ^ b.len() as u64).wrapping_mul(K);
        for c in b.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            h = (h ^ u64::from_le_bytes(w)).wrapping_mul(K);
            h ^= h >> 29;
        }
    };
    eat(&[syntax as u8]);
    for part in [input, phi1, countermodel] {
        match part {
            Some(t) => eat(t.as_bytes()),
            None => eat(&[0xFF; 9]),
        }
    }
    h.max(1)
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
