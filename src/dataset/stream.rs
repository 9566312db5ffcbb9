//! Writing a generated dataset batch by batch, so memory does not grow with the number
//! of batches.

use super::{BatchSummary, FieldStats, fields_for, info_map, item_from, summarize};
use crate::grammar::generator::{Batch, GenParams};
use crate::grammar::{Cfg, DatasetKind};
use serde_json::Value;
use std::path::Path;

/// Writes a dataset batch by batch: each batch's items go to a spool file beside the
/// output and are dropped, so memory does not grow with the number of batches. The
/// result is byte for byte what [`super::write()`] makes of [`super::assemble`].
pub struct StreamWriter {
    path: std::path::PathBuf,
    spool_path: std::path::PathBuf,
    spool: std::io::BufWriter<std::fs::File>,
    /// The output itself, opened at once when it is a device or FIFO (written in
    /// place; never replaced by a rename).
    in_place: Option<crate::base::fswrite::Output>,
    fields: &'static [&'static str],
    stats: FieldStats,
    summaries: Vec<BatchSummary>,
    /// Bytes of items spooled so far.
    written: u64,
}

impl StreamWriter {
    /// Starts writing the dataset for `cfg` to `path`.
    pub fn create(path: &Path, cfg: &Cfg) -> std::io::Result<StreamWriter> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        // A device or FIFO is opened now (a FIFO nobody reads is refused before any
        // work), and the spool goes to the temporary directory, not beside it.
        let (in_place, spool_path) = match crate::base::fswrite::dest(path)? {
            crate::base::fswrite::Dest::Replace => (None, path.with_extension("json.items.tmp")),
            crate::base::fswrite::Dest::InPlace => (
                Some(crate::base::fswrite::Output::create(path, path.into())?),
                std::env::temp_dir()
                    .join(format!("autoeval-{}.json.items.tmp", std::process::id())),
            ),
        };
        let spool = std::io::BufWriter::new(crate::base::fswrite::room::create(&spool_path)?);
        Ok(StreamWriter {
            path: path.to_path_buf(),
            spool_path,
            spool,
            in_place,
            fields: fields_for(cfg),
            stats: FieldStats::default(),
            summaries: Vec::new(),
            written: 0,
        })
    }

    /// Appends the next batch (batches must come in order).
    pub fn add_batch(&mut self, batch: &Batch) -> std::io::Result<()> {
        use std::io::Write;
        let b = self.summaries.len();
        for g in &batch.items {
            let item = item_from(g, self.stats.total, b);
            self.stats.add(self.fields, &item);
            let text = serde_json::to_string_pretty(&item).map_err(std::io::Error::other)?;
            if self.stats.total > 1 {
                self.spool.write_all(b",\n")?;
            }
            // Never write a dataset `run` would refuse to read.
            self.written += text.len() as u64 + 8;
            if self.written > crate::base::fsread::MAX_DATASET {
                let _ = std::fs::remove_file(&self.spool_path);
                return Err(std::io::Error::other(format!(
                    "the dataset would pass {}, the most a dataset file may hold; lower --per-category or --batches",
                    crate::base::fsread::human_bytes(crate::base::fsread::MAX_DATASET)
                )));
            }
            // Items sit two levels deep in the file: indent every line by four spaces.
            for (i, line) in text.lines().enumerate() {
                if i > 0 {
                    self.spool.write_all(b"\n")?;
                }
                self.spool.write_all(b"    ")?;
                self.spool.write_all(line.as_bytes())?;
            }
        }
        self.summaries.push(summarize(b, batch));
        Ok(())
    }

    /// Writes the file (atomically) and returns the number of items.
    pub fn finish(
        mut self,
        kind_name: &str,
        builtin: Option<DatasetKind>,
        cfg: &Cfg,
        params: &GenParams,
        seed: u64,
    ) -> std::io::Result<usize> {
        use std::io::{Read, Write};
        self.spool.flush()?;
        drop(self.spool);
        let n = self.stats.total;
        let info = info_map(kind_name, builtin, cfg, params, seed, &self.summaries);
        let (metadata, extra) = self.stats.into_maps(self.fields);
        // The same shape serde gives DatasetFile: info, metadata, data, then the
        // flattened extra keys, pretty-printed with two spaces.
        let indent = |v: &Value| -> std::io::Result<String> {
            let t = serde_json::to_string_pretty(v).map_err(std::io::Error::other)?;
            Ok(t.replace('\n', "\n  "))
        };
        let out = match self.in_place.take() {
            Some(o) => o,
            None => crate::base::fswrite::Output::create(
                &self.path,
                self.path.with_extension("json.tmp"),
            )?,
        };
        let mut out = std::io::BufWriter::new(out);
        write!(out, "{{\n  \"info\": {},\n", indent(&Value::Object(info))?)?;
        writeln!(
            out,
            "  \"metadata\": {},",
            indent(&Value::Object(metadata))?
        )?;
        if n == 0 {
            write!(out, "  \"data\": []")?;
        } else {
            writeln!(out, "  \"data\": [")?;
            let mut spool = std::fs::File::open(&self.spool_path)?;
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let k = spool.read(&mut buf)?;
                if k == 0 {
                    break;
                }
                out.write_all(&buf[..k])?;
            }
            write!(out, "\n  ]")?;
        }
        for (k, v) in &extra {
            write!(
                out,
                ",\n  {}: {}",
                serde_json::to_string(k).map_err(std::io::Error::other)?,
                indent(v)?
            )?;
        }
        write!(out, "\n}}\n")?;
        let out = out
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        let _ = std::fs::remove_file(&self.spool_path);
        out.commit()?;
        Ok(n)
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
