//! Plain and Markdown tables of cells, aligned by display width (the reports' one
//! table drawer, kept apart so every table writer can use it without importing the
//! report renderer).

use std::fmt::Write;

/// `rows` as a table: the first column left-aligned, the rest right-aligned; with
/// `markdown`, pipes and a rule under the header row.
pub(crate) fn grid(rows: &[Vec<String>], markdown: bool) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| unicode_width::UnicodeWidthStr::width(s.as_str()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        let cells: Vec<String> = (0..cols)
            .map(|c| {
                let s = r.get(c).cloned().unwrap_or_default();
                let pad =
                    widths[c].saturating_sub(unicode_width::UnicodeWidthStr::width(s.as_str()));
                if c == 0 {
                    format!("{s}{}", " ".repeat(pad))
                } else {
                    format!("{}{s}", " ".repeat(pad))
                }
            })
            .collect();
        if markdown {
            let _ = writeln!(out, "| {} |", cells.join(" | "));
            if i == 0 {
                let _ = writeln!(
                    out,
                    "|{}|",
                    widths
                        .iter()
                        .map(|w| "-".repeat(w + 2))
                        .collect::<Vec<_>>()
                        .join("|")
                );
            }
        } else {
            let _ = writeln!(out, "{}", cells.join("  ").trim_end());
        }
    }
    out
}

/// The width tables should fit: `COLUMNS`, else the terminal's, else 120.
pub(crate) fn table_width() -> usize {
    if let Some(w) = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()) {
        return w;
    }
    if std::io::IsTerminal::is_terminal(&std::io::stdout())
        && let Ok((w, _)) = crossterm::terminal::size()
    {
        return usize::from(w);
    }
    120
}
