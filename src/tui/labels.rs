//! Hand labels: the taxonomy and append-only persistence.

use crate::run::format::{LabelRecord, now_rfc3339};
use crate::run::store::LABELS;
use std::io::Write;
use std::path::Path;

const DEFAULT: &str = include_str!("taxonomy.toml");

/// One category.
#[derive(Clone, Debug, serde::Deserialize, PartialEq)]
pub struct Category {
    /// Stable id written to labels.jsonl.
    pub id: String,
    /// The key that toggles it.
    pub key: String,
    /// informalization, autoformalization or verdict.
    pub side: String,
    /// Display name.
    pub name: String,
    /// One-line explanation.
    #[serde(default)]
    pub help: String,
}

/// The taxonomy.
#[derive(Clone, Debug, serde::Deserialize, PartialEq)]
pub struct Taxonomy {
    /// Categories in display order.
    #[serde(rename = "category")]
    pub categories: Vec<Category>,
}

impl Taxonomy {
    /// The shipped taxonomy.
    pub fn builtin() -> Taxonomy {
        toml::from_str(DEFAULT).unwrap_or(Taxonomy { categories: vec![] })
    }

    /// Loads a taxonomy file; problems fall back to the built-in one with a warning.
    /// `reserved` are the keys label mode binds (a category may not take one).
    pub fn load(path: Option<&Path>, reserved: &[String]) -> (Taxonomy, Vec<String>) {
        let path = match path {
            Some(p) => p.to_path_buf(),
            None => match super::theme::config_dir().map(|d| d.join("taxonomy.toml")) {
                Some(p) if p.exists() => p,
                _ => return (Taxonomy::builtin(), vec![]),
            },
        };
        let text = match crate::fsread::read_to_string(&path, crate::fsread::MAX_SMALL) {
            Ok(t) => t,
            Err(e) => {
                return (
                    Taxonomy::builtin(),
                    vec![format!(
                        "{}: {e}; using the built-in taxonomy",
                        path.display()
                    )],
                );
            }
        };
        match toml::from_str::<Taxonomy>(&text) {
            Ok(t) => {
                let mut seen = std::collections::HashSet::new();
                for c in &t.categories {
                    if reserved.contains(&c.key) || !seen.insert(c.key.clone()) {
                        return (
                            Taxonomy::builtin(),
                            vec![format!(
                                "{}: key '{}' of '{}' is reserved or used twice (reserved: {}); using the built-in taxonomy",
                                path.display(),
                                c.key,
                                c.id,
                                reserved.join(" ")
                            )],
                        );
                    }
                }
                (t, vec![])
            }
            Err(e) => (
                Taxonomy::builtin(),
                vec![format!(
                    "{}: {e}; using the built-in taxonomy",
                    path.display()
                )],
            ),
        }
    }

    /// The category a key toggles.
    pub fn by_key(&self, key: &str) -> Option<&Category> {
        self.categories.iter().find(|c| c.key == key)
    }

    /// Display name of an id (the id itself if unknown).
    pub fn name<'a>(&'a self, id: &'a str) -> &'a str {
        self.categories
            .iter()
            .find(|c| c.id == id)
            .map_or(id, |c| c.name.as_str())
    }
}

/// Who is labelling: config, then $AUTOEVAL_ANNOTATOR, then $USER.
pub fn annotator(config: Option<&str>) -> String {
    config
        .map(str::to_string)
        .or_else(|| std::env::var("AUTOEVAL_ANNOTATOR").ok())
        .or_else(|| std::env::var("USER").ok())
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "anonymous".into())
}

/// Appends one label record to the run's `labels.jsonl` under an exclusive file lock,
/// so two viewers labelling the same run never interleave their lines.
pub fn append(
    dir: &Path,
    id: &str,
    categories: &[String],
    note: &str,
    annotator: &str,
) -> Result<LabelRecord, LabelError> {
    let rec = LabelRecord {
        id: id.to_string(),
        categories: categories.to_vec(),
        note: note.to_string(),
        annotator: annotator.to_string(),
        time: now_rfc3339(),
    };
    let path = dir.join(LABELS);
    let io = |e| LabelError::Io(path.display().to_string(), e);
    let mut line = serde_json::to_vec(&rec).map_err(|e| io(e.into()))?;
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .open(&path)
        .map_err(io)?;
    f.lock()
        .map_err(|e| LabelError::Lock(path.display().to_string(), e))?;
    // A half-written last line (a crash mid-append) must not swallow this label:
    // start a new line first. Checked under the lock, so appenders agree.
    let torn = {
        use std::io::{Read, Seek, SeekFrom};
        let len = f.metadata().map_or(0, |m| m.len());
        let mut last = [b'\n'];
        len > 0
            && f.seek(SeekFrom::Start(len - 1)).is_ok()
            && f.read_exact(&mut last).is_ok()
            && last[0] != b'\n'
    };
    if torn {
        line.insert(0, b'\n');
    }
    let r = f.write_all(&line).and_then(|()| f.sync_data());
    let _ = f.unlock();
    r.map_err(io)?;
    Ok(rec)
}

/// A label that could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum LabelError {
    /// Writing `labels.jsonl`.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// Locking it against another viewer.
    #[error("{0}: cannot lock: {1}")]
    Lock(String, std::io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_taxonomy_is_complete_and_keys_are_unique() {
        let t = Taxonomy::builtin();
        assert!(t.categories.len() >= 15);
        let keys: std::collections::HashSet<_> =
            t.categories.iter().map(|c| c.key.clone()).collect();
        assert_eq!(keys.len(), t.categories.len());
        for id in [
            "lucky-pass",
            "verifier-disagrees",
            "negation-misplaced",
            "term-omitted",
            "star-misplaced",
        ] {
            assert!(t.categories.iter().any(|c| c.id == id), "{id}");
        }
        let reserved =
            crate::tui::keymap::Keymap::default().key_names(crate::tui::keymap::Context::Label);
        assert!(t.categories.iter().all(|c| !reserved.contains(&c.key)));
    }

    #[test]
    fn bad_taxonomy_falls_back() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.toml");
        std::fs::write(
            &p,
            "[[category]]\nid = \"x\"\nkey = \"n\"\nside = \"s\"\nname = \"x\"\n",
        )
        .unwrap();
        let reserved =
            crate::tui::keymap::Keymap::default().key_names(crate::tui::keymap::Context::Label);
        let (t, w) = Taxonomy::load(Some(&p), &reserved);
        assert_eq!(t, Taxonomy::builtin());
        assert!(w[0].contains("reserved"), "{w:?}");
    }
}
