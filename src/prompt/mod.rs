//! Prompt sets: editable templates, rendering, and the copy check.
//!
//! A prompt set is a directory of plain-text templates (see [`FILES`]) plus
//! `examples.json` for 2-shot prompts. Placeholders: `{logic_name}`,
//! `{vocabulary}`, `{examples}`, `{formula}`, `{formula2}`, `{description}`.
//! `autoeval prompts --export DIR` writes the built-in set for editing; a file
//! missing from a user directory falls back to the built-in one.

pub mod copy;
pub mod vocabulary;

pub use copy::copy_check;

use crate::syntax::{Expr, SyntaxKind};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// Template files of a prompt set.
pub const FILES: [(&str, &str); 10] = [
    (
        "informalize-logic.txt",
        include_str!("default/informalize-logic.txt"),
    ),
    (
        "autoformalize-logic.txt",
        include_str!("default/autoformalize-logic.txt"),
    ),
    (
        "informalize-regex.txt",
        include_str!("default/informalize-regex.txt"),
    ),
    (
        "autoformalize-regex.txt",
        include_str!("default/autoformalize-regex.txt"),
    ),
    ("judge.txt", include_str!("default/judge.txt")),
    ("examples.json", include_str!("default/examples.json")),
    (
        "task-folio-informalize.txt",
        include_str!("default/task-folio-informalize.txt"),
    ),
    (
        "task-folio-autoformalize.txt",
        include_str!("default/task-folio-autoformalize.txt"),
    ),
    (
        "task-folio-reasoning.txt",
        include_str!("default/task-folio-reasoning.txt"),
    ),
    (
        "task-multi-logieval.txt",
        include_str!("default/task-multi-logieval.txt"),
    ),
];

/// Whether a template file belongs to the reference tasks (`task-…`): those are hashed
/// apart, so adding them left the hash of every ∀uto∃∨∧L prompt set as it was.
pub(crate) fn is_task_file(name: &str) -> bool {
    name.starts_with("task-")
}

/// Prompt-set errors.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    /// I/O.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// Bad examples file.
    #[error(
        "{0}: {1} (expected {{\"pl\": [{{\"formula\": …, \"description\": …}}, …], \"fol\": […], \"regex\": […]}})"
    )]
    Examples(String, String),
    /// Unsupported shot count.
    #[error("--shots must be 0 or 2, not {0}")]
    Shots(usize),
    /// A template that would send a broken prompt.
    #[error("{0}")]
    Template(String),
}

/// The placeholders each template may use, and the ones it must use.
fn placeholders(file: &str) -> Option<(&'static [&'static str], &'static [&'static str])> {
    Some(match file {
        "informalize-logic.txt" | "informalize-regex.txt" => (
            &["logic_name", "vocabulary", "examples", "formula"],
            &["formula"],
        ),
        "autoformalize-logic.txt" | "autoformalize-regex.txt" => (
            &["logic_name", "vocabulary", "examples", "description"],
            &["description"],
        ),
        "judge.txt" => (
            &[
                "logic_name",
                "vocabulary",
                "examples",
                "formula",
                "formula2",
            ],
            &["formula", "formula2"],
        ),
        "task-folio-informalize.txt" => (&["vocabulary", "examples", "formula"], &["formula"]),
        "task-folio-autoformalize.txt" => {
            (&["vocabulary", "examples", "description"], &["description"])
        }
        "task-folio-reasoning.txt" | "task-multi-logieval.txt" => (
            &["examples", "premises", "conclusion"],
            &["premises", "conclusion"],
        ),
        _ => return None,
    })
}

/// Checks a template's placeholders: every `{name}` is known to this template, braces
/// are balanced, and the required ones are there. Errors name `source/file:line`.
pub(crate) fn validate_template(source: &str, file: &str, text: &str) -> Result<(), PromptError> {
    let Some((allowed, required)) = placeholders(file) else {
        return Ok(());
    };
    let mut found: Vec<&str> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |what: String| PromptError::Template(format!("{source}/{file}:{}: {what}", n + 1));
        let mut rest = line;
        while let Some(i) = rest.find(['{', '}']) {
            if rest[i..].starts_with('}') {
                return Err(at(
                    "stray '}' (placeholders are written {name}; a literal brace is not supported)"
                        .into(),
                ));
            }
            let after = &rest[i + 1..];
            let Some(j) = after.find('}') else {
                return Err(at("stray '{' without a closing '}'".into()));
            };
            let name = &after[..j];
            if !allowed.contains(&name) {
                return Err(at(format!(
                    "unknown placeholder {{{name}}}; this template may use {}",
                    allowed
                        .iter()
                        .map(|a| format!("{{{a}}}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                )));
            }
            found.push(name);
            rest = &after[j + 1..];
        }
    }
    for r in required {
        if !found.contains(r) {
            return Err(PromptError::Template(format!(
                "{source}/{file}: the template never uses {{{r}}}, so the model would not see it"
            )));
        }
    }
    Ok(())
}

/// One worked example.
#[derive(Clone, Debug, serde::Deserialize, serde::Serialize)]
pub struct Example {
    /// The formula.
    pub formula: String,
    /// Its description.
    pub description: String,
}

/// A loaded prompt set.
#[derive(Clone, Debug)]
pub struct PromptSet {
    /// Where it came from ("built-in" or a directory).
    pub source: String,
    /// Template texts by file name.
    pub files: BTreeMap<String, String>,
    /// Examples per syntax (`pl`, `fol`, `regex`).
    pub examples: BTreeMap<String, Vec<Example>>,
    /// 0 or 2.
    pub shots: usize,
    /// SHA-256 over the file names and contents, hex (the `task-` templates apart).
    pub hash: String,
    /// SHA-256 over the `task-` templates and the shot count, hex: a reference-task
    /// run's prompt hash.
    pub task_hash: String,
}

/// A rendered prompt and the id recorded in run files.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// Template id with the set's short hash, e.g. `informalize-logic@1a2b3c4d`.
    pub id: String,
    /// The prompt text.
    pub text: String,
}

fn syntax_key(s: SyntaxKind) -> &'static str {
    match s {
        SyntaxKind::Pl => "pl",
        SyntaxKind::Fol => "fol",
        SyntaxKind::Regex => "regex",
    }
}

fn logic_name(s: SyntaxKind) -> &'static str {
    match s {
        SyntaxKind::Pl => "propositional logic",
        SyntaxKind::Fol => "first-order logic",
        SyntaxKind::Regex => "regular expression",
    }
}

impl PromptSet {
    /// The built-in set.
    pub fn builtin(shots: usize) -> Result<PromptSet, PromptError> {
        let files = FILES
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        PromptSet::from_files("built-in".into(), files, shots)
    }

    /// Loads a directory; files it lacks come from the built-in set.
    pub fn load(dir: &Path, shots: usize) -> Result<PromptSet, PromptError> {
        let mut files = BTreeMap::new();
        for (name, builtin) in FILES {
            let path = dir.join(name);
            // Templates go out with every request: a stated bound, and only files.
            let max = if name == "examples.json" {
                crate::base::fsread::MAX_EXAMPLES
            } else {
                crate::base::fsread::MAX_TEMPLATE
            };
            let text = match crate::base::fsread::read_to_string(&path, max) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => builtin.to_string(),
                Err(e) => return Err(PromptError::Io(path.display().to_string(), e)),
            };
            files.insert(name.to_string(), text);
        }
        if !dir.is_dir() {
            return Err(PromptError::Io(
                dir.display().to_string(),
                std::io::Error::new(std::io::ErrorKind::NotFound, "not a directory"),
            ));
        }
        PromptSet::from_files(dir.display().to_string(), files, shots)
    }

    fn from_files(
        source: String,
        files: BTreeMap<String, String>,
        shots: usize,
    ) -> Result<PromptSet, PromptError> {
        if shots != 0 && shots != 2 {
            return Err(PromptError::Shots(shots));
        }
        for (name, text) in &files {
            validate_template(&source, name, text)?;
        }
        let ex_text = files.get("examples.json").cloned().unwrap_or_default();
        let examples: BTreeMap<String, Vec<Example>> = serde_json::from_str(&ex_text)
            .map_err(|e| PromptError::Examples(format!("{source}/examples.json"), e.to_string()))?;
        let digest = |task: bool| {
            let mut h = Sha256::new();
            for (n, t) in files.iter().filter(|(n, _)| is_task_file(n) == task) {
                h.update(n.as_bytes());
                h.update([0]);
                h.update(t.as_bytes());
                h.update([0]);
            }
            h.finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        let hash = digest(false);
        let task_hash = digest(true);
        Ok(PromptSet {
            source,
            files,
            examples,
            shots,
            hash,
            task_hash,
        })
    }

    /// Writes the built-in templates to `dir` for editing.
    pub fn export(dir: &Path) -> Result<(), PromptError> {
        std::fs::create_dir_all(dir).map_err(|e| PromptError::Io(dir.display().to_string(), e))?;
        for (name, text) in FILES {
            let p = dir.join(name);
            crate::base::fswrite::save(&p, text.as_bytes())
                .map_err(|e| PromptError::Io(p.display().to_string(), e))?;
        }
        Ok(())
    }

    fn template(&self, name: &str) -> &str {
        self.files.get(name).map_or("", String::as_str)
    }

    fn render(
        &self,
        file: &str,
        syntax: SyntaxKind,
        vocab_of: &Expr,
        fill: &[(&str, &str)],
        examples: &str,
    ) -> Rendered {
        let vocabulary = vocabulary::describe(vocab_of, syntax);
        let mut text = self.template(file).to_string();
        for (k, v) in [
            ("{logic_name}", logic_name(syntax)),
            ("{vocabulary}", vocabulary.as_str()),
            ("{examples}", examples),
        ]
        .into_iter()
        .chain(fill.iter().copied())
        {
            text = text.replace(k, v);
        }
        Rendered {
            id: format!("{}@{}", file.trim_end_matches(".txt"), &self.hash[..8]),
            text,
        }
    }

    fn examples_block(&self, syntax: SyntaxKind, informalize: bool) -> String {
        if self.shots == 0 {
            return String::new();
        }
        let list = self
            .examples
            .get(syntax_key(syntax))
            .cloned()
            .unwrap_or_default();
        let mut out = String::new();
        for (i, ex) in list.iter().take(self.shots).enumerate() {
            if informalize {
                out.push_str(&format!(
                    "\n[EXAMPLE {}]\nFormula: {}\nDescription: {}\n",
                    i + 1,
                    ex.formula,
                    ex.description
                ));
            } else {
                out.push_str(&format!(
                    "\n[EXAMPLE {}]\nDescription: {}\nFormula: {}\n",
                    i + 1,
                    ex.description,
                    ex.formula
                ));
            }
        }
        out
    }

    fn family(syntax: SyntaxKind) -> &'static str {
        if syntax == SyntaxKind::Regex {
            "regex"
        } else {
            "logic"
        }
    }

    /// The informalization prompt for φ.
    pub fn informalize(&self, phi: &Expr, syntax: SyntaxKind) -> Rendered {
        let file = format!("informalize-{}.txt", Self::family(syntax));
        let ex = self.examples_block(syntax, true);
        self.render(&file, syntax, phi, &[("{formula}", &phi.to_unicode())], &ex)
    }

    /// The autoformalization prompt for ψ (vocabulary from the original φ).
    pub fn autoformalize(&self, psi: &str, phi: &Expr, syntax: SyntaxKind) -> Rendered {
        let file = format!("autoformalize-{}.txt", Self::family(syntax));
        let ex = self.examples_block(syntax, false);
        self.render(&file, syntax, phi, &[("{description}", psi)], &ex)
    }

    /// A reference task's prompt: `file` (a `task-` template) with `fill` put in; its
    /// id carries the task templates' hash.
    pub fn task(&self, file: &str, fill: &[(&str, &str)]) -> Rendered {
        // One pass over the template: a premise that happens to contain `{conclusion}`
        // is sent as written, not filled in again.
        let template = self.template(file);
        let mut text = String::with_capacity(template.len());
        let mut rest = template;
        while let Some(i) = rest.find('{') {
            text.push_str(&rest[..i]);
            let after = &rest[i..];
            if let Some((k, v)) = fill.iter().find(|(k, _)| after.starts_with(k)) {
                text.push_str(v);
                rest = &after[k.len()..];
            } else {
                text.push('{');
                rest = &after[1..];
            }
        }
        text.push_str(rest);
        Rendered {
            id: format!("{}@{}", file.trim_end_matches(".txt"), &self.task_hash[..8]),
            text,
        }
    }

    /// The LLM-as-judge prompt for φ and φ′.
    pub fn judge(&self, a: &Expr, b: &Expr, syntax: SyntaxKind) -> Rendered {
        self.render(
            "judge.txt",
            syntax,
            a,
            &[
                ("{formula}", &a.to_unicode()),
                ("{formula2}", &b.to_unicode()),
            ],
            "",
        )
    }
}
