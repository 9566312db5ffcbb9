//! FOLIO as a dataset source: every distinct `premises-FOL` / `conclusion-FOL` formula of a
//! FOLIO JSON-lines file becomes one φ₀ of an autoeval dataset file (`generate
//! --from-folio`), with the FOLIO string, story and example kept beside it.

use crate::dataset::{DatasetFile, Item, assemble_logic};
use crate::syntax::folio::{FolioNames, parse_folio};
use crate::syntax::{Expr, Formula, Notation, logic_metrics};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// A FOLIO file read as a dataset, with what was left out.
pub struct FolioDataset {
    /// The dataset file.
    pub file: DatasetFile,
    /// One line per formula or line left out: `FILE:LINE: …`.
    pub errors: Vec<String>,
    /// Formulas seen again (same FOLIO string) and kept once.
    pub duplicates: usize,
}

/// The formulas of one FOLIO record under `key` (a list, or a newline-joined string).
fn formulas(v: &Value, key: &str) -> Option<Vec<String>> {
    match v.get(key)? {
        Value::Array(a) => Some(
            a.iter()
                .map(|x| x.as_str().unwrap_or_default().to_string())
                .collect(),
        ),
        Value::String(s) => Some(
            s.trim_matches('\n')
                .split('\n')
                .map(str::to_string)
                .collect(),
        ),
        _ => None,
    }
}

/// Longest FOLIO line read (a story is a few kilobytes); longer ones are reported
/// by line and skipped, never held whole.
pub(crate) const MAX_FOLIO_LINE: usize = 16 << 20;

/// Most characters of a formula an error message quotes.
const QUOTED: usize = 200;

/// At most [`QUOTED`] characters of `s`, on one line, with how much was left out.
fn clipped(s: &str) -> String {
    let n = s.chars().count();
    let head: String = s.chars().take(QUOTED).collect();
    let head = crate::base::sanitize::one_line(&head).into_owned();
    if n > QUOTED {
        format!("{head}… ({n} characters)")
    } else {
        head
    }
}

/// Reads FOLIO JSON lines from `reader` one line at a time, so memory grows with the
/// formulas kept, not with the file; a bad line (not UTF-8, not JSON, too long) is
/// reported by `FILE:LINE` and the rest are kept.
pub fn folio_dataset_from(
    reader: impl std::io::BufRead,
    name: &str,
) -> std::io::Result<FolioDataset> {
    let shown = crate::base::sanitize::one_line(name);
    let mut names = FolioNames::default();
    let mut seen = HashSet::new();
    let mut data = Vec::new();
    let mut errors = Vec::new();
    let mut duplicates = 0;
    let mut lines = crate::base::fsread::BoundedLines::new(reader, MAX_FOLIO_LINE);
    let mut i = 0usize;
    while let Some(line) = lines.next_line()? {
        i += 1;
        let at = format!("{shown}:{i}");
        let line = match line {
            Ok(l) => l,
            Err(len) => {
                errors.push(format!(
                    "{at}: a line of {len} bytes is longer than the limit of {MAX_FOLIO_LINE}; skipped"
                ));
                continue;
            }
        };
        let i = i - 1;
        if line.trim().is_empty() {
            continue;
        }
        // Lines are read as lossy UTF-8: a replacement character marks bytes that were not.
        if line.contains('\u{FFFD}') {
            errors.push(format!("{at}: not valid UTF-8; skipped"));
            continue;
        }
        let v: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                errors.push(format!("{at}: not a JSON object: {e}"));
                continue;
            }
        };
        let mut any = false;
        for key in ["premises-FOL", "conclusion-FOL"] {
            let Some(fs) = formulas(&v, key) else {
                continue;
            };
            any = true;
            for (k, src) in fs.iter().enumerate() {
                if !seen.insert(src.clone()) {
                    duplicates += 1;
                    continue;
                }
                let f = match parse_folio(src, &mut names) {
                    Ok(f) => f,
                    Err(e) => {
                        errors.push(format!(
                            "{at}: {key}[{k}]: {} in {:?}",
                            clipped(&e.to_string()),
                            clipped(src)
                        ));
                        continue;
                    }
                };
                data.push(folio_item(f, src, key, i + 1, &v, data.len()));
            }
        }
        if !any {
            errors.push(format!(
                "{at}: no `premises-FOL` or `conclusion-FOL` (a list of strings, or one string)"
            ));
        }
    }
    let info = folio_info(name, &names, errors.len());
    Ok(FolioDataset {
        file: assemble_logic(info, data),
        errors,
        duplicates,
    })
}

/// One FOLIO formula as a dataset item: its metrics and printings, with where it came
/// from (`src` at `key` of line `line`, the record's story and example ids).
fn folio_item(f: Formula, src: &str, key: &str, line: usize, v: &Value, idx: usize) -> Item {
    let m = logic_metrics(&f);
    let e = Expr::Logic(f);
    let mut extra = Map::new();
    extra.insert("folio".into(), Value::from(src));
    extra.insert("folio_field".into(), Value::from(key));
    extra.insert("folio_line".into(), Value::from(line));
    for id in ["story_id", "example_id"] {
        if let Some(x) = v.get(id) {
            extra.insert(format!("folio_{id}"), x.clone());
        }
    }
    Item {
        idx,
        fs: e.print(Notation::Original),
        depth: None,
        num_operators: Some(m.operators),
        num_propositions: None,
        num_quantifiers: Some(m.quantifiers),
        num_predicates: Some(m.predicates),
        num_nodes: None,
        num_edges: None,
        density: None,
        batch: None,
        fs_unicode: Some(e.to_unicode()),
        fs_ascii: Some(e.print(Notation::Ascii)),
        tree_depth: Some(m.tree_depth),
        num_terminals: Some(m.terminals),
        distinct_symbols: Some(m.distinct_symbols),
        extra,
    }
}

/// The dataset's `info`: what it is, where it came from, the names renamed and the
/// lines skipped.
fn folio_info(name: &str, names: &FolioNames, skipped: usize) -> Map<String, Value> {
    let mut info = Map::new();
    info.insert("type".into(), Value::from("folio"));
    info.insert("syntax".into(), Value::from("fol"));
    info.insert("filter_field".into(), Value::from("num_operators"));
    info.insert("source".into(), Value::from(name));
    info.insert(
        "generator".into(),
        Value::from(format!(
            "autoeval {} --from-folio",
            env!("CARGO_PKG_VERSION")
        )),
    );
    info.insert(
        "renamed".into(),
        Value::Object(
            names
                .renamed()
                .into_iter()
                .map(|(a, b)| (a, Value::from(b)))
                .collect(),
        ),
    );
    info.insert("skipped".into(), Value::from(skipped));
    info
}
