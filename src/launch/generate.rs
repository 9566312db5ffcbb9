//! Dataset generation into a file, streamed batch by batch: `autoeval generate` and a
//! run's `--kind` both write datasets this way.

use super::LaunchError;
use crate::dataset;
use crate::grammar::generator::{Batch, GenParams, Progress, generate_batch};
use crate::grammar::{Cfg, DatasetKind};
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
) -> Result<Generated, LaunchError> {
    if batches == 0 {
        return Err(LaunchError::other("--batches must be at least 1"));
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(batches);
    let cannot_write =
        |e: std::io::Error| LaunchError::context(format!("cannot write {}", path.display()), e);
    let mut writer = dataset::stream::StreamWriter::create(path, cfg).map_err(cannot_write)?;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    // A bounded channel: workers wait rather than pile up finished batches.
    let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Result<Batch, LaunchError>)>(threads);
    let mut summary = Generated {
        items: 0,
        buckets: 0,
        leaves: 0,
        short: Vec::new(),
        oversized: 0,
    };
    std::thread::scope(|s| {
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
                        .map_err(LaunchError::other);
                    if tx.send((b, r)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let outcome = write_in_order(&rx, &mut writer, &mut summary, batches, &cannot_write);
        if outcome.is_err() {
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            // Unblock workers waiting to send.
            while rx.try_recv().is_ok() {}
        }
        drop(rx);
        outcome
    })?;
    writer
        .finish(kind_name, builtin, cfg, params, seed)
        .map_err(cannot_write)?;
    Ok(summary)
}

/// Writes the batches arriving on `rx` (in any order) to `writer` in their order,
/// each as soon as the ones before it are, counting them into `summary`.
fn write_in_order(
    rx: &std::sync::mpsc::Receiver<(usize, Result<Batch, LaunchError>)>,
    writer: &mut dataset::stream::StreamWriter,
    summary: &mut Generated,
    batches: usize,
    cannot_write: &dyn Fn(std::io::Error) -> LaunchError,
) -> Result<(), LaunchError> {
    let mut pending: std::collections::BTreeMap<usize, Batch> = Default::default();
    let mut want = 0;
    for (b, r) in rx {
        pending.insert(b, r?);
        while let Some(batch) = pending.remove(&want) {
            writer.add_batch(&batch).map_err(cannot_write)?;
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
        return Err(LaunchError::other("a generator thread stopped early"));
    }
    Ok(())
}
