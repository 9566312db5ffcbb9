//! The reference tasks (the paper's §A1, Appendix K) as one closed kind: its name in
//! `run.json`, `samples.jsonl` and `--task`, the data it reads, its prompt template and
//! how its samples read. It sits as low as the lowest reader (`record` stores it); the
//! facts that need the analysis layer (labels, scoring) are in `run::task`.
//!
//! A name is parsed here once, where it enters (a flag, `run.json`, a sample line); an
//! unknown name is refused there with the list of known ones, so every `match` on a
//! [`TaskKind`] elsewhere is exhaustive.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::path::{Path, PathBuf};

/// A reference task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum TaskKind {
    /// FOLIO: English premises and conclusion → True/False/Uncertain (Prompt 11).
    #[value(name = "folio-r-nl")]
    FolioRNl,
    /// FOLIO: premises-FOL and conclusion-FOL → True/False/Uncertain (Prompt 12).
    #[value(name = "folio-r-fol")]
    FolioRFol,
    /// FOLIO: autoformalize each English premise, verified against its premise-FOL (Prompt 10).
    #[value(name = "folio-a")]
    FolioA,
    /// FOLIO: informalize each premise-FOL, scored against the English premise (Prompt 9).
    #[value(name = "folio-i")]
    FolioI,
    /// Multi-LogiEval propositional logic, depths 1–5: context + question → yes/no (Prompt 13).
    #[value(name = "multi-logieval-pl")]
    MultiLogievalPl,
    /// Multi-LogiEval first-order logic, depths 1–5 (Prompt 13).
    #[value(name = "multi-logieval-fol")]
    MultiLogievalFol,
}

/// Which data files a task reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskFiles {
    /// FOLIO's JSON-lines file (stories with premises, premise-FOL and conclusions).
    Folio,
    /// Multi-LogiEval's folder (`d1_Data` … `d5_Data`), the items of one logic (`pl`, `fol`).
    MultiLogieval(&'static str),
}

/// What one sample of a task is, and where its reply is recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskShape {
    /// A question answered with a label (the call sits in the round's `informalize` slot).
    Reasoning,
    /// A FOLIO premise to autoformalize: FOLIO's English premise is ψ, the call sits in
    /// `autoformalize` and its formula is verified against the premise-FOL.
    Autoformalize,
    /// A FOLIO premise-FOL to informalize: the reply is ψ, scored by text metrics.
    Informalize,
}

impl TaskKind {
    /// Every task.
    pub const ALL: [TaskKind; 6] = [
        TaskKind::FolioRNl,
        TaskKind::FolioRFol,
        TaskKind::FolioA,
        TaskKind::FolioI,
        TaskKind::MultiLogievalPl,
        TaskKind::MultiLogievalFol,
    ];

    /// The task's name (`folio-r-nl`): the flag's value and what run files store.
    pub fn name(self) -> &'static str {
        match self {
            TaskKind::FolioRNl => "folio-r-nl",
            TaskKind::FolioRFol => "folio-r-fol",
            TaskKind::FolioA => "folio-a",
            TaskKind::FolioI => "folio-i",
            TaskKind::MultiLogievalPl => "multi-logieval-pl",
            TaskKind::MultiLogievalFol => "multi-logieval-fol",
        }
    }

    /// The task a name names.
    pub fn from_name(s: &str) -> Option<TaskKind> {
        TaskKind::ALL.into_iter().find(|t| t.name() == s)
    }

    /// Every task's name, comma-separated (for messages that list them).
    pub fn names() -> String {
        TaskKind::ALL.map(TaskKind::name).join(", ")
    }

    /// What a sample of the task is.
    pub fn shape(self) -> TaskShape {
        match self {
            TaskKind::FolioRNl
            | TaskKind::FolioRFol
            | TaskKind::MultiLogievalPl
            | TaskKind::MultiLogievalFol => TaskShape::Reasoning,
            TaskKind::FolioA => TaskShape::Autoformalize,
            TaskKind::FolioI => TaskShape::Informalize,
        }
    }

    /// The data it reads.
    pub fn files(self) -> TaskFiles {
        match self {
            TaskKind::FolioRNl | TaskKind::FolioRFol | TaskKind::FolioA | TaskKind::FolioI => {
                TaskFiles::Folio
            }
            TaskKind::MultiLogievalPl => TaskFiles::MultiLogieval("pl"),
            TaskKind::MultiLogievalFol => TaskFiles::MultiLogieval("fol"),
        }
    }

    /// The category field of its samples: depth (Multi-LogiEval), operator count (FOLIO).
    pub fn filter_field(self) -> &'static str {
        match self.files() {
            TaskFiles::MultiLogieval(_) => "depth",
            TaskFiles::Folio => "num_operators",
        }
    }

    /// The template file its prompt comes from.
    pub fn template(self) -> &'static str {
        match self {
            TaskKind::FolioRNl | TaskKind::FolioRFol => "task-folio-reasoning.txt",
            TaskKind::FolioA => "task-folio-autoformalize.txt",
            TaskKind::FolioI => "task-folio-informalize.txt",
            TaskKind::MultiLogievalPl | TaskKind::MultiLogievalFol => "task-multi-logieval.txt",
        }
    }

    /// The syntax its formulas are in.
    pub fn syntax(self) -> crate::syntax::SyntaxKind {
        use crate::syntax::SyntaxKind;
        match self {
            TaskKind::MultiLogievalPl => SyntaxKind::Pl,
            TaskKind::FolioRNl
            | TaskKind::FolioRFol
            | TaskKind::FolioA
            | TaskKind::FolioI
            | TaskKind::MultiLogievalFol => SyntaxKind::Fol,
        }
    }

    /// Whether a reasoning question shows FOLIO's premise-FOL and conclusion-FOL instead
    /// of the English sentences.
    pub fn shows_fol(self) -> bool {
        match self {
            TaskKind::FolioRFol => true,
            TaskKind::FolioRNl
            | TaskKind::FolioA
            | TaskKind::FolioI
            | TaskKind::MultiLogievalPl
            | TaskKind::MultiLogievalFol => false,
        }
    }

    /// The viewer's words for an item's premises and for what is asked about them.
    pub fn item_words(self) -> (&'static str, &'static str) {
        match (self.files(), self.shape()) {
            (TaskFiles::MultiLogieval(_), _) => ("context", "question"),
            (TaskFiles::Folio, TaskShape::Reasoning) => ("premises", "conclusion"),
            (TaskFiles::Folio, TaskShape::Autoformalize | TaskShape::Informalize) => {
                ("premises", "premise")
            }
        }
    }

    /// The shipped data it reads by default under `root` (the project's `data/`).
    pub fn default_source(self, root: &Path) -> PathBuf {
        match self.files() {
            TaskFiles::MultiLogieval(_) => root.join("multi-logieval"),
            TaskFiles::Folio => root.join("folio").join("folio-v0.0-validation.jsonl"),
        }
    }
}

/// Stored as its name.
impl Serialize for TaskKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Read from its name; another name is refused with the names this version knows.
impl<'de> Deserialize<'de> for TaskKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        TaskKind::from_name(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown reference task `{}`: this version knows {}",
                crate::base::sanitize::one_line(&s.chars().take(64).collect::<String>()),
                TaskKind::names()
            ))
        })
    }
}

impl std::fmt::Display for TaskKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_serde_and_flags_agree_for_every_task() {
        use clap::ValueEnum;
        // `ALL` is written by hand: the derive's list catches a task left out of it.
        assert_eq!(TaskKind::value_variants(), &TaskKind::ALL);
        for t in TaskKind::ALL {
            assert_eq!(TaskKind::from_name(t.name()), Some(t));
            let json = serde_json::to_string(&t).unwrap();
            assert_eq!(json, format!("\"{}\"", t.name()));
            assert_eq!(serde_json::from_str::<TaskKind>(&json).unwrap(), t);
            let flag = t.to_possible_value().unwrap();
            assert_eq!(flag.get_name(), t.name());
        }
        let e = serde_json::from_str::<TaskKind>("\"folio-z\"")
            .unwrap_err()
            .to_string();
        for t in TaskKind::ALL {
            assert!(e.contains(t.name()), "{e}");
        }
    }
}
