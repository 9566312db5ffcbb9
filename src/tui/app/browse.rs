//! Browsing: the actions of the normal context (moving, opening layers, sorting,
//! exporting, rescoring, the live run's pause and cancel).

use super::{App, Pane};
use crate::report::By;
use crate::tui::components::sort::Sort;
use crate::tui::keymap::{Action, Context};
use crate::tui::layer::{ChartLayer, Layer};
use crate::tui::model::Filter;

impl App {
    /// Applies an action of the normal context.
    pub(crate) fn act(&mut self, a: Action) {
        if self.model.blind.is_some()
            && let Some(why) = super::blind::refuses(a)
        {
            self.status = why.into();
            return;
        }
        let page = self.panes.page.get().max(1) as isize;
        match a {
            Action::Up => self.move_sel(-1),
            Action::Down => self.move_sel(1),
            Action::PageUp => self.move_sel(-page),
            Action::PageDown => self.move_sel(page),
            Action::Top if self.panes.focus == Pane::Detail => self.panes.detail_view.go_top(),
            Action::Bottom if self.panes.focus == Pane::Detail => {
                self.panes.detail_view.go_end();
            }
            Action::Top => self.move_sel(isize::MIN / 2),
            Action::Bottom => self.move_sel(isize::MAX / 2),
            Action::Open => match self.panes.focus {
                Pane::Runs => self.show_only_run(),
                Pane::Samples => self.panes.focus = Pane::Detail,
                Pane::Detail => {}
            },
            Action::Back => self.back(),
            Action::Search => {
                self.push(Layer::Search);
                self.panes.focus = Pane::Samples;
            }
            Action::Filter => self.open_filter(),
            Action::ClearFilters => self.clear_filters(),
            Action::NextPane | Action::PrevPane => self.next_pane(a == Action::NextPane),
            Action::NextTab | Action::PrevTab | Action::ToggleTree | Action::ToggleReasoning => {
                self.panes.detail_view.handle(a);
            }
            Action::Compare if self.model.selected().is_some() => {
                self.push(Layer::Compare(Box::new(self.model.compare_view())));
            }
            Action::ToggleBy => self.toggle_by(),
            Action::Chart => self.open_chart(),
            Action::Warnings => self.push(Layer::Warnings(Default::default())),
            Action::Label if self.model.selected().is_some() => {
                self.push(Layer::Label(0));
                self.panes.focus = Pane::Samples;
            }
            Action::NextUnlabelled => self.next_unlabelled(),
            Action::Rank => self.open_rank(),
            Action::Jump => self.push(Layer::Jump(Default::default())),
            Action::Copy => self.open_copy(),
            Action::Matrix => self.open_matrix(),
            Action::NewRun => self.open_new_run(),
            Action::LabelCounts => self.push(Layer::LabelCounts(Default::default())),
            Action::RunSummary => self.open_run_summary(),
            Action::Adjudicate => self.open_adjudication(),
            Action::Rescore => self.ask_rescore(),
            Action::Export => self.export(),
            Action::PauseRun => self.pause_run(),
            Action::CancelRun => self.ask_cancel_run(),
            Action::Help => self.push(Layer::Help(Default::default())),
            Action::ToggleRun if self.panes.focus == Pane::Runs => self.toggle_run(),
            Action::ToggleOrder => self.toggle_order(),
            Action::Sort | Action::SortReverse if self.panes.focus == Pane::Runs => {
                self.sort_runs(a == Action::Sort);
            }
            Action::Sort => self.sort_samples(),
            Action::SortReverse => self.model.sort_by(Sort::reverse),
            Action::SortMetric => self.model.sort_by(Sort::cycle_metric),
            Action::Quit => self.quit = true,
            // Actions of other contexts do nothing while browsing, nor do compare and
            // label with no sample selected or space outside the run list. Listed, not
            // `_`: an action added for a new layer must be handled above or placed here.
            Action::Compare
            | Action::Label
            | Action::ToggleRun
            | Action::Confirm
            | Action::Cancel
            | Action::DeleteChar
            | Action::NextField
            | Action::PrevField
            | Action::Decrease
            | Action::Increase
            | Action::Toggle
            | Action::Reviewed
            | Action::AcceptSuggestion
            | Action::EditNote
            | Action::Undo
            | Action::PrevBucket
            | Action::NextBucket
            | Action::ChartAllRuns
            | Action::ChartKinds
            | Action::SearchReasoning => {}
        }
    }

    /// Enter on the run list: only the run under the cursor shown; on the run already
    /// shown alone, every run again.
    fn show_only_run(&mut self) {
        let Some(r) = self.cursor_run() else {
            return;
        };
        let name = crate::tui::ui::panes::run_name(self, r);
        let enter = self.key_name(Context::Normal, Action::Open);
        if self.model.listing.filter.runs == [r].into() {
            self.model.listing.filter.runs.clear();
            self.status = format!("every run shown again ({enter} on a run: only it)");
        } else {
            self.model.listing.filter.runs = [r].into();
            self.panes.focus = Pane::Samples;
            self.status = format!(
                "only {} shown ({enter} on it again in the run list: every run)",
                crate::base::sanitize::one_line(&name)
            );
        }
        self.model.refilter();
    }

    /// Back: from the detail to the sample list, else the search cleared.
    fn back(&mut self) {
        if self.panes.focus == Pane::Detail {
            self.panes.focus = Pane::Samples;
        } else if !self.model.listing.search.field.text.is_empty() {
            self.model.listing.search.field.text.clear();
            self.model.research();
        }
    }

    /// Opens the filter editor where it was left.
    fn open_filter(&mut self) {
        let mut ed = self.panes.filter_edit.clone();
        ed.typed = None;
        self.push(Layer::Filter(ed));
    }

    /// Drops every filter and the search.
    fn clear_filters(&mut self) {
        self.model.listing.filter = Filter::default();
        self.model.listing.search.field.text.clear();
        self.model.refilter();
    }

    /// Pauses or resumes the live run, if one is going.
    fn pause_run(&mut self) {
        match self.jobs.live.as_mut() {
            Some(l) if l.ended.is_none() => l.toggle_pause(),
            _ => {
                self.status = format!(
                    "no live run: {} starts one",
                    self.key_name(Context::Normal, Action::NewRun)
                );
            }
        }
    }

    /// Focus to the next pane (`forward`) or the previous one.
    fn next_pane(&mut self, forward: bool) {
        let order = [Pane::Runs, Pane::Samples, Pane::Detail];
        let i = order
            .iter()
            .position(|p| *p == self.panes.focus)
            .unwrap_or(1);
        let d = if forward { 1 } else { 2 };
        self.panes.focus = order[(i + d) % 3];
    }

    /// Buckets by depth instead of operators or back; the range filter is dropped.
    fn toggle_by(&mut self) {
        self.model.by = if self.model.by == By::Operators {
            By::Depth
        } else {
            By::Operators
        };
        self.model.listing.filter.range = None;
        self.model.refilter();
    }

    /// Opens the new-run form (remembering the last run's settings), unless a run is
    /// going.
    fn open_new_run(&mut self) {
        if self.jobs.live_running() {
            self.status = format!(
                "a run is already going: {} cancels it",
                self.key_name(Context::Normal, Action::CancelRun)
            );
        } else {
            let form = crate::tui::live::Form::remembered(self.model.viewed_folder());
            self.push(Layer::NewRun(Box::new(form)));
        }
    }

    /// Opens the summary of the selected sample's run, else the run under the cursor.
    fn open_run_summary(&mut self) {
        let ri = self
            .model
            .selected()
            .map(|(r, _)| r as usize)
            .or_else(|| self.cursor_run());
        let summary = ri.and_then(|ri| self.model.run_summary(ri)).map(Box::new);
        self.push(Layer::RunSummary(Default::default(), summary));
    }

    /// Asks before cancelling the live run, if there is one.
    fn ask_cancel_run(&mut self) {
        if self.jobs.live_running() {
            self.push(Layer::ConfirmCancel);
            self.status = "cancel the live run? y cancels (finished samples stay; resumable), any other key keeps it".into();
        } else {
            self.status = "no live run".into();
        }
    }

    /// Sorts the sample list by its next column; blind, the columns that would tell
    /// are passed over.
    fn sort_samples(&mut self) {
        let blind = self.model.blind.is_some();
        self.model.sort_by(|s| {
            s.cycle();
            while blind
                && s.key
                    .is_some_and(crate::tui::components::sort::SortKey::tells_outcome)
            {
                s.cycle();
            }
        });
    }

    /// Opens the chart picker on the run in view and the selected sample's bucket.
    fn open_chart(&mut self) {
        let mut c = ChartLayer::default();
        c.pick.run = self.chart_focus().unwrap_or(0);
        let buckets = &self.model.derived.buckets;
        c.pick.bucket = self
            .model
            .selected()
            .and_then(|(r, i)| self.model.category(r, i))
            .and_then(|cat| buckets.iter().position(|b| *b == cat))
            .unwrap_or(0);
        self.push(Layer::Chart(Box::new(c)));
    }

    /// `s` / `d` on the run list: the catalogue's next column / the other direction,
    /// the cursor staying on its run.
    fn sort_runs(&mut self, next: bool) {
        let keep = self.cursor_run();
        let blind = self.model.blind.is_some();
        if next {
            self.panes.run_sort.cycle(blind);
        } else {
            self.panes.run_sort.reverse();
        }
        let order = self.model.run_order(self.panes.run_sort);
        if let Some(p) = keep.and_then(|r| order.iter().position(|x| *x == r)) {
            self.panes.run_list.sel = p;
        }
        self.status = match self.panes.run_sort.key {
            Some(_) => format!("runs {}", self.panes.run_sort.describe()),
            None => "runs in the order they were named or found".into(),
        };
    }

    /// Recomputes the list after the filter was changed from outside the keys.
    pub fn refilter(&mut self) {
        self.model.refilter();
        self.settle();
    }

    /// Search results: best match first ↔ dataset order.
    pub(super) fn toggle_order(&mut self) {
        self.model.toggle_order();
        self.status = if self.model.listing.search.ranked {
            "search results: best match first".into()
        } else {
            "search results: dataset order".into()
        };
    }

    pub(super) fn move_sel(&mut self, delta: isize) {
        match self.panes.focus {
            Pane::Runs => {
                self.panes.run_list.step(delta, self.model.runs.len());
            }
            Pane::Samples => {
                self.model.step_selection(delta);
            }
            Pane::Detail => self.panes.detail_view.scroll_by(delta),
        }
    }

    fn toggle_run(&mut self) {
        let Some(r) = self.cursor_run() else {
            return;
        };
        let n = self.model.runs.len();
        let runs = &mut self.model.listing.filter.runs;
        if runs.is_empty() {
            *runs = (0..n).filter(|i| *i != r).collect();
        } else if !runs.remove(&r) {
            runs.insert(r);
        }
        if runs.len() == n {
            runs.clear();
        }
        self.model.refilter();
    }

    fn export(&mut self) {
        let base = self
            .export_dir
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| std::path::PathBuf::from("."));
        self.status = match crate::tui::export::export(self, &base) {
            Ok(dir) => format!(
                "exported {} samples and the chart to {}",
                self.model.listing.visible.len(),
                crate::base::sanitize::one_line(&dir.display().to_string())
            ),
            Err(e) => format!(
                "export failed: {}",
                crate::base::sanitize::one_line(&e.to_string())
            ),
        };
    }

    /// `S`: asks before rescoring the run selected in the run list (or the selected
    /// sample's run) in place; one key must not rewrite a run's samples.
    pub(crate) fn ask_rescore(&mut self) {
        if self.jobs.rescore.is_some() {
            self.status = "a rescore is already running".into();
            return;
        }
        let ri = if self.panes.focus == Pane::Runs {
            self.cursor_run()
        } else {
            self.model.selected().map(|(r, _)| r as usize)
        };
        let Some(i) = ri.filter(|&i| i < self.model.runs.len()) else {
            self.status = "no run selected".into();
            return;
        };
        self.push(Layer::ConfirmRescore(i));
        self.status = format!(
            "rescore {} in place (no model calls; the old samples.jsonl is kept as a .bak)? y rescores, any other key keeps it",
            crate::base::sanitize::one_line(&self.model.runs[i].name())
        );
    }

    /// The key after `S`'s question.
    pub(crate) fn confirm_rescore(&mut self, key: crate::tui::keys::Key, run: Option<usize>) {
        match (key.typed(), run) {
            (Some('y' | 'Y'), Some(i)) => self.start_rescore(i),
            _ => self.status = "not rescored".into(),
        }
    }

    /// Starts rescoring run `i` in place on its own thread; [`super::Msg::Rescored`]
    /// reads it again when done.
    pub(crate) fn start_rescore(&mut self, i: usize) {
        if self.jobs.rescore.is_some() {
            self.status = "a rescore is already running".into();
            return;
        }
        let Some(run) = self.model.runs.get(i) else {
            self.status = "no run selected".into();
            return;
        };
        let dir = run.dir.clone();
        let name = dir
            .file_name()
            .map_or_else(|| "run".into(), |s| s.to_string_lossy().into_owned());
        // In place, the old samples kept as a backup: a copy beside the run would hold
        // the same labels (label counts would double) and a second `S` a second copy.
        let out = dir.clone();
        let opts = crate::run::rescore::RescoreOptions {
            run: dir,
            out: out.clone(),
            in_place: true,
            verify: crate::verify::Options {
                timeout: std::time::Duration::from_millis(
                    run.manifest
                        .as_ref()
                        .map_or(5000, |m| m.verifier_timeout_ms.max(1)),
                ),
                ..Default::default()
            },
            // The viewer rescores under the reading the run recorded.
            reading: None,
            bertscore: None,
            progress: indicatif::ProgressBar::hidden(),
        };
        self.status = format!("rescoring {name} (no model calls)…");
        let tx = self.jobs.sender();
        self.jobs.rescore = Some(out.clone());
        std::thread::spawn(move || {
            let result = crate::run::rescore::rescore(&opts)
                .map(|s| {
                    let backup = s
                        .backup
                        .as_ref()
                        .and_then(|b| b.file_name())
                        .map(|b| format!("; the old samples are kept as {}", b.to_string_lossy()))
                        .unwrap_or_default();
                    format!(
                        "{} changed of {}; A2 {} → {}, A3 {} → {}{}{backup}",
                        s.changed(),
                        s.samples,
                        pct(s.before.compliance()),
                        pct(s.after.compliance()),
                        pct(s.before.accuracy()),
                        pct(s.after.accuracy()),
                        if s.needs_calls.is_empty() {
                            String::new()
                        } else {
                            format!("; {} need new model calls", s.needs_calls.len())
                        }
                    )
                })
                .map_err(|e| crate::base::sanitize::one_line(&e.to_string()).into_owned());
            let _ = tx.send(super::Msg::Rescored(out, result));
        });
    }

    /// A rescore ended: the rewritten run is read again.
    pub(super) fn rescored(&mut self, out: &std::path::Path, result: Result<String, String>) {
        self.jobs.rescore = None;
        let name = out
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        match result {
            Ok(summary) => {
                // Read on a background thread; the list keeps the old rows until then.
                self.status = format!("rescore of {name} done; reading it again…");
                self.jobs.reopening = Some((out.to_path_buf(), summary));
                self.jobs.reopen(out.to_path_buf());
            }
            Err(e) => self.status = format!("rescore failed: {e}"),
        }
    }

    /// A rescored run read again: its rows replace the old ones, and the rescore's
    /// summary is said.
    pub(super) fn reopened(&mut self, run: crate::tui::data::RunIndex) {
        let name = run
            .dir
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let summary = match self.jobs.reopening.take() {
            Some((dir, summary)) if dir == run.dir => summary,
            other => {
                self.jobs.reopening = other;
                String::new()
            }
        };
        self.model.replace_run(run);
        self.status = format!("rescored {name} in place: {summary}");
    }

    /// The live run's directory joins the view once its manifest is written.
    pub(super) fn open_live_dir(&mut self) {
        let Some(dir) = self.jobs.live.as_ref().map(|l| l.dir.clone()) else {
            return;
        };
        if dir.join(crate::run::store::MANIFEST).exists() {
            self.model.open_run(&dir);
        }
    }
}

fn pct(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{:.1}%", v * 100.0))
}
