//! The viewer's data: the runs, the listing over them (filter, search, sort,
//! selection), the label work, and the views derived from them. No terminal types and
//! no threads: [`crate::tui::app::App::update`] changes it, drawing only reads it.

pub mod blind;
pub mod catalogue;
pub mod derived;
pub mod detail;
pub mod filter;
pub mod jump;
pub mod listing;
pub mod matrix;
pub mod names;
pub mod rank;
pub mod summary;
pub mod task_filter;

use super::components::label_panel::LabelPanel;
use super::data::RunIndex;
use crate::report::By;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use derived::ChartFit;
pub use derived::{
    Bucket, CompareColumn, CompareView, Derived, KindCounts, PickedBucket, axis, outcomes,
};
pub use detail::{Detail, Highlighted};
pub use filter::{
    ClosenessFilter, DisagreeFilter, Filter, JudgeFilter, LabelFilter, TruncatedFilter,
};
pub use listing::Listing;
pub use summary::RunSummary;
pub use task_filter::{AnswerFilter, CorrectFilter, GoldFilter};

/// The runs and everything the viewer knows about them.
pub struct Model {
    /// Loaded runs, in the order they were named or found.
    pub runs: Vec<RunIndex>,
    /// Folders given to the viewer, re-scanned for run directories made later.
    pub watch: Vec<PathBuf>,
    /// Category metric for chart and range filter.
    pub by: By,
    /// The sample list: filter, search, sort, selection.
    pub listing: Listing,
    /// Label categories.
    pub taxonomy: super::labels::Taxonomy,
    /// Who labels.
    pub annotator: String,
    /// Whether the viewer has said that labels go in as `anonymous` (it says so once).
    pub anonymous_warned: bool,
    /// Blind labelling (`view --blind`, `blind = true`), with the seed of the order:
    /// what a sample's verdict and automatic analyses say stays hidden until this
    /// annotator has labelled it, and the list is in the annotator's own order.
    pub blind: Option<u64>,
    /// The note being typed and the undo history of label changes.
    pub labelling: LabelPanel,
    /// Warnings from loading (themes, config, files).
    pub warnings: Vec<String>,
    /// Size of each run's labels.jsonl when last read (to notice other writers).
    label_sizes: Vec<u64>,
    /// The chart's per-run aggregates, kept up to date incrementally.
    chart_cache: derived::ChartCache,
    /// Views computed from the above after each change, for drawing to read.
    pub derived: Derived,
}

/// Size of a run's labels file (0 when absent).
pub(crate) fn labels_len(dir: &Path) -> u64 {
    std::fs::metadata(dir.join(crate::run::store::LABELS)).map_or(0, |m| m.len())
}

impl Model {
    /// A model over `runs`, their warnings collected, the list filtered.
    pub fn new(runs: Vec<RunIndex>, warnings: Vec<String>) -> Model {
        let mut m = Model {
            runs: Vec::new(),
            watch: Vec::new(),
            by: By::Operators,
            listing: Listing::default(),
            taxonomy: super::labels::Taxonomy::builtin(),
            annotator: super::labels::annotator(None),
            anonymous_warned: false,
            blind: None,
            labelling: LabelPanel::default(),
            warnings,
            label_sizes: Vec::new(),
            chart_cache: derived::ChartCache::default(),
            derived: Derived::default(),
        };
        m.add_runs(runs);
        m
    }

    /// Adds runs (their warnings too) and picks depth as the measure when every run is
    /// charted by depth. The caller refilters.
    pub(crate) fn add_runs(&mut self, runs: Vec<RunIndex>) {
        for r in runs {
            self.warnings.extend(r.warnings.iter().cloned());
            self.label_sizes.push(labels_len(&r.dir));
            self.runs.push(r);
        }
        if !self.runs.is_empty()
            && self.runs.iter().all(|r| {
                r.manifest
                    .as_ref()
                    .is_some_and(|m| m.dataset.filter_field == "depth")
            })
        {
            self.by = By::Depth;
        }
    }

    /// Opens a run directory made since the viewer started (a live run, a rescore).
    pub(crate) fn open_run(&mut self, dir: &Path) {
        if !self.runs.iter().any(|r| r.dir == dir) {
            self.runs.push(RunIndex::open(dir));
            self.label_sizes.push(labels_len(dir));
            self.forget_empty_folders();
            self.refilter();
        }
    }

    /// Drops the "no run directories here" warning of a watched folder that holds a
    /// run now (one found by following, started from the form, or rescored into it).
    pub(crate) fn forget_empty_folders(&mut self) {
        for w in &self.watch {
            if self.runs.iter().any(|r| r.dir.starts_with(w)) {
                let stale = format!("{}: no run directories here", w.display());
                self.warnings.retain(|x| !x.starts_with(&stale));
            }
        }
    }

    /// Puts a run read again (its samples file was replaced, as a rescore in place
    /// does: following only notices appends) in its old place, or adds it.
    pub(crate) fn replace_run(&mut self, run: RunIndex) {
        let size = labels_len(&run.dir);
        if let Some(i) = self.runs.iter().position(|r| r.dir == run.dir) {
            self.runs[i] = run;
            self.label_sizes[i] = size;
        } else {
            self.runs.push(run);
            self.label_sizes.push(size);
        }
        self.forget_empty_folders();
        self.refilter();
    }

    /// The category value of a row under the current metric.
    /// A sample without the chosen metric (regexes have no operator count) falls back
    /// to the other, so every run has a chart and a category column.
    pub fn category(&self, run: u32, row: u32) -> Option<usize> {
        let r = &self.runs[run as usize].rows[row as usize];
        match self.by {
            By::Operators => r.ops.or(r.depth).map(usize::from),
            By::Depth => r.depth.or(r.ops).map(usize::from),
        }
    }

    /// Which measure [`Model::category`] gives for a row: the chosen one, or the other
    /// when the row lacks it (a regex has a depth, no operator count).
    pub fn measure_of(&self, run: u32, row: u32) -> &'static str {
        let r = &self.runs[run as usize].rows[row as usize];
        match (self.by, r.ops.is_some(), r.depth.is_some()) {
            (By::Operators, false, true) | (By::Depth, _, true) => "depth",
            _ => "ops",
        }
    }

    /// The selected (run, row).
    pub fn selected(&self) -> Option<(u32, u32)> {
        self.listing
            .visible
            .get(self.listing.sample_list.sel)
            .copied()
    }

    /// The sample's id.
    pub fn id_of(&self, (r, i): (u32, u32)) -> &str {
        &self.runs[r as usize].rows[i as usize].id
    }

    /// This annotator's current categories and note for the selected sample.
    pub fn my_labels(&self) -> (Vec<String>, String) {
        self.my_label().unwrap_or_default()
    }

    /// This annotator's label on the selected sample, or None when there is none (never
    /// labelled, or retracted).
    pub(crate) fn my_label(&self) -> Option<(Vec<String>, String)> {
        self.my_state()
            .in_force()
            .map(|(c, n)| (c.to_vec(), n.to_string()))
    }

    /// Where this annotator's label on the selected sample stands, folded from the
    /// run's label history by [`crate::labels::state::LabelState::fold`].
    pub fn my_state(&self) -> crate::labels::state::LabelState {
        self.selected()
            .map(|at| self.state_at(at))
            .unwrap_or_default()
    }

    /// This annotator's label state on row `at`.
    pub fn state_at(&self, (r, i): (u32, u32)) -> crate::labels::state::LabelState {
        let run = &self.runs[r as usize];
        let id = &*run.rows[i as usize].id;
        run.label_history
            .get(id)
            .map(|h| {
                crate::labels::state::LabelState::fold(
                    h.iter().filter(|x| x.annotator == self.annotator),
                )
            })
            .unwrap_or_default()
    }

    /// The note typed on the selected sample while it had no label in force (not
    /// recorded until a category or "nothing wrong" is).
    pub fn my_draft(&self) -> &str {
        self.selected().map_or("", |(r, i)| {
            self.labelling
                .draft(r as usize, &self.runs[r as usize].rows[i as usize].id)
        })
    }

    /// Carries out one label edit on the selected sample through the state machine
    /// ([`crate::labels::state::edit`]): appends what it writes, keeps a draft note,
    /// and remembers the state before, for undo. Returns what the edit came to.
    pub(crate) fn label_edit(
        &mut self,
        e: crate::labels::state::Edit,
    ) -> Result<crate::labels::state::Step, super::labels::LabelError> {
        use crate::labels::state::Step;
        let Some((r, i)) = self.selected() else {
            return Ok(Step::Unchanged("no sample selected"));
        };
        let earlier = self.state_at((r, i));
        let id = self.runs[r as usize].rows[i as usize].id.to_string();
        let step = crate::labels::state::edit(&earlier, self.labelling.draft(r as usize, &id), e);
        let (categories, note, retract) = match &step {
            Step::Write { categories, note } => (categories.clone(), note.clone(), false),
            Step::Retract { note } => (vec![], note.clone(), true),
            Step::Draft(text) => {
                self.labelling.set_draft(r as usize, &id, text);
                return Ok(step);
            }
            Step::Ask(_) | Step::Unchanged(_) => return Ok(step),
        };
        let run = &mut self.runs[r as usize];
        let rec = crate::labels::append_record(
            &run.dir,
            crate::record::LabelRecord {
                id: id.clone(),
                categories,
                note,
                annotator: self.annotator.clone(),
                time: String::new(),
                blind: self.blind.is_some(),
                adjudicator: None,
                retract,
            },
        )?;
        // A retraction keeps its note in the form as a draft; a label takes the draft.
        self.labelling
            .set_draft(r as usize, &id, if retract { &rec.note } else { "" });
        run.label_history
            .entry(id.clone())
            .or_default()
            .push(rec.clone());
        let list = run.labels.entry(id.clone()).or_default();
        list.retain(|x| x.annotator != rec.annotator);
        if !retract {
            list.push(rec);
        } else if list.is_empty() {
            // No label left: the sample is unlabelled again (filters, ✎, `n`).
            run.labels.remove(&id);
        }
        self.labelling
            .remember(super::components::label_panel::Earlier {
                run: r as usize,
                id,
                label: earlier,
            });
        if let Some(s) = self.label_sizes.get_mut(r as usize) {
            *s = labels_len(&run.dir);
        }
        self.listing.generation += 1;
        Ok(step)
    }

    /// Records this annotator's settled label for sample `id` of run `run`, the way
    /// `autoeval labels adjudicate` does, and refilters (a settled sample leaves the
    /// "unsettled" filter).
    pub fn adjudicate(
        &mut self,
        run: usize,
        id: &str,
        categories: Vec<String>,
    ) -> Result<(), super::labels::LabelError> {
        let Some(r) = self.runs.get_mut(run) else {
            return Ok(());
        };
        let rec = crate::labels::adjudicate(&r.dir, id, &categories, "", &self.annotator)?;
        let list = r.labels.entry(id.to_string()).or_default();
        list.retain(|x| x.annotator != rec.annotator);
        list.push(rec);
        if let Some(s) = self.label_sizes.get_mut(run) {
            *s = labels_len(&r.dir);
        }
        self.refilter();
        Ok(())
    }

    /// Whether this annotator has labelled the row.
    pub(crate) fn labelled_by_me(&self, (r, i): (u32, u32)) -> bool {
        let run = &self.runs[r as usize];
        run.labels
            .get(&*run.rows[i as usize].id)
            .is_some_and(|l| l.iter().any(|x| x.annotator == self.annotator))
    }

    /// Whether blind mode hides the row's verdict and analyses: blind, and not yet
    /// labelled by this annotator.
    pub fn hidden(&self, at: (u32, u32)) -> bool {
        self.blind.is_some() && !self.labelled_by_me(at)
    }

    /// Dataset kinds of the loaded runs, sorted.
    pub fn kinds(&self) -> Vec<String> {
        self.runs
            .iter()
            .map(RunIndex::kind)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    /// The answer labels of the loaded reference-task runs, in [`Label::ALL`] order;
    /// every label when no task run is loaded (yet: runs load in the background).
    ///
    /// [`Label::ALL`]: crate::analysis::task_answer::Label::ALL
    pub(crate) fn task_labels(&self) -> Vec<crate::analysis::task_answer::Label> {
        use crate::analysis::task_answer::Label;
        let sets: Vec<_> = self
            .runs
            .iter()
            .filter_map(|r| r.manifest.as_ref().and_then(crate::record::Manifest::task))
            .filter_map(crate::dataset::task_kind::TaskKind::labels)
            .collect();
        Label::ALL
            .into_iter()
            .filter(|l| sets.is_empty() || sets.iter().any(|s| s.labels().contains(l)))
            .collect()
    }

    /// The folder being viewed (the first folder named on the command line, else the
    /// folder holding the first run): where a new run goes by default.
    pub(crate) fn viewed_folder(&self) -> Option<&Path> {
        self.watch
            .first()
            .map(PathBuf::as_path)
            .or_else(|| self.runs.first().and_then(|r| r.dir.parent()))
    }

    /// Picks up samples appended to the runs' files, run directories made under the
    /// watched folders, and labels other viewers wrote; returns whether anything changed.
    /// `pending` says whether a directory is still being opened by the loader.
    pub fn follow(&mut self, pending: &dyn Fn(&Path) -> bool) -> bool {
        let mut added = 0;
        // Rows only appended (the usual live run) are filtered and searched on their
        // own; anything else (new runs, labels, a rewritten file) filters everything.
        let before: Vec<(usize, u64)> = self
            .runs
            .iter()
            .map(|r| (r.rows.len(), r.base_generation))
            .collect();
        let mut only_appends = true;
        for w in self.watch.clone() {
            for dir in super::data::discover(&w) {
                if !pending(&dir) && !self.runs.iter().any(|r| r.dir == dir) {
                    only_appends = false;
                    self.runs.push(RunIndex::open(&dir));
                    self.label_sizes.push(labels_len(&dir));
                    added += 1;
                }
            }
        }
        self.forget_empty_folders();
        for (k, r) in self.runs.iter_mut().enumerate() {
            if r.refresh_manifest() {
                added += 1;
                only_appends = false;
            }
            added += r.refresh();
            // Another viewer may be labelling the same run.
            let len = labels_len(&r.dir);
            if self.label_sizes.get(k).is_some_and(|s| *s != len) {
                r.reload_labels();
                if let Some(s) = self.label_sizes.get_mut(k) {
                    *s = len;
                }
                added += 1;
                only_appends = false;
            }
        }
        if added == 0 {
            return false;
        }
        let l = &self.listing;
        // Blind mode keeps its own order: appended rows are placed by a refilter.
        let appended = only_appends
            && self.blind.is_none()
            && l.sort.key.is_none()
            && l.filter.passes_in.is_none()
            && l.search.pending.is_none()
            && before
                .iter()
                .zip(&self.runs)
                .all(|(&(n, g), r)| r.base_generation == g && r.rows.len() >= n);
        if appended {
            self.take_appended(&before);
        } else {
            self.refilter();
        }
        true
    }

    /// Runs that passed a φ₀, by hash, for the "passes in" filter.
    pub(super) fn passing_in(&self) -> HashSet<u64> {
        match self.listing.filter.passes_in.and_then(|i| self.runs.get(i)) {
            Some(run) => run
                .rows
                .iter()
                .filter(|r| r.verdict.is_pass())
                .map(|r| r.phi0_hash)
                .collect(),
            None => HashSet::new(),
        }
    }
}

/// Rows per (category, bucket): shared by label counts and kind counts.
pub type Counts2 = BTreeMap<String, BTreeMap<usize, usize>>;

/// The shared, cheaply cloned filtered rows a search starts from.
pub(crate) type Pool = Arc<Vec<(u32, u32)>>;
