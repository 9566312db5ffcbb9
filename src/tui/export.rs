//! Exports from the viewer: the filtered sample list (JSONL of full records and a CSV
//! summary) and the chart's numbers, written to a new folder.

use super::app::App;
use super::data::{Row, RunIndex};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `samples.jsonl`, `samples.csv` and `chart.csv` for what the viewer shows now
/// into a new folder under `base`; returns the folder.
pub fn export(app: &App, base: &Path) -> Result<PathBuf, ExportError> {
    let stamp = crate::record::now_rfc3339().replace(':', "");
    let mut dir = base.join(format!("autoeval-export-{stamp}"));
    let mut k = 1;
    while dir.exists() {
        k += 1;
        dir = base.join(format!("autoeval-export-{stamp}-{k}"));
    }
    std::fs::create_dir_all(&dir).map_err(at(&dir))?;
    write_samples(app, &dir)?;
    write_chart(app, &dir)?;
    Ok(dir)
}

/// `samples.jsonl` (the listed samples' full records) and `samples.csv` (a row each)
/// in `dir`.
fn write_samples(app: &App, dir: &Path) -> Result<(), ExportError> {
    let jsonl = dir.join("samples.jsonl");
    let mut j = std::io::BufWriter::new(std::fs::File::create(&jsonl).map_err(at(&jsonl))?);
    let csv_path = dir.join("samples.csv");
    let mut c = csv::Writer::from_path(&csv_path).map_err(at(&csv_path))?;
    let mut head: Vec<&str> = vec![
        "run",
        "id",
        "operators",
        "depth",
        "verdict",
        "failure_kinds",
        "judge",
        "labels",
        "phi0",
        "psi",
        "phi1",
    ];
    // Every stored closeness metric its own column, by its field name.
    head.extend(crate::record::Metric::ALL.map(crate::record::Metric::name));
    c.write_record(&head).map_err(at(&csv_path))?;
    for &(r, i) in &app.model.listing.visible {
        let run = &app.model.runs[r as usize];
        let row = &run.rows[i as usize];
        let line = run.raw_line(row)?;
        j.write_all(&line).map_err(at(&jsonl))?;
        j.write_all(b"\n").map_err(at(&jsonl))?;
        c.write_record(crate::base::sanitize::csv_record(csv_row(run, row, &line)))
            .map_err(at(&csv_path))?;
    }
    j.flush().map_err(at(&jsonl))?;
    c.flush().map_err(at(&csv_path))
}

/// A sample's `samples.csv` row, `line` its record as stored.
fn csv_row(run: &RunIndex, row: &Row, line: &[u8]) -> Vec<String> {
    let text = run.text(row);
    let mut parts = text.split(super::data::SEP);
    let (phi0, psi, phi1) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
    );
    let kinds: Vec<&str> = crate::analysis::kinds::unmask(row.fails)
        .iter()
        .map(|k| k.id())
        .collect();
    let judge = run
        .judge
        .get(&*row.id)
        .map(|j| format!("{:?}", j.answer).to_lowercase())
        .unwrap_or_default();
    let labels: Vec<String> = run
        .labels
        .get(&*row.id)
        .map(|ls| {
            ls.iter()
                .map(|l| format!("{}:{}", l.annotator, l.categories.join("+")))
                .collect()
        })
        .unwrap_or_default();
    let mut record: Vec<String> = vec![
        run.name(),
        row.id.to_string(),
        row.ops.map(|v| v.to_string()).unwrap_or_default(),
        row.depth.map(|v| v.to_string()).unwrap_or_default(),
        row.verdict_name().to_string(),
        kinds.join(" "),
        judge,
        labels.join(" "),
        phi0.to_string(),
        psi.to_string(),
        phi1.to_string(),
    ];
    // Full precision from the record just read (the row keeps four decimals).
    let close = closeness_of(line);
    record.extend(crate::record::Metric::ALL.map(|m| {
        close
            .and_then(|c| c.get(m))
            .map(|v| v.to_string())
            .unwrap_or_default()
    }));
    record
}

/// `chart.csv` in `dir`: the chart's counts and shares per run and bucket.
fn write_chart(app: &App, dir: &Path) -> Result<(), ExportError> {
    let chart_path = dir.join("chart.csv");
    let mut w = csv::Writer::from_path(&chart_path).map_err(at(&chart_path))?;
    let by = match app.model.by {
        crate::report::By::Operators => "operators",
        crate::report::By::Depth => "depth",
    };
    w.write_record([
        "run",
        by,
        "n",
        "answered",
        "compliant",
        "accurate",
        "A2",
        "A3",
    ])
    .map_err(at(&chart_path))?;
    let f4 = |x: Option<f64>| x.map(|v| format!("{v:.4}")).unwrap_or_default();
    for (name, m) in &app.model.derived.chart {
        for (b, n) in m {
            w.write_record(crate::base::sanitize::csv_record([
                name.clone(),
                b.to_string(),
                n.n.to_string(),
                n.answered.to_string(),
                n.compliant.to_string(),
                n.accurate.to_string(),
                f4(n.compliance()),
                f4(n.accuracy()),
            ]))
            .map_err(at(&chart_path))?;
        }
    }
    w.flush().map_err(at(&chart_path))
}

/// The `closeness` record of a sample line, if it has one that reads.
fn closeness_of(line: &[u8]) -> Option<crate::record::Closeness> {
    #[derive(serde::Deserialize)]
    struct Only {
        #[serde(default)]
        closeness: Option<crate::record::Closeness>,
    }
    serde_json::from_slice::<Only>(line).ok()?.closeness
}

/// An export that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Writing one of the export's files.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Reading a listed sample's record back.
    #[error(transparent)]
    Record(#[from] super::data::RecordError),
}

fn at<E: std::error::Error + Send + Sync + 'static>(
    p: &Path,
) -> impl FnOnce(E) -> ExportError + '_ {
    move |e| ExportError::File {
        path: p.display().to_string(),
        source: Box::new(e),
    }
}
