//! Inspect's `.eval` log: a zip holding `_journal/start.json` (task and plan), one
//! `samples/<id>_epoch_1.json` per sample, `summaries.json` (what the viewer's sample
//! list reads) and `header.json` (results and stats). Written streaming: each sample is
//! built, compressed and dropped in turn; the summaries go to a scratch file beside the
//! output while the samples are written, and are copied into the zip after them.

use super::inspect::{Totals, header};
use super::inspect_sample::{Ctx, build};
use super::{for_each_sample, labels_by_sample};
use serde_json::Value;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, Write};
use std::path::Path;
use zip::write::SimpleFileOptions;

/// Deflate at level 1: a run's JSON compresses about 10× even so, and the higher levels
/// cost several times the time for a few per cent.
fn options() -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(false)
}

fn zip_err(e: zip::result::ZipError) -> std::io::Error {
    std::io::Error::other(e)
}

/// Writes one run as a `.eval` log to `out`, using `scratch` (a path beside the output,
/// removed afterwards) for the summaries; returns the samples written and warnings.
pub fn write_eval<W: Write + Seek>(
    dir: &Path,
    out: W,
    scratch: &Path,
) -> anyhow::Result<(usize, Vec<String>)> {
    let result = write_with(dir, out, scratch);
    let _ = std::fs::remove_file(scratch);
    result
}

fn write_with<W: Write + Seek>(
    dir: &Path,
    out: W,
    scratch: &Path,
) -> anyhow::Result<(usize, Vec<String>)> {
    let m = crate::run::store::read_manifest(dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    let labels = labels_by_sample(dir);
    let ctx = Ctx::new(&m);
    let mut zip = zip::ZipWriter::new(out);
    let mut start = header(&m, &Totals::default());
    let start = serde_json::json!({
        "version": 2,
        "eval": start["eval"].take(),
        "plan": start["plan"].take(),
    });
    zip.start_file("_journal/start.json", options())?;
    serde_json::to_writer(&mut zip, &start)?;
    let mut summaries = BufWriter::with_capacity(
        1 << 20,
        File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(scratch)
            .map_err(|e| anyhow::anyhow!("{}: {e}", scratch.display()))?,
    );
    summaries.write_all(b"[")?;
    let mut totals = Totals::default();
    let mut n = 0usize;
    let warnings = for_each_sample(dir, |s| {
        let b = build(&ctx, &s, labels.get(&s.id));
        totals.add(&s, b.span_ms);
        let id = match &b.sample["id"] {
            Value::String(x) => x.clone(),
            v => v.to_string(),
        };
        zip.start_file(format!("samples/{id}_epoch_1.json"), options())
            .map_err(zip_err)?;
        serde_json::to_writer(&mut zip, &b.sample)?;
        if n > 0 {
            summaries.write_all(b",")?;
        }
        serde_json::to_writer(&mut summaries, &b.summary)?;
        n += 1;
        Ok(())
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    summaries.write_all(b"]")?;
    let mut file = summaries
        .into_inner()
        .map_err(|e| anyhow::anyhow!("{}: {}", scratch.display(), e.error()))?;
    file.rewind()?;
    zip.start_file("summaries.json", options())?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let k = file.read(&mut buf)?;
        if k == 0 {
            break;
        }
        zip.write_all(&buf[..k])?;
    }
    zip.start_file("header.json", options())?;
    serde_json::to_writer(&mut zip, &header(&m, &totals))?;
    zip.finish()?.flush()?;
    Ok((n, warnings))
}
