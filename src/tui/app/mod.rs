//! The viewer as one value, `App { model, layers, panes, jobs, keymap, status }`, and the
//! one place it changes: [`App::update`] takes a [`Msg`] from the inbox (a key, a mouse
//! event, a loaded run, a search result, a live run's report, a finished rescore, a
//! tick). Quit is handled once, before any layer sees the key; the top [`Layer`] picks
//! the keymap context; after every message the derived views and the selected sample's
//! detail are brought up to date, so drawing only reads.

mod blind;
mod browse;
pub mod copy;
pub mod jobs;
mod kinds;
mod labelling;
mod layers;
mod matrix;
mod mouse;
pub mod panes;
mod rank;

pub use super::components::detail_view::Tab;
pub use jobs::{Loader, Msg};
pub use panes::{Pane, Panes};

use super::data::RunIndex;
use super::keymap::{Action, Context, Keymap};
use super::keys::Key;
use super::layer::{ChartLayer, Layer, Mode};
use super::model::{Detail, Model};
use std::time::{Duration, Instant};

/// The start-up status: where to find every key, named by the keymap (the footer
/// drops it when its own hints already show that key).
pub(crate) fn help_hint(keymap: &Keymap) -> String {
    format!(
        "{} shows every key",
        keymap.hint(Context::Normal, Action::Help)
    )
}

/// The viewer.
pub struct App {
    /// The runs and the listing over them.
    pub model: Model,
    /// Layers over the browsing screen, bottom first.
    pub layers: Vec<Layer>,
    /// The browsing screen's panes.
    pub panes: Panes,
    /// Background work and the inbox.
    pub jobs: jobs::Jobs,
    /// Keys.
    pub keymap: Keymap,
    /// A one-line message.
    pub status: String,
    /// Set when the user quits.
    pub quit: bool,
    /// Ctrl-L was pressed: the draw loop clears the terminal before the next frame.
    pub repaint: bool,
    /// Where `E` writes exports (default: the working directory).
    pub export_dir: Option<std::path::PathBuf>,
    /// Whether the user has pressed a key (loading then stops moving the selection).
    touched: bool,
    /// The listing state the kinds worker last heard which samples come first for.
    kinds_first_stamp: Option<(u64, usize, usize)>,
    /// `q` was confirmed while a live run went on: quit once it has stopped.
    quit_when_ended: bool,
    /// `view --sample ID`: the sample to select once every run has loaded.
    pending_jump: Option<String>,
    /// Bytes for the terminal itself (OSC 52 copies), written by the draw loop.
    pub clipboard: Vec<u8>,
}

impl App {
    /// A viewer over `runs`.
    pub fn new(runs: Vec<RunIndex>, keymap: Keymap, warnings: Vec<String>) -> App {
        let mut app = App {
            model: Model::new(runs, warnings),
            layers: Vec::new(),
            panes: Panes::default(),
            jobs: jobs::Jobs::default(),
            keymap,
            status: String::new(),
            quit: false,
            repaint: false,
            export_dir: None,
            touched: false,
            kinds_first_stamp: None,
            quit_when_ended: false,
            pending_jump: None,
            clipboard: Vec::new(),
        };
        app.model.refilter();
        app.model.select_first_failure();
        // Warnings take the footer's corner when there are any.
        if app.model.warnings.is_empty() {
            app.status = help_hint(&app.keymap);
        }
        app.settle();
        app
    }

    /// Starts opening `dirs` in the background: the first frame comes at once, and
    /// runs join the lists as [`Msg::Loaded`] brings them.
    pub(crate) fn load_in_background(&mut self, dirs: Vec<std::path::PathBuf>) {
        self.jobs.loader = Some(Loader::start(dirs, &self.jobs.tx));
    }

    /// The one place the viewer changes; returns whether the screen may have changed.
    pub fn update(&mut self, msg: Msg) -> bool {
        let changed = match msg {
            Msg::Key(k) => {
                self.status.clear();
                self.key(k);
                true
            }
            Msg::Mouse(m) => {
                self.mouse(m);
                true
            }
            Msg::Resize => true,
            Msg::Loaded(k, run) => self.loaded(k, *run),
            Msg::Found(generation, found) => self.model.take_found(generation, found),
            Msg::Live(report) => {
                if let Some(l) = self.jobs.live.as_mut() {
                    l.take(*report);
                    if self.quit_when_ended && l.ended.is_some() {
                        self.quit = true;
                    }
                    // The status line may cut a long reason: the warnings list keeps it whole.
                    if let Some(w) = &l.last_warning {
                        let w = format!("live run: {w}");
                        if !self.model.warnings.contains(&w) {
                            self.model.warnings.push(w);
                        }
                    }
                }
                self.open_live_dir();
                self.follow();
                true
            }
            Msg::Stderr(line) => self.stderr_line(line),
            Msg::Rescored(out, result) => {
                self.rescored(&out, result);
                true
            }
            Msg::Reopened(run) => {
                self.reopened(*run);
                true
            }
            Msg::Kinds(dir, proved) => self.kinds_arrived(&dir, &proved),
            Msg::Tick => {
                let paused = self
                    .jobs
                    .live
                    .as_mut()
                    .is_some_and(super::live::Live::sync_pause);
                let proved = self
                    .panes
                    .detail
                    .as_ref()
                    .is_some_and(Detail::proof_arrived);
                self.follow() | paused | proved
            }
        };
        self.settle();
        changed
    }

    /// After a change: the search the listing asks for goes to the worker, and the
    /// derived views and the selected sample's detail are made current (`update` does
    /// this; call it after changing the model directly).
    pub fn settle(&mut self) {
        if let Some(job) = self.model.listing.outbox.take() {
            self.jobs.search(job);
        }
        self.ensure_kinds();
        self.model.refresh_derived();
        self.ensure_detail();
        self.refresh_matrix();
        if let Some(Layer::Chart(c)) = self.layers.last_mut() {
            c.picked = self.model.picked_bucket(&c.pick);
            c.kinds = self.model.kind_counts(&c.pick);
        }
    }

    /// Loads the detail of the selected sample if it is not the one shown.
    fn ensure_detail(&mut self) {
        let Some(key) = self.model.selected() else {
            self.panes.detail = None;
            return;
        };
        // Blind: labelling reveals the sample and retracting hides it again, so the
        // detail is rebuilt when its projection no longer matches.
        let hidden = self.model.hidden(key);
        let same = |d: &Detail| d.key == key && (d.blind.is_some() == hidden || d.record.is_err());
        if self.panes.detail.as_ref().is_some_and(same) {
            return;
        }
        let moved = self.panes.detail.as_ref().is_none_or(|d| d.key != key);
        self.panes.detail = Some(Detail::of(&self.model, key));
        if moved {
            self.panes.detail_view.reset_scroll();
        }
    }

    /// Takes every message already waiting (and settles changes made to the model
    /// directly); returns whether any message changed the screen.
    pub fn pump(&mut self) -> bool {
        let mut changed = false;
        while let Some(m) = self.jobs.ready() {
            changed |= self.update(m);
        }
        self.settle();
        changed
    }

    /// Opens on sample `spec` (`view --sample ID`): at once when every run is loaded,
    /// else when the last one arrives (the status says where it landed, or why not).
    pub fn open_on(&mut self, spec: String) {
        if self.jobs.loader.is_none() {
            self.jump_to(&spec);
        } else {
            self.pending_jump = Some(spec);
        }
    }

    /// Before the viewer exits (Ctrl-C included): a live run still going is cancelled and
    /// waited for up to `timeout`, so its run.json says `cancelled`, not `running`.
    /// Returns whether no run was left going.
    pub fn shutdown(&mut self, timeout: Duration) -> bool {
        if !self.jobs.live_running() {
            return true;
        }
        if let Some(l) = self.jobs.live.as_mut() {
            l.cancel();
        }
        self.pump_until(timeout, |a| !a.jobs.live_running())
    }

    /// Takes messages until `done` holds or `timeout` passes; returns whether it held.
    pub fn pump_until(&mut self, timeout: Duration, done: impl Fn(&App) -> bool) -> bool {
        let end = Instant::now() + timeout;
        while !done(self) {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            if let Some(m) = self.jobs.next(left.min(Duration::from_millis(50))) {
                self.update(m);
            } else {
                // Nothing came: background work (a live run's files) may still have moved.
                self.update(Msg::Tick);
            }
        }
        true
    }

    /// A line captured from stderr: listed in the warnings pane with its source
    /// (the first few hundred; the status line counts the rest), or printed when the
    /// viewer has closed and the terminal is the shell's again.
    fn stderr_line(&mut self, line: String) -> bool {
        /// Captured lines kept in the warnings pane.
        const MAX_KEPT: usize = 500;
        if self.quit {
            eprintln!("{line}");
            return false;
        }
        let source = crate::tui::capture::SOURCE;
        let kept = self
            .model
            .warnings
            .iter()
            .filter(|w| w.starts_with(source))
            .count();
        if kept < MAX_KEPT {
            self.model.warnings.push(format!("{source}: {line}"));
        }
        self.status = format!("{source}: {line} (w lists warnings)");
        true
    }

    /// Which layer is on top.
    pub fn mode(&self) -> Mode {
        self.layers.last().map_or(Mode::Normal, Layer::mode)
    }

    /// Which keymap context the top layer reads keys in.
    pub fn context(&self) -> Context {
        self.layers.last().map_or(Context::Normal, Layer::context)
    }

    /// Opens a layer over the others.
    pub fn push(&mut self, layer: Layer) {
        self.layers.push(layer);
    }

    /// Closes the top layer (the filter editor is remembered where it was left).
    pub fn pop(&mut self) {
        if let Some(Layer::Filter(ed)) = self.layers.pop() {
            self.panes.filter_edit = ed;
        }
    }

    /// The chart layer, while it is open.
    pub fn chart_layer(&self) -> Option<&ChartLayer> {
        self.layers.iter().rev().find_map(|l| {
            if let Layer::Chart(c) = l {
                Some(&**c)
            } else {
                None
            }
        })
    }

    /// The filter editor: the open one, else as it was left.
    pub fn filter_editor(&self) -> &super::components::filter_edit::FilterEditor {
        self.layers
            .iter()
            .rev()
            .find_map(|l| {
                if let Layer::Filter(e) = l {
                    Some(e)
                } else {
                    None
                }
            })
            .unwrap_or(&self.panes.filter_edit)
    }

    /// The comparison, while it is open.
    pub fn compare(&self) -> Option<&super::model::CompareView> {
        self.layers.iter().rev().find_map(|l| {
            if let Layer::Compare(v) = l {
                Some(&**v)
            } else {
                None
            }
        })
    }

    /// The rank view, while it is open.
    pub fn rank(&self) -> Option<&super::model::rank::RankView> {
        self.layers.iter().rev().find_map(|l| {
            if let Layer::Rank(v) = l {
                Some(&**v)
            } else {
                None
            }
        })
    }

    /// The run summary, while it is open (`None` inside: no run to summarise).
    pub fn summary(&self) -> Option<&super::model::RunSummary> {
        self.layers.iter().rev().find_map(|l| {
            if let Layer::RunSummary(_, s) = l {
                s.as_deref()
            } else {
                None
            }
        })
    }

    /// The top overlay's scroll.
    pub(crate) fn overlay_scroll(&self) -> u16 {
        self.layers
            .last()
            .and_then(Layer::overlay)
            .map_or(0, |o| o.scroll)
    }

    /// The new-run form, while it is open.
    pub fn form(&self) -> Option<&super::live::Form> {
        self.layers.iter().rev().find_map(|l| {
            if let Layer::NewRun(f) = l {
                Some(&**f)
            } else {
                None
            }
        })
    }

    /// The new-run form to fill in, while it is open.
    pub fn form_mut(&mut self) -> Option<&mut super::live::Form> {
        self.layers.iter_mut().rev().find_map(|l| {
            if let Layer::NewRun(f) = l {
                Some(&mut **f)
            } else {
                None
            }
        })
    }

    /// Handles a key: quit first, then the top layer's keymap context (its fallback, or
    /// a text field).
    pub fn key(&mut self, key: Key) {
        self.touched = true;
        let ctx = self.context();
        let bound = self.keymap.action(ctx, key);
        // Quit is handled once, before any layer sees the key: Ctrl-C always quits.
        let rescoring = self.mode() == Mode::ConfirmRescore;
        let confirming = self.mode() == Mode::ConfirmCancel || rescoring;
        if bound == Some(Action::Quit)
            && key != Key::ctrl_c()
            && !confirming
            && self.jobs.live_running()
        {
            // Quitting would kill the run mid-sample and leave run.json `running`: ask,
            // as cancelling does, and stop it properly first.
            self.quit_when_ended = true;
            self.push(Layer::ConfirmCancel);
            self.status = "a run is going: y cancels it and quits once it has stopped (finished samples stay; resumable), any other key keeps both".into();
            return;
        }
        // Ctrl-L repaints whatever layer is up (something wrote over the screen).
        if key == Key::ctrl_l() {
            self.repaint = true;
            return;
        }
        if key == Key::ctrl_c() || (bound == Some(Action::Quit) && !confirming) {
            self.quit = true;
            return;
        }
        if confirming {
            let asked = if let Some(Layer::ConfirmRescore(i)) = self.layers.last() {
                Some(*i)
            } else {
                None
            };
            self.pop();
            if rescoring {
                self.confirm_rescore(key, asked);
            } else {
                self.confirm_cancel(key);
            }
            return;
        }
        if let Some(a) = bound {
            self.act_in(ctx, a);
            return;
        }
        self.unbound_key(ctx, key);
    }

    /// Parses a key name (`j`, `ctrl-c`, `shift-tab`) and handles it like a key press.
    pub fn press(&mut self, name: &str) -> Result<(), super::keys::KeyError> {
        self.update(Msg::Key(name.parse()?));
        Ok(())
    }

    /// The first key bound to an action in a context, as titles and statuses name it
    /// (arrows as ← → ↑ ↓): never a hard-coded key the user may have rebound.
    pub(crate) fn key_name(&self, ctx: Context, a: Action) -> String {
        self.keymap.hint(ctx, a)
    }

    /// The run under the run list's cursor (an index into the runs): the cursor moves
    /// in the catalogue's order.
    pub fn cursor_run(&self) -> Option<usize> {
        self.model
            .run_order(self.panes.run_sort)
            .get(self.panes.run_list.sel)
            .copied()
    }

    /// Runs loaded and runs named, while loading goes on.
    pub fn loading(&self) -> Option<(usize, usize)> {
        self.jobs.loader.as_ref().map(Loader::progress)
    }

    /// Whether a search is running on the worker.
    pub fn search_pending(&self) -> bool {
        self.model.listing.search.pending.is_some()
    }

    /// A run the loader opened; the ones next in order join the lists. Until the user
    /// presses a key, the selection follows the most instructive failure so far.
    fn loaded(&mut self, k: usize, run: RunIndex) -> bool {
        let Some(loader) = self.jobs.loader.as_mut() else {
            return false;
        };
        let new = loader.arrived(k, run);
        if loader.done() {
            self.jobs.loader = None;
        }
        if new.is_empty() {
            return self.jobs.loader.is_none();
        }
        self.model.add_runs(new);
        self.model.refilter();
        if !self.touched {
            self.model.select_first_failure();
        }
        if self.jobs.loader.is_none()
            && let Some(spec) = self.pending_jump.take()
        {
            self.jump_to(&spec);
        }
        true
    }

    /// Picks up samples appended to the runs' files; returns whether anything changed.
    pub fn follow(&mut self) -> bool {
        let loader = self.jobs.loader.as_ref();
        let changed = self
            .model
            .follow(&|d: &std::path::Path| loader.is_some_and(|l| l.pending(d)));
        self.settle();
        changed
    }

    /// The status line of runs being written by another process: the selected run when
    /// it is one, else the first, with done/total, pass rate and ETA.
    pub fn followed_progress(&self) -> Option<String> {
        let runs = &self.model.runs;
        let running: Vec<usize> = (0..runs.len())
            .filter(|&i| runs[i].progress().is_some())
            .collect();
        let sel = self.model.selected().map(|(r, _)| r as usize);
        let pick = if self.panes.focus == Pane::Runs {
            self.cursor_run()
        } else {
            sel
        }
        .filter(|r| running.contains(r))
        .or_else(|| running.first().copied())?;
        let run = &runs[pick];
        let mut text = format!(
            "running (another process) {} · {}",
            run.name(),
            run.progress().unwrap_or_default()
        );
        if let Some(a) = run.accuracy() {
            text.push_str(&format!(" · pass {:.0}%", a * 100.0));
        }
        if running.len() > 1 {
            text.push_str(&format!(" · {} runs running", running.len()));
        }
        Some(text)
    }

    /// The chart row the chart keeps in view: the picked one while picking, else the
    /// run selected in the run list (when it has focus) or the selected sample's run.
    pub(crate) fn chart_focus(&self) -> Option<usize> {
        if let Some(c) = self.chart_layer() {
            return Some(c.pick.run);
        }
        let run = if self.panes.focus == Pane::Runs {
            self.cursor_run()
        } else {
            self.model.selected().map(|(r, _)| r as usize)
        }?;
        self.model
            .derived
            .chart_runs
            .iter()
            .position(|ri| *ri == run)
    }

    /// A one-line description of the active filters and counts.
    pub fn filter_summary(&self) -> String {
        let mut parts = vec![self.model.filter_summary()];
        parts.extend(self.summary_extras());
        parts.join(" · ")
    }

    /// What the viewer is busy with, after the filter in the list's title: a search
    /// running, runs loading, kinds being proved.
    pub(crate) fn summary_extras(&self) -> Vec<String> {
        let mut parts = Vec::new();
        if self.search_pending() {
            parts.push("searching…".to_string());
        }
        if let Some((done, all)) = self.loading() {
            parts.push(format!("loading runs {done}/{all}…"));
        }
        parts.extend(self.kinds_progress());
        parts
    }
}
