//! The reference tasks' data (the paper's §A1): FOLIO records (premises in English and
//! FOL, a conclusion, a True/False/Uncertain label) and Multi-LogiEval items (a context, a
//! question, a yes/no answer, a depth), read into one item shape. Files are bounded,
//! bad lines are reported with their file and line and the rest kept, and a file that is
//! not UTF-8 is read as ISO-8859-1 (as Multi-LogiEval's own loader reads every file),
//! with a note naming it.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// Largest task file read (FOLIO validation is 170 KB, a Multi-LogiEval file ≤ 40 KB).
pub const MAX_FILE: u64 = 64 << 20;

/// Longest text of one field kept (a premise, a context, a question).
const MAX_FIELD: usize = 64 * 1024;

/// One item of a reference task.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskItem {
    /// Stable id within the task (`story-example` for FOLIO, `d3/pl/HS_MP_MP/7`).
    pub id: String,
    /// Premises in English (FOLIO) or the context as one premise (Multi-LogiEval).
    pub premises: Vec<String>,
    /// Premises in FOLIO's FOL notation (empty for Multi-LogiEval).
    pub premises_fol: Vec<String>,
    /// The conclusion (FOLIO) or the question (Multi-LogiEval).
    pub conclusion: String,
    /// The conclusion in FOL, when the record has it.
    pub conclusion_fol: Option<String>,
    /// The gold label as the file writes it (normalised when scored).
    pub gold: String,
    /// Multi-LogiEval's depth (1–5); None for FOLIO.
    pub depth: Option<u32>,
    /// Multi-LogiEval's rule combination (`HS_MP_MP`).
    pub rule: Option<String>,
}

/// Items read, and what was left out or read with a caveat (`FILE:LINE: why`).
#[derive(Debug, Default)]
pub struct TaskData {
    /// The items, in file order.
    pub items: Vec<TaskItem>,
    /// Lines or files left out, with why.
    pub errors: Vec<String>,
    /// Files read with a caveat (not UTF-8, read as ISO-8859-1).
    pub notes: Vec<String>,
}

/// Text of a file: UTF-8, else ISO-8859-1 (every byte one character) with a note.
fn text_of(path: &Path, notes: &mut Vec<String>) -> Result<String, String> {
    let bytes = crate::base::fsread::read(path, MAX_FILE)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            notes.push(format!(
                "{}: not valid UTF-8 (first bad byte at {}); read as ISO-8859-1, as the authors' loader does",
                path.display(),
                e.utf8_error().valid_up_to()
            ));
            e.into_bytes().iter().map(|&b| char::from(b)).collect()
        }
    })
}

fn field(v: &Value, key: &str) -> Option<String> {
    let s = v.get(key)?.as_str()?;
    let mut cut = s.len().min(MAX_FIELD);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    Some(s[..cut].trim().to_string())
}

fn list(v: &Value, key: &str) -> Vec<String> {
    match v.get(key) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str())
            .map(|s| s.trim().to_string())
            .collect(),
        Some(Value::String(s)) => s
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// Reads a FOLIO JSON-lines file (one record per line).
pub fn load_folio(path: &Path) -> TaskData {
    let mut d = TaskData::default();
    let text = match text_of(path, &mut d.notes) {
        Ok(t) => t,
        Err(e) => {
            d.errors.push(e);
            return d;
        }
    };
    let quote = |s: &str| {
        crate::base::sanitize::one_line(&s.chars().take(80).collect::<String>()).into_owned()
    };
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("{}:{}", path.display(), i + 1);
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                d.errors
                    .push(format!("{at}: not JSON ({e}): {}…", quote(line)));
                continue;
            }
        };
        let (Some(conclusion), Some(gold)) = (field(&v, "conclusion"), field(&v, "label")) else {
            d.errors.push(format!("{at}: no `conclusion` or `label`"));
            continue;
        };
        let premises = list(&v, "premises");
        if premises.is_empty() {
            d.errors.push(format!("{at}: no `premises`"));
            continue;
        }
        let num = |k: &str| v.get(k).and_then(Value::as_u64);
        let id = match (num("story_id"), num("example_id")) {
            (Some(s), Some(e)) => format!("{s}-{e}"),
            _ => format!("{}", i + 1),
        };
        d.items.push(TaskItem {
            id,
            premises,
            premises_fol: list(&v, "premises-FOL"),
            conclusion,
            conclusion_fol: field(&v, "conclusion-FOL"),
            gold,
            depth: None,
            rule: None,
        });
    }
    d
}

/// Reads Multi-LogiEval's `logic` (`pl` or `fol`) items of depths 1–5 under `root`
/// (`d{1..5}_Data/{logic}/*.json`), files in name order.
pub fn load_multi_logieval(root: &Path, logic: &str) -> TaskData {
    let mut d = TaskData::default();
    // A file is read only if it really lies under `root`: a link out of the data
    // folder (to a private file, say) is left out and named.
    let home = std::fs::canonicalize(root).ok();
    let inside = |f: &Path| {
        std::fs::canonicalize(f)
            .ok()
            .zip(home.as_ref())
            .is_some_and(|(f, h)| f.starts_with(h))
    };
    for depth in 1..=5u32 {
        let dir = root.join(format!("d{depth}_Data")).join(logic);
        let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(rd) => rd
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect(),
            Err(e) => {
                d.errors.push(format!("{}: {e}", dir.display()));
                continue;
            }
        };
        files.sort();
        for f in files {
            if !inside(&f) {
                d.errors.push(format!(
                    "{}: a link out of {}; not read",
                    f.display(),
                    root.display()
                ));
                continue;
            }
            let text = match text_of(&f, &mut d.notes) {
                Ok(t) => t,
                Err(e) => {
                    d.errors.push(e);
                    continue;
                }
            };
            let v: Value = match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(e) => {
                    d.errors
                        .push(format!("{}:{}: not JSON ({e})", f.display(), e.line()));
                    continue;
                }
            };
            let rule = field(&v, "rule").unwrap_or_else(|| {
                f.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
            let samples = v
                .get("samples")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if samples.is_empty() {
                d.errors.push(format!("{}: no `samples`", f.display()));
            }
            for (k, s) in samples.iter().enumerate() {
                let (Some(context), Some(question), Some(gold)) = (
                    field(s, "context"),
                    field(s, "question"),
                    field(s, "answer"),
                ) else {
                    d.errors.push(format!(
                        "{}: sample {}: no `context`, `question` or `answer`",
                        f.display(),
                        k + 1
                    ));
                    continue;
                };
                let n = s
                    .get("id")
                    .and_then(Value::as_u64)
                    .map_or(k as u64 + 1, |x| x);
                d.items.push(TaskItem {
                    id: format!("d{depth}/{logic}/{rule}/{n}"),
                    premises: vec![context],
                    premises_fol: Vec::new(),
                    conclusion: question,
                    conclusion_fol: None,
                    gold,
                    depth: Some(depth),
                    rule: Some(rule.clone()),
                });
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(p: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(p)
    }

    #[test]
    fn the_shipped_folio_validation_split_reads_whole() {
        let d = load_folio(&data("folio/folio-v0.0-validation.jsonl"));
        assert!(d.errors.is_empty() && d.notes.is_empty(), "{:?}", d.errors);
        assert_eq!(d.items.len(), 204);
        let first = &d.items[0];
        assert_eq!(first.premises.len(), first.premises_fol.len());
        assert!(first.conclusion_fol.is_some());
        let labels: std::collections::BTreeSet<&str> =
            d.items.iter().map(|i| i.gold.as_str()).collect();
        assert_eq!(labels, ["False", "True", "Uncertain"].into());
    }

    #[cfg(unix)]
    #[test]
    fn a_data_file_linked_from_outside_the_folder_is_not_read() {
        let d = tempfile::tempdir().unwrap();
        let secret = d.path().join("secret.json");
        std::fs::write(
            &secret,
            r#"{"samples":[{"context":"c","question":"q","answer":"yes"}]}"#,
        )
        .unwrap();
        let root = d.path().join("mle");
        let dir = root.join("d1_Data").join("pl");
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(&secret, dir.join("HS.json")).unwrap();
        let got = load_multi_logieval(&root, "pl");
        assert!(got.items.is_empty(), "{:?}", got.items);
        assert!(
            got.errors.iter().any(|e| e.contains("a link out of")),
            "{:?}",
            got.errors
        );
    }

    #[test]
    fn the_shipped_multi_logieval_reads_every_sample_and_names_the_latin_1_files() {
        let root = data("multi-logieval");
        let pl = load_multi_logieval(&root, "pl");
        let fol = load_multi_logieval(&root, "fol");
        assert!(
            pl.errors.is_empty() && fol.errors.is_empty(),
            "{:?} {:?}",
            pl.errors,
            fol.errors
        );
        // The paper's counts (Appendix K.2): 525 PL and 535 FOL samples.
        assert_eq!((pl.items.len(), fol.items.len()), (525, 535));
        assert_eq!(pl.notes.len(), 2, "{:?}", pl.notes);
        assert!(pl.notes.iter().any(|n| n.contains("CT.json")));
        let depths: std::collections::BTreeSet<u32> =
            pl.items.iter().filter_map(|i| i.depth).collect();
        assert_eq!(depths, (1..=5).collect());
    }

    #[test]
    fn a_bad_folio_line_is_reported_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.jsonl");
        std::fs::write(
            &p,
            "{\"premises\": [\"A.\"], \"conclusion\": \"B.\", \"label\": \"True\"}\n{oops\n\
             {\"premises\": [], \"conclusion\": \"B.\", \"label\": \"True\"}\n",
        )
        .unwrap();
        let d = load_folio(&p);
        assert_eq!(d.items.len(), 1);
        assert_eq!(d.errors.len(), 2);
        assert!(
            d.errors[0].contains("f.jsonl:2: not JSON"),
            "{:?}",
            d.errors
        );
    }
}
