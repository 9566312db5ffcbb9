//! Keys in each layer: the overlays, the chart picker, the search box, the note, the
//! new-run form and the filter editor (label mode and adjudication: `labelling.rs`). Each
//! component answers with one [`Effect`]; this is where effects become changes to the app.

use super::{App, Pane};
use crate::tui::components::Effect;
use crate::tui::keymap::{Action, Context};
use crate::tui::keys::Key;
use crate::tui::layer::{Layer, Mode};

impl App {
    /// Handles an action bound in a context.
    pub(crate) fn act_in(&mut self, ctx: Context, a: Action) {
        match ctx {
            Context::Normal => self.act(a),
            Context::Overlay => self.overlay_action(a),
            Context::Chart => self.chart_action(a),
            Context::Search => self.search_action(a),
            Context::Note => self.note_action(a),
            Context::Form => self.form_action(a),
            Context::Label => self.label_action(a),
            Context::Filter => self.filter_action(a),
            Context::Rank => self.rank_action(a),
            Context::Adjudicate => self.adjudicate_action(a),
            Context::Matrix => self.matrix_action(a),
        }
    }

    /// A key the context does not bind: typed text, a label category, a filter digit,
    /// or the context's fallback bindings.
    pub(super) fn unbound_key(&mut self, ctx: Context, key: Key) {
        if ctx.takes_text() {
            if let Some(c) = key.typed() {
                self.type_char(ctx, c);
            }
            return;
        }
        if ctx == Context::Label && self.label_category(key) {
            return;
        }
        if ctx == Context::Adjudicate && self.adjudicate_category(key) {
            return;
        }
        if ctx == Context::Filter && self.filter_digit(key) {
            return;
        }
        if matches!(self.layers.last(), Some(Layer::Copy)) && self.copy_digit(key) {
            return;
        }
        if ctx == Context::Rank {
            self.rank_digit(key);
            return;
        }
        let Some(a) = ctx.fallback().and_then(|f| self.keymap.action(f, key)) else {
            return;
        };
        if a == Action::Quit {
            self.quit = true;
        } else if ctx == Context::Matrix {
            self.matrix_action(a);
        } else if ctx == Context::Overlay {
            self.overlay_action(a);
        } else {
            if let Some(Layer::Filter(ed)) = self.layers.last_mut() {
                ed.typed = None;
            }
            self.act(a);
        }
    }

    fn type_char(&mut self, ctx: Context, c: char) {
        match ctx {
            Context::Search if self.model.listing.search.field.type_char(c) == Effect::Edited => {
                self.model.research();
            }
            Context::Note => {
                if let Some(Layer::Jump(field)) = self.layers.last_mut() {
                    field.type_char(c);
                } else {
                    self.model.labelling.note.type_char(c);
                }
            }
            Context::Form => {
                if let Some(Layer::NewRun(form)) = self.layers.last_mut() {
                    form.type_char(c);
                }
            }
            // A search keystroke that changed nothing; contexts that take no text.
            Context::Search
            | Context::Normal
            | Context::Overlay
            | Context::Chart
            | Context::Label
            | Context::Filter
            | Context::Rank
            | Context::Adjudicate
            | Context::Matrix => {}
        }
    }

    fn search_action(&mut self, a: Action) {
        if a == Action::ToggleOrder {
            self.toggle_order();
            return;
        }
        if a == Action::SearchReasoning && self.model.blind.is_some() {
            self.status =
                "blind: the search covers φ₀, ψ and your own labels; the models' reasoning stays out"
                    .into();
            return;
        }
        if a == Action::SearchReasoning {
            self.model.toggle_search_reasoning();
            self.status = if self.model.listing.search.reasoning {
                "search: φ₀, ψ, φ₁ and the models' reasoning".into()
            } else {
                "search: φ₀, ψ and φ₁ (reasoning left out)".into()
            };
            return;
        }
        match self.model.listing.search.field.handle(a) {
            Effect::Edited => self.model.research(),
            Effect::Confirm => self.pop(),
            Effect::Close => {
                self.pop();
                self.model.research();
            }
            _ => {}
        }
    }

    fn note_action(&mut self, a: Action) {
        if let Some(Layer::Jump(field)) = self.layers.last_mut() {
            match field.handle(a) {
                Effect::Confirm => {
                    let spec = std::mem::take(&mut field.text);
                    self.pop();
                    self.jump_to(&spec);
                }
                Effect::Close => self.pop(),
                _ => {}
            }
            return;
        }
        match self.model.labelling.note.handle(a) {
            Effect::Confirm => {
                let note = std::mem::take(&mut self.model.labelling.note.text);
                self.label_edit(crate::labels::state::Edit::Note(note));
                self.pop();
            }
            Effect::Close => self.pop(),
            _ => {}
        }
    }

    fn overlay_action(&mut self, a: Action) {
        let Some(top) = self.layers.last_mut() else {
            return;
        };
        // In the comparison the detail tab keys pick the run diffed against the first.
        if let Layer::Compare(v) = top
            && matches!(a, Action::NextTab | Action::PrevTab)
        {
            v.step_pair(if a == Action::NextTab { 1 } else { -1 });
            return;
        }
        // Long overlays scroll (help lists every binding and mode).
        let effect = match top {
            Layer::Help(o) | Layer::RunSummary(o, _) => o.handle(a, true),
            Layer::Warnings(o) | Layer::LabelCounts(o) => o.handle(a, false),
            // Overlays without a scroll of their own close on the same keys.
            Layer::Compare(_) | Layer::ConfirmCancel | Layer::Copy | Layer::ConfirmRescore(_) => {
                crate::tui::components::overlay::Overlay::default().handle(a, false)
            }
            // Read in other contexts: never here.
            Layer::Filter(_)
            | Layer::Chart(_)
            | Layer::Search
            | Layer::Label(_)
            | Layer::Note
            | Layer::NewRun(_)
            | Layer::Rank(_)
            | Layer::Adjudicate(_)
            | Layer::Jump(_)
            | Layer::Matrix(_) => Effect::None,
        };
        if effect == Effect::Close {
            self.pop();
        }
    }

    fn chart_action(&mut self, a: Action) {
        let buckets = self.model.derived.buckets.clone();
        let nruns = self.model.derived.chart.len();
        let Some(Layer::Chart(c)) = self.layers.last_mut() else {
            return;
        };
        let (bucket, run) = (c.pick.bucket, c.pick.run);
        match c.pick.handle(a, buckets.len(), nruns) {
            Effect::Show { one_run } => {
                self.pop();
                if let Some(&b) = buckets.get(bucket) {
                    self.show_bucket(b, one_run.then_some(run));
                }
                self.panes.focus = Pane::Samples;
            }
            Effect::Close => self.pop(),
            _ => {}
        }
    }

    /// Lists bucket `b` of every run, or of the chart's `run`-th run.
    fn show_bucket(&mut self, b: usize, run: Option<usize>) {
        let f = &mut self.model.listing.filter;
        f.range = Some((b, b));
        f.runs.clear();
        if let Some(k) = run {
            let ri = self.model.derived.chart_runs.get(k).copied();
            if let Some(ri) = ri {
                self.model.listing.filter.runs = [ri].into();
            }
            let all = self.keymap.hint(Context::Chart, Action::ChartAllRuns);
            self.status = format!("showing bucket {b} of one run ({all} in the chart: every run)");
        } else {
            self.status = format!("showing bucket {b} of every run");
        }
        self.model.refilter();
    }

    fn form_action(&mut self, a: Action) {
        let Some(Layer::NewRun(form)) = self.layers.last_mut() else {
            return;
        };
        match form.handle(a) {
            Effect::Confirm => {
                let tx = self.jobs.sender();
                let deliver = move |m| tx.send(super::Msg::Live(Box::new(m))).is_ok();
                match crate::tui::live::Live::start(form, deliver) {
                    Ok(mut live) => {
                        live.keys = (
                            self.key_name(Context::Normal, Action::PauseRun),
                            self.key_name(Context::Normal, Action::CancelRun),
                        );
                        self.status = format!("run started in {}", live.dir.display());
                        self.jobs.live = Some(live);
                        self.pop();
                    }
                    Err(e) => form.error = e.to_string(),
                }
            }
            Effect::Close => self.pop(),
            _ => {}
        }
    }

    /// Selects the sample `spec` names (`ID` or `RUN/ID`) and says what it did.
    pub fn jump_to(&mut self, spec: &str) -> bool {
        let one = crate::base::sanitize::one_line;
        match self.model.jump(spec) {
            Ok(j) => {
                self.touched = true;
                let mut msg = format!("sample {}", one(self.model.id_of(j.at)));
                if j.cleared {
                    msg.push_str(" (filters and search cleared to show it)");
                }
                // The key fact first: a narrow footer cuts the list of runs, not it.
                match j.also_in.len() {
                    0 => {}
                    1 => msg.push_str(&format!(
                        "; also in {} (RUN/ID picks one)",
                        one(&j.also_in[0])
                    )),
                    n => msg.push_str(&format!(
                        "; also in {n} other runs (RUN/ID picks one): {}",
                        one(&j.also_in.join(", "))
                    )),
                }
                self.status = msg;
                true
            }
            Err(e) => {
                self.status = format!("jump: {e}");
                false
            }
        }
    }

    /// Digits and backspace type the bound of the operator-range fields.
    fn filter_digit(&mut self, key: Key) -> bool {
        let digit = key.typed().and_then(|c| c.to_digit(10));
        let backspace = key.code() == ratatui::crossterm::event::KeyCode::Backspace;
        if digit.is_none() && !backspace {
            return false;
        }
        let env = self.filter_env();
        let blind = self.model.blind.is_some();
        let Some(Layer::Filter(ed)) = self.layers.last_mut() else {
            return false;
        };
        if let Some(why) = ed.field.blind_refusal().filter(|_| blind) {
            self.status = why.into();
            return true;
        }
        let taken = ed.digit(digit, &mut self.model.listing.filter, &env);
        if taken {
            self.model.refilter();
        }
        taken
    }

    /// What the filter editor needs to know about the loaded runs.
    fn filter_env(&self) -> crate::tui::components::filter_edit::FilterEnv {
        crate::tui::components::filter_edit::FilterEnv {
            max: self.model.derived.buckets.last().copied().unwrap_or(0),
            kinds: self.model.derived.kinds.clone(),
            categories: self
                .model
                .taxonomy
                .categories
                .iter()
                .map(|c| c.id.clone())
                .collect(),
            runs: self.model.runs.len(),
            labels: self.model.task_labels(),
        }
    }

    fn filter_action(&mut self, a: Action) {
        let env = self.filter_env();
        let blind = self.model.blind.is_some();
        let Some(Layer::Filter(ed)) = self.layers.last_mut() else {
            return;
        };
        // Enter ticks a verdict; on the other fields it closes the editor.
        let edits = matches!(a, Action::Increase | Action::Decrease | Action::Toggle)
            || (a == Action::Confirm
                && matches!(
                    ed.field,
                    crate::tui::components::filter_edit::Field::Verdict(_)
                ));
        if let Some(why) = ed.field.blind_refusal().filter(|_| blind && edits) {
            self.status = why.into();
            return;
        }
        match ed.handle(a, &mut self.model.listing.filter, &env) {
            Effect::Refilter => self.model.refilter(),
            Effect::Close => self.pop(),
            _ => {}
        }
    }

    /// The answer to "cancel the live run?": `y` cancels, any other key keeps it.
    pub(super) fn confirm_cancel(&mut self, key: Key) {
        match (key.typed(), self.jobs.live.as_mut()) {
            (Some('y' | 'Y'), Some(l)) if l.ended.is_none() => {
                l.cancel();
                self.status = if self.quit_when_ended {
                    "cancelling: the viewer quits once the run has stopped".into()
                } else {
                    "cancelling: in-flight samples are dropped, finished ones stay".into()
                };
            }
            _ => {
                self.quit_when_ended = false;
                self.status = "the live run goes on".into();
            }
        }
    }

    /// Whether the top layer is `m`.
    pub fn is(&self, m: Mode) -> bool {
        self.mode() == m
    }
}
