//! Inspect's `.eval` log: a zip holding `_journal/start.json` (task and plan), one
//! `samples/<id>_epoch_1.json` per sample, `summaries.json` (what the viewer's sample
//! list reads) and `header.json` (results and stats). Written streaming: each sample is
//! built and serialised on this thread, then compressed and written on a second one; the
//! summaries go to a scratch file beside the output while the samples are written, and
//! are copied into the zip after them; the zip's central directory is spooled to a
//! second scratch file (`report::open::zip_spool`), so memory does not grow with the run.

use super::inspect::{Part, Totals, header};
use super::inspect_sample::{Ctx, build};
use super::zip_spool::SpoolZip;
use super::{ExportError, Pick, labels_by_sample, read_picks};
use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

/// Deflate at level 1: a run's JSON compresses about 10× even so, and the higher levels
/// cost several times the time for a few per cent.
const LEVEL: u32 = 1;

/// Samples built ahead of the zip writer (a few MB at most).
const QUEUE: usize = 64;

/// The scratch file the central directory spools to.
fn cd_path(scratch: &Path) -> PathBuf {
    let mut p = scratch.as_os_str().to_owned();
    p.push(".cd");
    PathBuf::from(p)
}

/// What one `.eval` log holds: a run's samples (`picks`, from [`super::picks`]), which
/// part of the run they are, and the bar that counts them.
pub(crate) struct Log<'p> {
    /// The samples, in file order.
    pub picks: &'p [Pick],
    /// Which part of the run.
    pub part: Part,
    /// Advanced once per sample written.
    pub bar: &'p indicatif::ProgressBar,
}

/// Writes one run (or one part of it) as a `.eval` log to `out`, using `scratch` and
/// `scratch` + `.cd` (paths beside the output, removed afterwards) for the summaries and
/// the zip's directory; returns the samples written and warnings.
pub(crate) fn write_eval<W: Write + Seek + Send>(
    dir: &Path,
    log: &Log,
    out: W,
    scratch: &Path,
) -> Result<(usize, Vec<String>), ExportError> {
    let result = write_with(dir, log, out, scratch);
    let _ = std::fs::remove_file(scratch);
    let _ = std::fs::remove_file(cd_path(scratch));
    result
}

fn write_with<W: Write + Seek + Send>(
    dir: &Path,
    log: &Log,
    out: W,
    scratch: &Path,
) -> Result<(usize, Vec<String>), ExportError> {
    let m = crate::run::store::read_manifest(dir).map_err(ExportError::failed)?;
    let labels = labels_by_sample(dir);
    let ctx = Ctx::new(&m);
    let mut zip = SpoolZip::new(out, &cd_path(scratch), LEVEL)?;
    let mut start = header(&m, &Totals::default(), log.part);
    let start = serde_json::json!({
        "version": 2,
        "eval": start["eval"].take(),
        "plan": start["plan"].take(),
    });
    zip.add("_journal/start.json", &serde_json::to_vec(&start)?)?;
    let mut summaries = BufWriter::with_capacity(
        1 << 20,
        File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(scratch)
            .map_err(|e| ExportError::Failed(format!("{}: {e}", scratch.display())))?,
    );
    summaries.write_all(b"[")?;
    let mut totals = Totals::default();
    let mut n = 0usize;
    // Deflating and writing the zip are a third of the work: a second thread does
    // them while this one reads, builds and serialises the next samples; a short queue
    // bounds the memory.
    let (tx, rx) = std::sync::mpsc::sync_channel::<(String, Vec<u8>)>(QUEUE);
    let (mut zip, warnings) = std::thread::scope(|sc| {
        let writer = sc.spawn(move || -> std::io::Result<SpoolZip<W>> {
            for (name, body) in rx {
                zip.add(&name, &body)?;
            }
            Ok(zip)
        });
        let read = read_picks(dir, log.picks, |s, mask| {
            let kinds = crate::analysis::kinds::unmask(mask)
                .iter()
                .map(|k| k.id())
                .collect();
            let b = build(&ctx, &s, kinds, labels.get(&s.id));
            totals.add(&s, b.span_ms);
            let mut body = Vec::with_capacity(16 << 10);
            serde_json::to_writer(&mut body, &b.sample())?;
            // A closed queue means the writer failed; its error is the one reported.
            tx.send((format!("samples/{}_epoch_1.json", s.id), body))
                .map_err(|_| std::io::Error::other("the zip writer stopped"))?;
            if n > 0 {
                summaries.write_all(b",")?;
            }
            serde_json::to_writer(&mut summaries, &b.summary())?;
            n += 1;
            log.bar.inc(1);
            Ok(())
        });
        drop(tx);
        let zip = writer
            .join()
            .map_err(|_| ExportError::Failed("the zip writer panicked".into()))?;
        let warnings = read.map_err(ExportError::failed);
        // The writer's own error explains a read that stopped on a closed queue.
        let zip = zip?;
        Ok::<_, ExportError>((zip, warnings?))
    })?;
    summaries.write_all(b"]")?;
    let mut file = summaries
        .into_inner()
        .map_err(|e| ExportError::Failed(format!("{}: {}", scratch.display(), e.error())))?;
    file.rewind()?;
    zip.add_stream("summaries.json", &mut file)?;
    zip.add(
        "header.json",
        &serde_json::to_vec(&header(&m, &totals, log.part))?,
    )?;
    zip.finish()?.flush()?;
    Ok((n, warnings))
}
