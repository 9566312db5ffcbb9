//! Keys in label mode and in the adjudication layer: label edits through the labels'
//! state machine, undo, and settling two annotators' labels.

use super::App;
use crate::tui::components::Effect;
use crate::tui::keymap::{Action, Context};
use crate::tui::keys::Key;
use crate::tui::layer::Layer;

impl App {
    /// Carries out one label edit through the state machine and says what it came to.
    /// Returns whether it wrote a record.
    pub(super) fn label_edit(&mut self, e: crate::labels::state::Edit) -> bool {
        use crate::labels::state::Step;
        let zero = self.keymap.hint(Context::Label, Action::Reviewed);
        let (wrote, status) = match self.model.label_edit(e) {
            Ok(Step::Write { categories, .. }) if categories.is_empty() => {
                (true, "label saved: reviewed, nothing wrong".to_string())
            }
            Ok(Step::Write { .. }) => (true, "label saved".to_string()),
            Ok(Step::Retract { note }) if note.is_empty() => (
                true,
                format!("label removed ({zero}: reviewed, nothing wrong)"),
            ),
            Ok(Step::Retract { .. }) => (
                true,
                format!(
                    "label removed; the note stays as a draft (a category or {zero} records it with the label)"
                ),
            ),
            Ok(Step::Draft(text)) if text.is_empty() => (false, "draft note cleared".into()),
            Ok(Step::Draft(_)) => (
                false,
                format!(
                    "note kept as a draft: it is recorded with the first category or {zero} (reviewed, nothing wrong)"
                ),
            ),
            Ok(Step::Ask(cats)) => {
                if let Some(at) = self.model.selected() {
                    let id = self.model.id_of(at).to_string();
                    self.model.labelling.asked = Some((at.0 as usize, id));
                }
                let names: Vec<&str> = cats.iter().map(|c| self.model.taxonomy.name(c)).collect();
                (
                    false,
                    format!(
                        "{zero} again replaces {} with \"reviewed, nothing wrong\"; any other key keeps them",
                        crate::base::sanitize::one_line(&names.join(", "))
                    ),
                )
            }
            Ok(Step::Unchanged(why)) => (false, why.to_string()),
            Err(e) => (false, format!("label not saved: {e}")),
        };
        self.status = status;
        // Nobody named: the label went in as `anonymous`; say once how to name oneself.
        if wrote
            && self.model.annotator == crate::labels::store::ANONYMOUS
            && !self.model.anonymous_warned
        {
            self.model.anonymous_warned = true;
            let w = crate::labels::store::NO_ANNOTATOR;
            self.model.warnings.push(w.to_string());
            self.status = format!("{} · {w}", self.status);
        }
        wrote
    }

    /// Whether the "nothing wrong" key was just pressed once on the selected sample
    /// over named categories (then pressing it again confirms).
    fn asked_here(&self) -> bool {
        let here = self
            .model
            .selected()
            .map(|at| (at.0 as usize, self.model.id_of(at).to_string()));
        here.is_some() && self.model.labelling.asked == here
    }

    /// A taxonomy category's key in label mode toggles it; the taxonomy wins over
    /// bindings. Returns true if the key was a category.
    pub(super) fn label_category(&mut self, key: Key) -> bool {
        let Some(c) = key.typed() else {
            return false;
        };
        let mut buf = [0u8; 4];
        let Some(cat) = self.model.taxonomy.by_key(c.encode_utf8(&mut buf)) else {
            return false;
        };
        let id = cat.id.clone();
        self.model.labelling.asked = None;
        // Unticking the last category takes the label back (the state machine says so);
        // "reviewed, nothing wrong" is its own key, never a side effect of unticking.
        self.label_edit(crate::labels::state::Edit::Toggle(id));
        true
    }

    pub(super) fn label_action(&mut self, a: Action) {
        let asked = self.asked_here();
        self.model.labelling.asked = None;
        match a {
            Action::Reviewed => {
                // Reviewed, nothing wrong: an empty set is a label too (it counts for
                // lucky-pass estimates); over named categories it asks first.
                self.label_edit(crate::labels::state::Edit::NothingWrong { confirmed: asked });
            }
            Action::AcceptSuggestion
                if self
                    .model
                    .selected()
                    .is_some_and(|at| self.model.hidden(at)) =>
            {
                self.status = "blind: no suggestion until you label this sample".into();
            }
            Action::AcceptSuggestion => {
                match self
                    .panes
                    .detail
                    .as_ref()
                    .and_then(crate::tui::model::Detail::suggestion)
                    .and_then(|s| s.accepted())
                {
                    Some(s) => {
                        if self.model.my_state().categories().iter().any(|c| c == s) {
                            self.status = format!("already labelled {s}");
                        } else {
                            self.label_edit(crate::labels::state::Edit::Toggle(s.to_string()));
                        }
                    }
                    None => {
                        self.status =
                            "no suggestion: the diff finds no change that maps to a category"
                                .into();
                    }
                }
            }
            Action::EditNote => {
                let state = self.model.my_state();
                self.model.labelling.note.text = if state.in_force().is_some() {
                    state.note().to_string()
                } else {
                    self.model.my_draft().to_string()
                };
                self.push(Layer::Note);
            }
            Action::Undo => self.undo_label(),
            Action::NextUnlabelled => self.next_unlabelled(),
            Action::Up => self.move_sel(-1),
            Action::Down => self.move_sel(1),
            Action::PageDown | Action::PageUp => {
                // Drawing clamps the scroll to the rows there are.
                if let Some(Layer::Label(top)) = self.layers.last_mut() {
                    let step = self.panes.label_rows.get().max(1);
                    *top = if a == Action::PageDown {
                        (*top + step).min(self.panes.label_rows_total.get())
                    } else {
                        top.saturating_sub(step)
                    };
                }
            }
            Action::Back => self.pop(),
            other => self.act(other),
        }
    }

    /// Restores the last label change (the sample it was on is selected again).
    fn undo_label(&mut self) {
        let Some(e) = self.model.labelling.take_last() else {
            self.status = "nothing to undo".into();
            return;
        };
        let m = &mut self.model;
        if let Some(k) = m.listing.visible.iter().position(|&(rr, ii)| {
            rr as usize == e.run && *m.runs[e.run].rows[ii as usize].id == *e.id
        }) {
            m.listing.sample_list.sel = k;
        } else {
            // The sample left the list (a filter): nothing to put back here.
            self.status = format!("sample {} is not in the list; nothing undone", e.id);
            return;
        }
        // No label before: undo retracts rather than writing "nothing wrong".
        if self.label_edit(crate::labels::state::Edit::Restore(e.label)) {
            // Saving pushed the undone state; undo must not redo it.
            self.model.labelling.forget_last();
        }
        self.status = format!("undone on sample {}", e.id);
    }

    /// Moves to the next sample in the current list that this annotator has not labelled.
    pub(crate) fn next_unlabelled(&mut self) {
        if !self.model.next_unlabelled() {
            self.status = "every sample in this list is labelled".into();
        }
    }

    /// Opens the adjudication layer on the selected sample: it needs labels by two
    /// annotators, and in blind mode this annotator's own label first.
    pub(super) fn open_adjudication(&mut self) {
        let Some(at) = self.model.selected() else {
            return;
        };
        if self.model.hidden(at) {
            self.status = "blind: label this sample yourself before settling it".into();
            return;
        }
        let run = &self.model.runs[at.0 as usize];
        let id = run.rows[at.1 as usize].id.to_string();
        let labels = run.labels.get(&id).cloned().unwrap_or_default();
        let (unit, _) = crate::labels::agreement::split(&labels);
        if unit.len() < 2 {
            self.status = format!(
                "nothing to settle: sample {} has labels by {} annotator(s), adjudication needs two",
                crate::base::sanitize::one_line(&id),
                unit.len()
            );
            return;
        }
        let tax = self.taxonomy_ids();
        let adj = crate::tui::components::adjudicate::Adjudication::new(
            at.0 as usize,
            &id,
            &labels,
            &tax,
        );
        self.push(Layer::Adjudicate(Box::new(adj)));
    }

    fn taxonomy_ids(&self) -> Vec<String> {
        self.model
            .taxonomy
            .categories
            .iter()
            .map(|c| c.id.clone())
            .collect()
    }

    /// A taxonomy key in the adjudication layer ticks its category.
    pub(super) fn adjudicate_category(&mut self, key: Key) -> bool {
        let Some(c) = key.typed() else {
            return false;
        };
        let mut buf = [0u8; 4];
        let Some(id) = self
            .model
            .taxonomy
            .by_key(c.encode_utf8(&mut buf))
            .map(|c| c.id.clone())
        else {
            return false;
        };
        let tax = self.taxonomy_ids();
        if let Some(Layer::Adjudicate(adj)) = self.layers.last_mut() {
            adj.toggle(&id, &tax);
        }
        true
    }

    pub(super) fn adjudicate_action(&mut self, a: Action) {
        let tax = self.taxonomy_ids();
        let Some(Layer::Adjudicate(adj)) = self.layers.last_mut() else {
            return;
        };
        match adj.handle(a, &tax) {
            Effect::Confirm => {
                let (run, id) = (adj.run, adj.id.clone());
                let chosen: Vec<String> = tax
                    .iter()
                    .filter(|c| adj.chosen.contains(*c))
                    .chain(adj.chosen.iter().filter(|c| !tax.contains(c)))
                    .cloned()
                    .collect();
                let shown = if chosen.is_empty() {
                    "nothing wrong".to_string()
                } else {
                    chosen.join(", ")
                };
                self.status = match self.model.adjudicate(run, &id, chosen) {
                    Ok(()) => {
                        self.pop();
                        format!(
                            "sample {} settled by {}: {}",
                            crate::base::sanitize::one_line(&id),
                            crate::base::sanitize::one_line(&self.model.annotator),
                            crate::base::sanitize::one_line(&shown)
                        )
                    }
                    Err(e) => format!("not settled: {e}"),
                };
            }
            Effect::Close => self.pop(),
            _ => {}
        }
    }
}
