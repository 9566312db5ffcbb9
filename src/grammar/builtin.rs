//! The five built-in datasets and their grammars.

use super::cfg::{Cfg, GrammarError};
use super::vocab::VocabParams;

/// Built-in dataset kinds.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum DatasetKind {
    /// 3-SAT formulas.
    Ksat,
    /// Propositional logic.
    Pl,
    /// First-order logic, synthetic vocabulary.
    Fol,
    /// First-order logic, English verbs and names.
    FolEnglish,
    /// Regular expressions.
    Regex,
}

impl DatasetKind {
    /// All built-in kinds.
    pub const ALL: [DatasetKind; 5] = [
        DatasetKind::Ksat,
        DatasetKind::Pl,
        DatasetKind::Fol,
        DatasetKind::FolEnglish,
        DatasetKind::Regex,
    ];

    /// Command-line name.
    pub fn name(self) -> &'static str {
        match self {
            DatasetKind::Ksat => "ksat",
            DatasetKind::Pl => "pl",
            DatasetKind::Fol => "fol",
            DatasetKind::FolEnglish => "fol-english",
            DatasetKind::Regex => "regex",
        }
    }

    /// The grammar file text.
    pub(crate) fn grammar_text(self) -> &'static str {
        match self {
            DatasetKind::Ksat => include_str!("builtin/ksat.cfg"),
            DatasetKind::Pl => include_str!("builtin/pl.cfg"),
            DatasetKind::Fol => include_str!("builtin/fol.cfg"),
            DatasetKind::FolEnglish => include_str!("builtin/fol-english.cfg"),
            DatasetKind::Regex => include_str!("builtin/regex.cfg"),
        }
    }

    /// The parsed grammar.
    pub fn grammar(self) -> Result<Cfg, GrammarError> {
        Cfg::parse(self.grammar_text())
    }

    /// Vocabulary defaults for this kind.
    pub fn vocab(self) -> VocabParams {
        VocabParams {
            english: self == DatasetKind::FolEnglish,
            ..VocabParams::default()
        }
    }
}
