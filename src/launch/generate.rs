//! Dataset generation into a file, streamed batch by batch: `autoeval generate` and a
//! run's `--kind` both write datasets this way.

use crate::dataset;
use crate::grammar::generator::{Batch, GenParams, Progress, generate_batch};
use crate::grammar::{Cfg, DatasetKind};
use anyhow::{Context, Result, bail};
use indicatif::ProgressBar;

/// What a streamed generation reports once written.
pub struct Generated {
    /// Items written.
    pub items: usize,
    /// Buckets per batch.
    pub buckets: usize,
    /// Leaves explored over all batches.
    pub leaves: usize,
    /// Buckets that could not be filled: (batch, bucket, got, wanted, leaves).
    pub short: Vec<(usize, usize, usize, usize, usize)>,
    /// Draws skipped for being over the per-form or per-sample size limit.
    pub oversized: usize,
}

/// Generates `batches` batches on all cores and streams them, in order, into the
/// dataset file at `path`: a batch's items are written and dropped as soon as the
/// batches before it are, so memory stays flat in the number of batches.
#[allow(clippy::too_many_arguments)]
pub fn generate_to_file(
    cfg: &Cfg,
    params: &GenParams,
    seed: u64,
    batches: usize,
    path: &std::path::Path,
    kind_name: &str,
    builtin: Option<DatasetKind>,
    bar: &ProgressBar,
) -> Result<Generated> {
    if batches == 0 {
        bail!("--batches must be at least 1");
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(batches);
    let mut writer = dataset::StreamWriter::create(path, cfg)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    // A bounded channel: workers wait rather than pile up finished batches.
    let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Result<Batch>)>(threads);
    let mut summary = Generated {
        items: 0,
        buckets: 0,
        leaves: 0,
        short: Vec::new(),
        oversized: 0,
    };
    let result: Result<()> = std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop, bar) = (&next, &stop, bar.clone());
            s.spawn(move || {
                loop {
                    if stop.load(std::sync::atomic::Ordering::SeqCst) {
                        break;
                    }
                    let b = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    if b >= batches {
                        break;
                    }
                    let mut cb = |p: Progress| {
                        if let Progress::Level(_) = p {
                            bar.inc(1);
                        }
                    };
                    let r = generate_batch(cfg, params, seed, b as u64, &mut cb)
                        .map_err(anyhow::Error::from);
                    if tx.send((b, r)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending: std::collections::BTreeMap<usize, Batch> = Default::default();
        let mut want = 0;
        let outcome = (|| -> Result<()> {
            for (b, r) in &rx {
                pending.insert(b, r?);
                while let Some(batch) = pending.remove(&want) {
                    writer
                        .add_batch(&batch)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                    summary.items += batch.items.len();
                    summary.buckets = batch.buckets.len();
                    summary.leaves += batch.total_leaves;
                    summary.oversized += batch.oversized;
                    for r in batch.buckets.iter().filter(|r| r.got < r.wanted) {
                        summary
                            .short
                            .push((want, r.bucket, r.got, r.wanted, r.leaves));
                    }
                    want += 1;
                }
            }
            if want < batches {
                bail!("a generator thread stopped early");
            }
            Ok(())
        })();
        if outcome.is_err() {
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            // Unblock workers waiting to send.
            while rx.try_recv().is_ok() {}
        }
        drop(rx);
        outcome
    });
    result?;
    writer
        .finish(kind_name, builtin, cfg, params, seed)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(summary)
}
