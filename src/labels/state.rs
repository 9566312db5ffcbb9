//! A label's life as one state machine. [`LabelState::fold`] reads an annotator's
//! history of a sample into its state, and [`edit`] decides what one edit writes: every
//! viewer key and CLI command goes through these two, so no path can record a verdict
//! nobody gave ("reviewed, nothing wrong" is written only by its own edit).

use crate::record::LabelRecord;
use std::collections::BTreeMap;

/// Where one annotator's label on one sample stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LabelState {
    /// Never labelled.
    #[default]
    None,
    /// One or more categories named, with a note.
    Categories {
        /// The categories (never empty).
        categories: Vec<String>,
        /// The note.
        note: String,
    },
    /// Reviewed, nothing wrong (an empty category list on file), with a note.
    NothingWrong {
        /// The note.
        note: String,
    },
    /// Taken back; the note the retraction kept, if any.
    Retracted {
        /// A note typed before the label was taken back (kept, never counted).
        note: String,
    },
}

impl LabelState {
    /// The state after one record of this (sample, annotator).
    #[must_use]
    pub fn then(self, rec: &LabelRecord) -> LabelState {
        if rec.retract {
            LabelState::Retracted {
                note: rec.note.clone(),
            }
        } else if rec.categories.is_empty() {
            LabelState::NothingWrong {
                note: rec.note.clone(),
            }
        } else {
            LabelState::Categories {
                categories: rec.categories.clone(),
                note: rec.note.clone(),
            }
        }
    }

    /// Folds one (sample, annotator)'s records, in file order, into the state.
    pub fn fold<'a>(history: impl IntoIterator<Item = &'a LabelRecord>) -> LabelState {
        history.into_iter().fold(LabelState::None, LabelState::then)
    }

    /// The label in force (categories, note): None when there is none.
    pub fn in_force(&self) -> Option<(&[String], &str)> {
        match self {
            LabelState::Categories { categories, note } => Some((categories, note)),
            LabelState::NothingWrong { note } => Some((&[], note)),
            LabelState::None | LabelState::Retracted { .. } => None,
        }
    }

    /// The categories in force (empty when none, or nothing wrong).
    pub fn categories(&self) -> &[String] {
        self.in_force().map_or(&[], |(c, _)| c)
    }

    /// The note in force, or a retracted label's kept note.
    pub fn note(&self) -> &str {
        match self {
            LabelState::Categories { note, .. }
            | LabelState::NothingWrong { note }
            | LabelState::Retracted { note } => note,
            LabelState::None => "",
        }
    }
}

/// Every (sample, annotator)'s state, folded from a run's records in file order.
pub fn fold(records: &[LabelRecord]) -> BTreeMap<(String, String), LabelState> {
    let mut m: BTreeMap<(String, String), LabelState> = BTreeMap::new();
    for r in records {
        let s = m.entry((r.id.clone(), r.annotator.clone())).or_default();
        *s = std::mem::take(s).then(r);
    }
    m
}

/// The record in force per (sample, annotator): the newest, unless a retraction came
/// after it. What `labels stats`, `labels export`, `labels retract`, the viewer and the
/// metric–human correlation count.
pub fn latest(records: &[LabelRecord]) -> BTreeMap<(String, String), LabelRecord> {
    let mut m: BTreeMap<(String, String), LabelRecord> = BTreeMap::new();
    for ((id, who), state) in fold(records) {
        if state.in_force().is_none() {
            continue;
        }
        // The newest record of the pair is the one that made the state.
        if let Some(r) = records
            .iter()
            .rev()
            .find(|r| r.id == id && r.annotator == who)
        {
            m.insert((id, who), r.clone());
        }
    }
    m
}

/// One edit of a label, as a key or command asks for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Name a category, or take it back if named (a category key).
    Toggle(String),
    /// Set the note (the note field's Enter).
    Note(String),
    /// Reviewed, nothing wrong (its own key); `confirmed` once the annotator agreed to
    /// replace the categories named.
    NothingWrong {
        /// The annotator said yes to replacing named categories.
        confirmed: bool,
    },
    /// Take the label back (`labels retract`).
    Retract,
    /// Put the label back as it was (undo).
    Restore(LabelState),
}

/// What an edit comes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Append this label: categories (empty only for nothing wrong) and note.
    Write {
        /// Categories.
        categories: Vec<String>,
        /// Note.
        note: String,
    },
    /// Append a retraction keeping this note.
    Retract {
        /// A note typed meanwhile (kept in the record, never counted).
        note: String,
    },
    /// Nothing to write: the note stays in the form as a draft until a category or
    /// "nothing wrong" records it.
    Draft(String),
    /// Ask first: "nothing wrong" would replace these categories.
    Ask(Vec<String>),
    /// Nothing changes (the reason, for the status line).
    Unchanged(&'static str),
}

/// What `edit` does to a label in `state`; `draft` is a note typed while there was no
/// label in force (it goes with the first category or "nothing wrong").
pub fn edit(state: &LabelState, draft: &str, e: Edit) -> Step {
    // With no label in force the note is the draft (a retraction's note is put back
    // there by the viewer; a draft the annotator cleared stays cleared).
    let note = match state.in_force() {
        Some((_, n)) => n.to_string(),
        None => draft.to_string(),
    };
    match e {
        Edit::Toggle(c) => {
            let mut cats = state.categories().to_vec();
            if let Some(p) = cats.iter().position(|x| *x == c) {
                cats.remove(p);
                if cats.is_empty() {
                    // Unticking the last category takes the label back; the note goes
                    // with the retraction (and stays in the form), never into an
                    // empty-category label, which would read "nothing wrong".
                    return Step::Retract { note };
                }
            } else {
                cats.push(c);
            }
            Step::Write {
                categories: cats,
                note,
            }
        }
        Edit::Note(text) => match state {
            LabelState::Categories { categories, .. } => Step::Write {
                categories: categories.clone(),
                note: text,
            },
            LabelState::NothingWrong { .. } => Step::Write {
                categories: vec![],
                note: text,
            },
            LabelState::None | LabelState::Retracted { .. } => Step::Draft(text),
        },
        Edit::NothingWrong { confirmed } => match state {
            LabelState::NothingWrong { .. } => {
                Step::Unchanged("already labelled reviewed, nothing wrong")
            }
            LabelState::Categories { categories, .. } if !confirmed => {
                Step::Ask(categories.clone())
            }
            LabelState::Categories { .. } | LabelState::None | LabelState::Retracted { .. } => {
                Step::Write {
                    categories: vec![],
                    note,
                }
            }
        },
        Edit::Retract => match state.in_force() {
            Some(_) => Step::Retract {
                note: String::new(),
            },
            None => Step::Unchanged("no label in force to take back"),
        },
        Edit::Restore(to) => match to {
            _ if to == *state => Step::Unchanged("the label is already as it was"),
            LabelState::Categories { categories, note } => Step::Write { categories, note },
            LabelState::NothingWrong { note } => Step::Write {
                categories: vec![],
                note,
            },
            LabelState::None | LabelState::Retracted { .. } if state.in_force().is_none() => {
                Step::Unchanged("the label is already as it was")
            }
            LabelState::None => Step::Retract {
                note: String::new(),
            },
            LabelState::Retracted { note } => Step::Retract { note },
        },
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
