//! The adjudication layer's state: one sample's labels by annotator side by side, and
//! the settled set being picked (cursor over the categories anyone named; a category
//! key adds any other).

use super::super::keymap::{Action, Context};
use super::Effect;
use crate::record::LabelRecord;
use std::collections::BTreeSet;

/// One annotator's label as the layer shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opinion {
    /// Who.
    pub annotator: String,
    /// The categories they named.
    pub categories: Vec<String>,
    /// Their note.
    pub note: String,
    /// Whether they labelled blind.
    pub blind: bool,
}

/// The sample being settled and the pick so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adjudication {
    /// Index of the run.
    pub run: usize,
    /// Sample id.
    pub id: String,
    /// Each annotator's label, adjudicated aside, by name.
    pub opinions: Vec<Opinion>,
    /// The label settled earlier, if any (categories, who settled it).
    pub settled: Option<(Vec<String>, String)>,
    /// The categories on offer: every one an annotator named or the pick holds, in
    /// taxonomy order (unknown ids last).
    pub options: Vec<String>,
    /// The settled set being picked.
    pub chosen: BTreeSet<String>,
    /// The option under the cursor.
    pub cursor: usize,
}

impl Adjudication {
    /// The keymap context whose bindings drive it.
    pub const CONTEXT: Context = Context::Adjudicate;

    /// Opens on a sample's latest labels. The pick starts from the earlier settled
    /// label, else from what every annotator named (their intersection).
    pub fn new(run: usize, id: &str, labels: &[LabelRecord], taxonomy: &[String]) -> Self {
        let (unit, settled) = crate::labels::agreement::split(labels);
        let mut opinions: Vec<Opinion> = labels
            .iter()
            .filter(|l| l.annotator != crate::labels::ADJUDICATED)
            .map(|l| Opinion {
                annotator: l.annotator.clone(),
                categories: l.categories.clone(),
                note: l.note.clone(),
                blind: l.blind,
            })
            .collect();
        opinions.sort_by(|a, b| a.annotator.cmp(&b.annotator));
        let chosen: BTreeSet<String> = if let Some(s) = settled {
            s.categories.iter().cloned().collect()
        } else {
            let mut sets = unit.values();
            let first = sets.next().cloned().unwrap_or_default();
            sets.fold(first, |acc, s| acc.intersection(s).cloned().collect())
        };
        let mut a = Adjudication {
            run,
            id: id.to_string(),
            opinions,
            settled: settled.map(|s| {
                (
                    s.categories.clone(),
                    s.adjudicator.clone().unwrap_or_else(|| "unknown".into()),
                )
            }),
            options: Vec::new(),
            chosen,
            cursor: 0,
        };
        a.set_options(taxonomy);
        a
    }

    fn set_options(&mut self, taxonomy: &[String]) {
        let named: BTreeSet<&String> = self
            .opinions
            .iter()
            .flat_map(|o| o.categories.iter())
            .chain(self.chosen.iter())
            .collect();
        let mut options: Vec<String> = taxonomy
            .iter()
            .filter(|c| named.contains(c))
            .cloned()
            .collect();
        options.extend(named.into_iter().filter(|c| !taxonomy.contains(c)).cloned());
        self.options = options;
        self.cursor = self.cursor.min(self.options.len().saturating_sub(1));
    }

    /// Ticks or unticks a category (a category key); one nobody named joins the options.
    pub(crate) fn toggle(&mut self, id: &str, taxonomy: &[String]) {
        if !self.chosen.remove(id) {
            self.chosen.insert(id.to_string());
        }
        self.set_options(taxonomy);
        if let Some(k) = self.options.iter().position(|c| c == id) {
            self.cursor = k;
        }
    }

    /// Who named a category.
    pub(crate) fn named_by(&self, id: &str) -> Vec<&str> {
        self.opinions
            .iter()
            .filter(|o| o.categories.iter().any(|c| c == id))
            .map(|o| o.annotator.as_str())
            .collect()
    }

    /// Handles an action of the adjudicate context: `Confirm` asks the app to record
    /// the pick, `Close` to leave without recording.
    pub fn handle(&mut self, a: Action, taxonomy: &[String]) -> Effect {
        let n = self.options.len();
        match a {
            Action::Up if n > 0 => self.cursor = (self.cursor + n - 1) % n,
            Action::Down if n > 0 => self.cursor = (self.cursor + 1) % n,
            Action::Toggle => {
                if let Some(id) = self.options.get(self.cursor).cloned() {
                    self.toggle(&id, taxonomy);
                }
            }
            Action::Confirm => return Effect::Confirm,
            Action::Back | Action::Cancel => return Effect::Close,
            _ => {}
        }
        Effect::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(who: &str, cats: &[&str]) -> LabelRecord {
        LabelRecord {
            id: "7".into(),
            categories: cats.iter().map(|c| (*c).to_string()).collect(),
            note: String::new(),
            annotator: who.into(),
            time: String::new(),
            blind: false,
            adjudicator: None,
            retract: false,
        }
    }

    #[test]
    fn starts_from_the_intersection_and_ticks_by_cursor_or_key() {
        let tax: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let labels = [rec("bob", &["c", "a"]), rec("alice", &["a", "b"])];
        let mut a = Adjudication::new(0, "7", &labels, &tax);
        assert_eq!(a.opinions[0].annotator, "alice", "by name");
        assert_eq!(a.options, ["a", "b", "c"]);
        assert_eq!(a.chosen, ["a".to_string()].into());
        assert_eq!(a.named_by("a"), ["alice", "bob"]);
        a.handle(Action::Down, &tax);
        a.handle(Action::Toggle, &tax);
        assert!(a.chosen.contains("b"));
        a.toggle("d", &tax);
        assert_eq!(a.options, ["a", "b", "c", "d"]);
        assert_eq!(a.cursor, 3);
        assert_eq!(a.handle(Action::Confirm, &tax), Effect::Confirm);
        assert_eq!(a.handle(Action::Back, &tax), Effect::Close);
        // An earlier settled label is where the pick starts.
        let mut settled = rec("adjudicated", &["c"]);
        settled.adjudicator = Some("carol".into());
        let a = Adjudication::new(0, "7", &[labels[0].clone(), settled], &tax);
        assert_eq!(a.chosen, ["c".to_string()].into());
        assert_eq!(
            a.settled,
            Some((vec!["c".to_string()], "carol".to_string()))
        );
    }
}
