//! The report as CSV: one row per run and category, the whole-run row once per judge.

use super::RunReport;
use super::intervals::Ci;
use crate::analysis::counts::Counts;

/// The columns before the breaking point's ([`super::breaking::CSV_HEADER`]).
const HEAD: [&str; 25] = [
    "run",
    "model",
    "dataset",
    "by",
    "category",
    "n",
    "answered",
    "compliant",
    "compliance",
    "accurate",
    "accuracy",
    "copied",
    "compliance_low",
    "compliance_high",
    "accuracy_low",
    "accuracy_high",
    "accuracy_batch_low",
    "accuracy_batch_high",
    "judge",
    "judge_precision",
    "judge_precision_low",
    "judge_precision_high",
    "judge_recall",
    "judge_recall_low",
    "judge_recall_high",
];

/// CSV through the `csv` crate, so run and model names with commas or quotes stay one field.
/// With `raw`, cells are exact; else a cell a spreadsheet would run as a formula gets
/// a leading `'` ([`crate::base::sanitize::csv_cell`]).
pub(super) fn csv_text(reports: &[RunReport], raw: bool) -> Result<String, csv::Error> {
    let cells = |r: &[String]| {
        if raw {
            r.to_vec()
        } else {
            crate::base::sanitize::csv_record(r)
        }
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(HEAD.iter().chain(&super::breaking::CSV_HEADER))?;
    for r in reports {
        for row in rows_of(r) {
            w.write_record(cells(&row))?;
        }
    }
    let bytes = w.into_inner().map_err(csv::IntoInnerError::into_error)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A share with four decimals, empty when undefined.
fn f4(x: Option<f64>) -> String {
    x.map(|x| format!("{x:.4}")).unwrap_or_default()
}

/// An interval's low end.
fn lo(x: Option<[f64; 2]>) -> String {
    f4(x.map(|v| v[0]))
}

/// An interval's high end.
fn hi(x: Option<[f64; 2]>) -> String {
    f4(x.map(|v| v[1]))
}

/// One run's rows: per category, then `all` (once per judge when it has judges).
fn rows_of(r: &RunReport) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let rows = r
        .by_category
        .iter()
        .map(|(k, c)| (k.to_string(), c))
        .chain(std::iter::once(("all".to_string(), &r.total)));
    for (cat, c) in rows {
        let all = cat == "all";
        let (ci, batch) = if all {
            (
                Some(&r.intervals.total),
                r.intervals.batch_bootstrap.as_ref().map(|b| &b.total),
            )
        } else {
            let k = cat.parse::<usize>().unwrap_or(0);
            (
                r.intervals.by_category.get(&k),
                r.intervals
                    .batch_bootstrap
                    .as_ref()
                    .and_then(|b| b.by_category.get(&k)),
            )
        };
        let mut base = base_cells(r, cat, c, ci, batch);
        // The whole-run row repeats once per judge, with its precision and recall.
        if all && !r.judges.is_empty() {
            for (j, jc) in r.judges.iter().zip(&r.intervals.judges) {
                let mut row = base.clone();
                row.extend([
                    j.model.clone(),
                    f4(j.precision()),
                    lo(jc.precision),
                    hi(jc.precision),
                    f4(j.recall()),
                    lo(jc.recall),
                    hi(jc.recall),
                ]);
                row.extend(super::breaking::csv_cells(r));
                out.push(row);
            }
        } else {
            base.extend(std::iter::repeat_n(String::new(), 7));
            base.extend(super::breaking::csv_cells(r));
            out.push(base);
        }
    }
    out
}

/// The cells every row of category `cat` has: counts, shares and their intervals
/// (`ci` Wilson, `batch` the batch bootstrap's).
fn base_cells(
    r: &RunReport,
    cat: String,
    c: &Counts,
    ci: Option<&Ci>,
    batch: Option<&Ci>,
) -> Vec<String> {
    vec![
        r.run.clone(),
        r.model.clone(),
        r.dataset.clone(),
        r.by.clone(),
        cat,
        c.n.to_string(),
        c.answered.to_string(),
        c.compliant.to_string(),
        f4(c.compliance()),
        c.accurate.to_string(),
        f4(c.accuracy()),
        c.copied.to_string(),
        lo(ci.and_then(|x| x.a2)),
        hi(ci.and_then(|x| x.a2)),
        lo(ci.and_then(|x| x.a3)),
        hi(ci.and_then(|x| x.a3)),
        lo(batch.and_then(|x| x.a3)),
        hi(batch.and_then(|x| x.a3)),
    ]
}
