//! `correlate`'s output: a text table, JSON, CSV and a LaTeX table.

use super::compare::format_p;
use super::correlate::{Pair, Scores};

/// Output format of `correlate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// An aligned table with the subsets and models under it.
    Text,
    /// A list of objects: x, y, n, pearson, spearman, kendall, predictive_power, models.
    Json,
    /// One line per (X, Y).
    Csv,
    /// A LaTeX tabular.
    Latex,
}

fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |v| format!("{v:.3}"))
}

fn ci(v: Option<[f64; 2]>) -> String {
    v.map_or_else(|| "–".into(), |[a, b]| format!("[{a:.2}, {b:.2}]"))
}

/// Renders the pairs in `format`.
pub fn render(pairs: &[Pair], scores: &Scores, format: Format) -> String {
    match format {
        Format::Text => text(pairs, scores),
        Format::Json => serde_json::to_string_pretty(pairs).unwrap_or_default() + "\n",
        Format::Csv => csv(pairs),
        Format::Latex => latex(pairs),
    }
}

fn text(pairs: &[Pair], scores: &Scores) -> String {
    let head = [
        "X",
        "Y",
        "n",
        "Pearson r",
        "p",
        "95% CI",
        "Spearman ρ",
        "p",
        "Kendall τ",
        "p",
        "P(y₁>y₂|x₁>x₂)",
        "pairs",
        "95% CI",
    ];
    let mut rows: Vec<Vec<String>> = vec![head.iter().map(|s| (*s).to_string()).collect()];
    for p in pairs {
        let pw = &p.predictive_power;
        rows.push(vec![
            p.x.clone(),
            p.y.clone(),
            p.n.to_string(),
            num(p.pearson.map(|v| v.r)),
            format_p(p.pearson.map(|v| v.p)),
            ci(p.pearson.map(|v| v.ci)),
            num(p.spearman.map(|v| v.rho)),
            format_p(p.spearman.map(|v| v.p)),
            num(p.kendall.map(|v| v.tau)),
            format_p(p.kendall.map(|v| v.p)),
            num(pw.value),
            pw.pairs.to_string(),
            ci(pw.ci),
        ]);
    }
    let cols = head.len();
    let width: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .map(|r| unicode_width::UnicodeWidthStr::width(r[c].as_str()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in &rows {
        let cells: Vec<String> = r
            .iter()
            .zip(&width)
            .enumerate()
            .map(|(c, (s, w))| {
                let pad = w - unicode_width::UnicodeWidthStr::width(s.as_str());
                if c < 2 {
                    format!("{s}{}", " ".repeat(pad))
                } else {
                    format!("{}{s}", " ".repeat(pad))
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    if pairs.is_empty() {
        out.push_str("(no other benchmark to compare with)\n");
    }
    if pairs.iter().any(|p| p.n < 3) {
        out.push_str("– : fewer than 3 models in common, or one side constant: no statistic\n");
    }
    for (b, s) in &scores.subsets {
        // A ∀uto∃∨∧L benchmark is A3 on a subset; a task run says what its score is.
        if b.starts_with(super::correlate::AUTOEVAL_PREFIX) {
            out.push_str(&format!("{b}: A3 on {s}\n"));
        } else {
            out.push_str(&format!("{b}: {s}\n"));
        }
    }
    out
}

fn csv(pairs: &[Pair]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "x",
        "y",
        "n",
        "pearson_r",
        "pearson_p",
        "pearson_ci_low",
        "pearson_ci_high",
        "spearman_rho",
        "spearman_p",
        "kendall_tau",
        "kendall_p",
        "predictive_power",
        "pairs",
        "predictive_power_ci_low",
        "predictive_power_ci_high",
    ]);
    let f = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    for p in pairs {
        let pw = &p.predictive_power;
        let _ = w.write_record([
            p.x.clone(),
            p.y.clone(),
            p.n.to_string(),
            f(p.pearson.map(|v| v.r)),
            f(p.pearson.map(|v| v.p)),
            f(p.pearson.map(|v| v.ci[0])),
            f(p.pearson.map(|v| v.ci[1])),
            f(p.spearman.map(|v| v.rho)),
            f(p.spearman.map(|v| v.p)),
            f(p.kendall.map(|v| v.tau)),
            f(p.kendall.map(|v| v.p)),
            f(pw.value),
            pw.pairs.to_string(),
            f(pw.ci.map(|c| c[0])),
            f(pw.ci.map(|c| c[1])),
        ]);
    }
    w.into_inner()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// Escapes LaTeX's special characters in a name.
pub(crate) fn tex(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                o.push('\\');
                o.push(c);
            }
            '~' => o.push_str("\\textasciitilde{}"),
            '^' => o.push_str("\\textasciicircum{}"),
            c if c.is_control() => {}
            c => o.push(c),
        }
    }
    o
}

fn latex(pairs: &[Pair]) -> String {
    let mut o = String::from(
        "\\begin{tabular}{llrrrrrrrrr}\n\\hline\nX & Y & $n$ & $r$ & $p$ & $\\rho$ & $p$ & $\\tau_b$ & $p$ & $P(y_1>y_2\\mid x_1>x_2)$ & 95\\% CI \\\\\n\\hline\n",
    );
    for p in pairs {
        let pw = &p.predictive_power;
        o.push_str(&format!(
            "{} & {} & {} & {} & {} & {} & {} & {} & {} & {} & {} \\\\\n",
            tex(&p.x),
            tex(&p.y),
            p.n,
            num(p.pearson.map(|v| v.r)),
            format_p(p.pearson.map(|v| v.p)),
            num(p.spearman.map(|v| v.rho)),
            format_p(p.spearman.map(|v| v.p)),
            num(p.kendall.map(|v| v.tau)),
            format_p(p.kendall.map(|v| v.p)),
            num(pw.value),
            ci(pw.ci),
        ));
    }
    o.push_str("\\hline\n\\end{tabular}\n");
    o.replace('–', "--")
}
