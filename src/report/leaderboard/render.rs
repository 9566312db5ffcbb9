//! Rendering the leaderboard: the wide table (a column group per dataset) when it fits
//! the width, else grouped by row (one line per column group, about 80 columns); Markdown,
//! CSV, JSON and LaTeX.

use super::{Cell, Format, Leaderboard, Rows};
use crate::report::JudgeStats;
use std::fmt::Write;

/// The title over the breaking points.
const BREAKING_TITLE: &str = "Breaking points (where pooled A3 crosses 50%, by the runs' category; 95% profile-likelihood CI)";

/// The metric columns of each group.
const METRICS: [&str; 5] = ["n", "A2 %", "A3 %", "copy %", "judge F1"];

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "–".into(), |v| format!("{:.1}", 100.0 * v))
}

fn with_ci(x: Option<f64>, ci: Option<[f64; 2]>, sep: &str) -> String {
    match (x, ci) {
        (Some(v), Some([l, h])) => {
            format!("{:.1} [{:.1}{sep}{:.1}]", 100.0 * v, 100.0 * l, 100.0 * h)
        }
        _ => "–".into(),
    }
}

fn values(c: Option<&Cell>, sep: &str) -> [String; 5] {
    let Some(c) = c else {
        return std::array::from_fn(|_| "·".to_string());
    };
    [
        c.counts.n.to_string(),
        with_ci(c.a2, c.a2_ci, sep),
        with_ci(c.a3, c.a3_ci, sep),
        pct(c.copy_share),
        c.judge_f1.map_or_else(|| "–".into(), |f| format!("{f:.3}")),
    ]
}

/// Escapes text for LaTeX.
fn tex(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => o.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                o.push('\\');
                o.push(ch);
            }
            '~' => o.push_str("\\textasciitilde{}"),
            '^' => o.push_str("\\textasciicircum{}"),
            c if c.is_control() => {}
            c => o.push(c),
        }
    }
    o
}

fn text_table(lb: &Leaderboard, markdown: bool) -> String {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut head = vec![lb.row_label().to_string()];
    for col in &lb.column_keys {
        for m in METRICS {
            head.push(format!("{col} {m}"));
        }
    }
    rows.push(head);
    for r in &lb.row_keys {
        let mut row = vec![r.clone()];
        for col in &lb.column_keys {
            row.extend(values(lb.cell(r, col), "–"));
        }
        rows.push(row);
    }
    let cols = rows[0].len();
    let width = |s: &str| unicode_width::UnicodeWidthStr::width(s);
    let widths: Vec<usize> = (0..cols)
        .map(|c| rows.iter().map(|r| width(&r[c])).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, s)| {
                let pad = " ".repeat(widths[c].saturating_sub(width(s)));
                if c == 0 {
                    format!("{s}{pad}")
                } else {
                    format!("{pad}{s}")
                }
            })
            .collect();
        if markdown {
            let _ = writeln!(out, "| {} |", cells.join(" | "));
            if i == 0 {
                let rule: Vec<String> = widths
                    .iter()
                    .enumerate()
                    .map(|(c, w)| {
                        if c == 0 {
                            "-".repeat(w + 2)
                        } else {
                            format!("{}:", "-".repeat(w + 1))
                        }
                    })
                    .collect();
                let _ = writeln!(out, "|{}|", rule.join("|"));
            }
        } else {
            let _ = writeln!(out, "{}", cells.join("  ").trim_end());
        }
    }
    out
}

/// The same table grouped by row, one line per column group: about 80 columns wide
/// whatever the number of datasets (the viewer's run summary draws this one).
pub(crate) fn render_grouped(lb: &Leaderboard) -> String {
    grouped(lb, usize::MAX, true) + &condition_note(lb)
}

/// [`render_grouped`] fitted to `width` columns: row names cut, a column group's name
/// too wide for its column on a line of its own. Without `intervals`, A2 and A3 are the
/// percentages alone, for widths the grouped lines (about 80 columns) do not fit.
fn grouped(lb: &Leaderboard, width: usize, intervals: bool) -> String {
    let col_label = match lb.rows {
        Rows::Model => "dataset",
        Rows::Dataset => "model",
    };
    let widest = lb
        .column_keys
        .iter()
        .map(|k| crate::base::text_width::width(k))
        .chain([col_label.len()])
        .max()
        .unwrap_or(0);
    // Room for the names once the numbers and their indent are placed (69 columns with
    // intervals, 41 without); a name wider goes on a line of its own.
    let numbers = if intervals { 69 } else { 41 };
    let kw = widest.min(width.saturating_sub(numbers).max(col_label.len()));
    let share = |s: &str| {
        if intervals {
            format!("{s:<19}")
        } else {
            format!("{s:>5}")
        }
    };
    let (h2, h3) = if intervals {
        ("A2 % [95% CI]", "A3 % [95% CI]")
    } else {
        ("A2 %", "A3 %")
    };
    let mut out = String::new();
    let head = format!(
        "  {col_label:<kw$} {:>6}  {}  {}  {:>6}  {:>8}",
        "n",
        share(h2),
        share(h3),
        "copy %",
        "judge F1"
    );
    let _ = writeln!(out, "{}", head.trim_end());
    for r in &lb.row_keys {
        let _ = writeln!(out, "{}", cut(r, width));
        for col in &lb.column_keys {
            let Some(c) = lb.cell(r, col) else { continue };
            let [n, a2, a3, copy, f1] = values(Some(c), "–");
            let (a2, a3) = if intervals {
                (a2, a3)
            } else {
                (pct(c.a2), pct(c.a3))
            };
            // A name wider than its column goes whole on a line of its own, so names
            // differing only in their end (`· 0-shot`, `· 2-shot`) stay apart; its
            // numbers follow under an empty name.
            let name = if crate::base::text_width::width(col) > kw {
                let _ = writeln!(out, "  {}", cut(col, width.saturating_sub(2)));
                String::new()
            } else {
                col.clone()
            };
            let pad = kw.saturating_sub(crate::base::text_width::width(&name));
            let _ = writeln!(
                out,
                "  {name}{} {n:>6}  {}  {}  {copy:>6}  {f1:>8}",
                " ".repeat(pad),
                share(&a2),
                share(&a3),
            );
        }
    }
    out
}

/// `text`'s lines wrapped at spaces to `width` columns (a word longer than that keeps
/// its own line); blank lines kept.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut cur = String::new();
        for word in line.split(' ').filter(|w| !w.is_empty()) {
            let wide =
                crate::base::text_width::width(&cur) + 1 + crate::base::text_width::width(word);
            if !cur.is_empty() && wide > width {
                out.push_str(&cur);
                out.push('\n');
                cur.clear();
            }
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push_str(&cur);
        out.push('\n');
    }
    out
}

/// What the rows' `· 2-shot` means, or that conditions were pooled ("" when the runs
/// share one condition).
fn condition_note(lb: &Leaderboard) -> String {
    if lb.split() {
        format!(
            "prompt conditions ({}) kept apart; autoeval leaderboard --pool merges them\n",
            lb.conditions.join(", ")
        )
    } else if lb.pooled {
        format!(
            "prompt conditions pooled (--pool): {} counted together\n",
            lb.conditions.join(", ")
        )
    } else {
        String::new()
    }
}

fn latex(lb: &Leaderboard) -> String {
    let groups = lb.column_keys.len();
    let mut o = String::new();
    o.push_str(
        "% autoeval leaderboard: A2/A3 in %, [Wilson 95% CI]; requires \\usepackage{booktabs}\n",
    );
    let _ = writeln!(o, "\\begin{{tabular}}{{l{}}}", "rrrrr".repeat(groups));
    o.push_str("\\toprule\n");
    let _ = write!(o, "{}", tex(lb.row_label()));
    for col in &lb.column_keys {
        let _ = write!(o, " & \\multicolumn{{5}}{{c}}{{{}}}", tex(col));
    }
    o.push_str(" \\\\\n");
    for g in 0..groups {
        let from = 2 + 5 * g;
        let _ = write!(o, "\\cmidrule(lr){{{from}-{}}}", from + 4);
    }
    o.push('\n');
    for _ in 0..groups {
        o.push_str(" & $n$ & A2 (\\%) & A3 (\\%) & copy (\\%) & judge $F_1$");
    }
    o.push_str(" \\\\\n\\midrule\n");
    for r in &lb.row_keys {
        o.push_str(&tex(r));
        for col in &lb.column_keys {
            for v in values(lb.cell(r, col), "--") {
                let _ = write!(o, " & {}", tex(&v).replace('–', "--").replace('·', ""));
            }
        }
        o.push_str(" \\\\\n");
    }
    o.push_str("\\bottomrule\n\\end{tabular}\n");
    o
}

fn csv_text(lb: &Leaderboard) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "model",
        "dataset",
        "runs",
        "n",
        "answered",
        "compliant",
        "a2",
        "a2_low",
        "a2_high",
        "accurate",
        "a3",
        "a3_low",
        "a3_high",
        "copied",
        "copy_share",
        "judge_tp",
        "judge_fp",
        "judge_tn",
        "judge_fn",
        "judge_f1",
        "breaking_point",
        "breaking_point_low",
        "breaking_point_high",
        "condition",
        "shots",
        "prompt_hashes",
    ])?;
    let f = |x: Option<f64>| x.map(|v| format!("{v:.4}")).unwrap_or_default();
    for c in &lb.cells {
        let j = c.judge.as_ref();
        let ju = |g: fn(&JudgeStats) -> usize| j.map(|j| g(j).to_string()).unwrap_or_default();
        w.write_record(crate::base::sanitize::csv_record([
            c.model.clone(),
            c.dataset.clone(),
            c.runs.join(";"),
            c.counts.n.to_string(),
            c.counts.answered.to_string(),
            c.counts.compliant.to_string(),
            f(c.a2),
            f(c.a2_ci.map(|v| v[0])),
            f(c.a2_ci.map(|v| v[1])),
            c.counts.accurate.to_string(),
            f(c.a3),
            f(c.a3_ci.map(|v| v[0])),
            f(c.a3_ci.map(|v| v[1])),
            c.counts.copied.to_string(),
            f(c.copy_share),
            ju(|j| j.tp),
            ju(|j| j.fp),
            ju(|j| j.tn),
            ju(|j| j.fn_),
            f(c.judge_f1),
            f(c.breaking_point.and_then(|b| b.value)),
            f(c.breaking_point.and_then(|b| b.ci[0])),
            f(c.breaking_point.and_then(|b| b.ci[1])),
            c.condition.clone(),
            c.shots
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(";"),
            c.prompt_hashes.join(";"),
        ]))?;
    }
    let bytes = w.into_inner().map_err(csv::IntoInnerError::into_error)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `s` cut with `…` to `width` columns (as it is when it fits; `clip` would pad it).
fn cut(s: &str, width: usize) -> String {
    if crate::base::text_width::width(s) <= width {
        s.to_string()
    } else {
        crate::base::text_width::clip(s, width)
            .trim_end()
            .to_string()
    }
}

/// Whether every line of `text` fits `width` columns.
fn fits(text: &str, width: usize) -> bool {
    text.lines()
        .all(|l| crate::base::text_width::width(l) <= width)
}

/// Renders the leaderboard; the table fits the width tables are printed at (`COLUMNS`,
/// the terminal's, else 120).
pub fn render(lb: &Leaderboard, format: Format) -> String {
    render_width(lb, format, crate::report::grid::table_width())
}

/// Renders the leaderboard; a table wider than `width` columns is printed grouped by
/// row instead (one line per column group), and the breaking points one per line.
pub fn render_width(lb: &Leaderboard, format: Format, width: usize) -> String {
    match format {
        Format::Table => {
            let wide = text_table(lb, false);
            let by_row = grouped(lb, width, true);
            let (mut t, legend) = if fits(&wide, width) {
                (wide, "A2/A3 in % with [Wilson 95% CI]")
            } else if fits(&by_row, width) {
                (by_row, "A2/A3 in % with [Wilson 95% CI]")
            } else {
                (
                    grouped(lb, width, false),
                    "A2/A3 in %, their 95% CIs left out at this width (a wider terminal shows them, as do --format markdown, csv and json)",
                )
            };
            t.push_str(&wrap(
                &format!(
                    "{}{legend}; · no runs; rows ranked by pooled A3",
                    condition_note(lb)
                ),
                width,
            ));
            let breaking = breaking_table(lb);
            let breaking = if fits(&breaking, width) {
                breaking
            } else {
                breaking_long(lb, width)
            };
            if !breaking.is_empty() {
                // The title wraps; the points under it are laid out to fit.
                t.push('\n');
                t.push_str(&wrap(BREAKING_TITLE, width));
                t.push_str(&breaking);
            }
            t
        }
        Format::Markdown => text_table(lb, true),
        Format::Csv => csv_text(lb).unwrap_or_default(),
        Format::Json => serde_json::to_string_pretty(lb).unwrap_or_default(),
        Format::Latex => latex(lb),
    }
}

/// Breaking points side by side: one row per row key, one column per column key ("" when
/// no cell has one). The title is the caller's.
fn breaking_table(lb: &Leaderboard) -> String {
    if lb.cells.iter().all(|c| c.breaking_point.is_none()) {
        return String::new();
    }
    let mut rows = vec![
        std::iter::once(lb.row_label().to_string())
            .chain(lb.column_keys.iter().cloned())
            .collect::<Vec<_>>(),
    ];
    for r in &lb.row_keys {
        let mut row = vec![r.clone()];
        for col in &lb.column_keys {
            row.push(match lb.cell(r, col) {
                None => "·".into(),
                Some(c) => c
                    .breaking_point
                    .as_ref()
                    .map_or_else(|| "–".into(), crate::analysis::breaking::describe),
            });
        }
        rows.push(row);
    }
    crate::report::grid::grid(&rows, false)
}

/// Breaking points one per line (row, column group, point), for widths the side-by-side
/// table does not fit. The title is the caller's.
fn breaking_long(lb: &Leaderboard, width: usize) -> String {
    let col_label = match lb.rows {
        Rows::Model => "dataset",
        Rows::Dataset => "model",
    };
    let mut out = String::new();
    for r in &lb.row_keys {
        let _ = writeln!(out, "{}", cut(r, width));
        let points: Vec<(&String, String)> = lb
            .column_keys
            .iter()
            .filter_map(|col| {
                let c = lb.cell(r, col)?;
                let point = c
                    .breaking_point
                    .as_ref()
                    .map_or_else(|| "–".into(), crate::analysis::breaking::describe);
                Some((col, point))
            })
            .collect();
        let rows: Vec<Vec<String>> =
            std::iter::once(vec![format!("  {col_label}"), "breaking point".to_string()])
                .chain(
                    points
                        .iter()
                        .map(|(col, p)| vec![format!("  {col}"), p.clone()]),
                )
                .collect();
        let side_by_side = crate::report::grid::grid(&rows, false);
        if fits(&side_by_side, width) {
            out.push_str(&side_by_side);
        } else {
            // Each name on its own line, whole (names differing only in their end, as
            // `· 0-shot` and `· 2-shot`, stay apart), the point under it.
            for (col, p) in &points {
                let _ = writeln!(out, "  {}\n    {p}", cut(col, width.saturating_sub(2)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_only_past_the_width() {
        assert_eq!(cut("openai:model", usize::MAX), "openai:model");
        assert_eq!(cut("openai:model", 7), "openai…");
    }

    proptest::proptest! {
        /// Wrapping keeps every word in order and breaks only between words, each line
        /// within the width unless a single word is wider.
        #[test]
        fn wrapping_keeps_the_words_and_the_width(
            words in proptest::collection::vec("[a-z·–%]{1,14}", 0..40),
            width in 8usize..90,
        ) {
            let text = words.join(" ");
            let wrapped = wrap(&text, width);
            let again: Vec<&str> = wrapped.split_whitespace().collect();
            proptest::prop_assert_eq!(&again, &words.iter().map(String::as_str).collect::<Vec<_>>());
            for line in wrapped.lines() {
                proptest::prop_assert!(
                    crate::base::text_width::width(line) <= width || !line.contains(' '),
                    "{line:?} at {width}"
                );
            }
        }
    }

    #[test]
    fn latex_escapes_names() {
        assert_eq!(tex("gpt_4o & 50%"), "gpt\\_4o \\& 50\\%");
        assert_eq!(tex("a\\b~"), "a\\textbackslash{}b\\textasciitilde{}");
    }
}
