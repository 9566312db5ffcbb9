//! The sample list: the rows the filter admits, the search over them, the sort, and
//! the selection. Large searches are handed back as jobs for a worker.

use super::filter::{Filter, row_passes, run_passes};
use super::{Model, Pool};
use crate::tui::components::list::ListCursor;
use crate::tui::components::search_box::SearchBox;
use crate::tui::components::sort::{Sort, SortKey};
use crate::tui::search::{Found, Job, Query, merge_by, run_job};
use crate::verify::VerdictKind;
use std::collections::HashSet;
use std::sync::Arc;

/// The list's state.
#[derive(Default)]
pub struct Listing {
    /// Filters.
    pub filter: Filter,
    /// The search box: the query and the searches' bookkeeping.
    pub search: SearchBox,
    /// Rows passing the filters (before search).
    base: Pool,
    /// Rows shown: (run, row).
    pub visible: Vec<(u32, u32)>,
    /// The selection (an index into `visible`) and scroll.
    pub sample_list: ListCursor,
    /// The sort.
    pub sort: Sort,
    /// φ₀ that pass in the run the "passes in" filter names (rebuilt by `refilter`).
    passing_elsewhere: HashSet<u64>,
    /// Bumped whenever the rows, their labels or the list change: derived views and
    /// the detail are recomputed when it moves.
    pub generation: u64,
    /// A search too big for the UI thread, waiting to be handed to the worker.
    pub outbox: Option<Job>,
}

impl Model {
    fn passes(&self, run: usize, row: u32) -> bool {
        let ri = &self.runs[run];
        let l = &self.listing;
        if self.blind.is_some() {
            return run_passes(&l.filter, run, ri)
                && super::blind::passes(&l.filter, &self.blind_row((run as u32, row)));
        }
        run_passes(&l.filter, run, ri)
            && row_passes(
                &l.filter,
                self.by,
                &l.passing_elsewhere,
                run,
                ri,
                &ri.rows[row as usize],
            )
    }

    /// Recomputes the list after a filter change.
    pub fn refilter(&mut self) {
        self.listing.passing_elsewhere = self.passing_in();
        let mut base = Vec::new();
        let l = &self.listing;
        for (ri, run) in self.runs.iter().enumerate() {
            if !run_passes(&l.filter, ri, run) {
                continue;
            }
            let (f, by, elsewhere) = (&l.filter, self.by, &l.passing_elsewhere);
            let me = self.annotator.as_str();
            let blind = self.blind.is_some();
            let kept = crate::tui::search::filter_range_parallel(run.rows.len() as u32, |i| {
                let row = &run.rows[i as usize];
                if blind {
                    // Blind: the filter sees the row's projection only.
                    let b = super::blind::BlindRow::of(ri, run, i, row, me, by);
                    return super::blind::passes(f, &b);
                }
                row_passes(f, by, elsewhere, ri, run, row)
            });
            base.extend(kept.into_iter().map(|i| (ri as u32, i)));
        }
        self.listing.base = Arc::new(base);
        self.listing.search.last.clear();
        self.research();
    }

    /// Recomputes the search over the filtered rows, narrowing the previous results
    /// when the query grew (sound: a row matching a query matches its prefixes). A
    /// search over more than the search box's sync limit rows is left in the outbox for
    /// the search worker: the
    /// list keeps its last results until the worker's answer arrives, so typing never
    /// waits for a search, and a result overtaken by newer typing is dropped.
    pub fn research(&mut self) {
        let (_, narrowed) = self.listing.search.begin();
        let pool: Pool = if narrowed {
            Arc::new(self.listing.visible.clone())
        } else {
            self.listing.base.clone()
        };
        if self.listing.search.field.text.trim().is_empty() {
            self.listing.search.pending = None;
            self.apply_search(
                Found {
                    rows: pool.to_vec(),
                    scores: Vec::new(),
                },
                String::new(),
            );
            return;
        }
        let job = self.search_job(pool);
        if job.pool.len() <= self.listing.search.sync_limit {
            self.listing.search.pending = None;
            let found = run_job(&job);
            self.apply_search(found, job.query);
        } else {
            self.listing.search.pending = Some((job.generation, job.query.clone()));
            self.listing.outbox = Some(job);
        }
    }

    /// A worker's search result: shown when it is the one awaited; true if so.
    pub(crate) fn take_found(&mut self, generation: u64, found: Found) -> bool {
        match self.listing.search.take_if_awaited(generation) {
            Some(query) => {
                self.apply_search(found, query);
                true
            }
            None => false,
        }
    }

    /// The current query over `pool`, with snapshots of the texts and the rows that
    /// match through a hand label or note (labels are few and live here).
    fn search_job(&self, pool: Pool) -> Job {
        let s = &self.listing.search;
        let q = Query::new(&s.field.text);
        let mut by_label = HashSet::new();
        if self.blind.is_some() {
            // Blind: the search sees the projection, φ₀, ψ and this annotator's own
            // label; never φ₁'s parse, the reasoning, or others' labels and notes.
            for &at in pool.iter() {
                if self.blind_row(at).label_matches(&q) {
                    by_label.insert(at);
                }
            }
            return Job {
                blind: true,
                reasoning: false,
                ..self.job_over(pool, by_label)
            };
        }
        for &(r, i) in pool.iter() {
            let run = &self.runs[r as usize];
            if run.labels.is_empty() {
                continue;
            }
            // Hand labels and notes are searchable too (`/scope` finds a note about scope).
            let row = &run.rows[i as usize];
            if run.labels.get(&*row.id).is_some_and(|ls| {
                ls.iter()
                    .any(|l| q.matches(&l.note) || l.categories.iter().any(|c| q.matches(c)))
            }) {
                by_label.insert((r, i));
            }
        }
        self.job_over(pool, by_label)
    }

    /// A search job over `pool` with the texts' snapshots.
    fn job_over(&self, pool: Pool, by_label: HashSet<(u32, u32)>) -> Job {
        let s = &self.listing.search;
        Job {
            generation: s.generation,
            query: s.field.text.clone(),
            pool,
            text_of: self
                .runs
                .iter()
                .map(crate::tui::data::RunIndex::text_index)
                .collect(),
            stores: self.runs.iter().map(|r| r.texts.clone()).collect(),
            by_label,
            ranked: s.ranked,
            reasoning: s.reasoning,
            blind: false,
        }
    }

    /// Search the calls' reasoning too, or stop (re-run from the filtered list).
    pub(crate) fn toggle_search_reasoning(&mut self) {
        self.listing.search.toggle_reasoning();
        self.research();
    }

    /// Search results: best match first ↔ dataset order (re-run from the filtered list:
    /// the old results are in the other order).
    pub(crate) fn toggle_order(&mut self) {
        self.listing.search.toggle_order();
        self.research();
    }

    fn apply_search(&mut self, found: Found, query: String) {
        let l = &mut self.listing;
        let keep = l.visible.get(l.sample_list.sel).copied();
        // A new ranked query selects its best match, as a fuzzy finder does; in
        // dataset order (or when only the rows changed) the selection stays put.
        let to_best = !found.scores.is_empty() && query != l.search.last;
        l.visible = found.rows;
        l.search.scores = found.scores;
        l.search.last = query;
        self.apply_sort();
        let l = &mut self.listing;
        l.sample_list.sel = if to_best {
            0
        } else {
            keep.and_then(|k| l.visible.iter().position(|v| *v == k))
                .unwrap_or(0)
        };
        l.generation += 1;
    }

    /// Selects the first failing sample (the most instructive first screen): a real
    /// model's not-equivalent answer with at least two operators if there is one,
    /// else any not-equivalent sample.
    pub(crate) fn select_first_failure(&mut self) {
        if self.blind.is_some() {
            // Blind: the first sample of the blind order, whatever its outcome.
            self.listing.sample_list.sel = 0;
            return;
        }
        let real = |r: u32| {
            self.runs[r as usize]
                .manifest
                .as_ref()
                .is_some_and(|m| !m.model.synthetic)
        };
        let failing = |(r, i): &(u32, u32)| {
            self.runs[*r as usize].rows[*i as usize].verdict == VerdictKind::NotEquivalent
        };
        let v = &self.listing.visible;
        let pick = v
            .iter()
            .position(|x| {
                failing(x)
                    && real(x.0)
                    && self.runs[x.0 as usize].rows[x.1 as usize]
                        .ops
                        .is_some_and(|o| o >= 2)
            })
            .or_else(|| v.iter().position(|x| failing(x) && real(x.0)))
            .or_else(|| v.iter().position(failing));
        if let Some(i) = pick {
            self.listing.sample_list.sel = i;
        }
    }

    /// Moves the selection; true when it moved.
    pub(crate) fn step_selection(&mut self, delta: isize) -> bool {
        let n = self.listing.visible.len();
        self.listing.sample_list.step(delta, n)
    }

    /// Moves to the next sample in the list that this annotator has not labelled;
    /// false when every one is.
    pub(crate) fn next_unlabelled(&mut self) -> bool {
        let n = self.listing.visible.len();
        for step in 1..=n {
            let k = (self.listing.sample_list.sel + step) % n;
            if !self.labelled_by_me(self.listing.visible[k]) {
                self.listing.sample_list.sel = k;
                return true;
            }
        }
        false
    }

    /// Changes the sort and re-sorts the list (back to dataset or ranked order when the
    /// sort is cleared), keeping the selected sample selected.
    pub(crate) fn sort_by(&mut self, change: impl FnOnce(&mut Sort)) {
        let before = self.listing.sort;
        change(&mut self.listing.sort);
        if self.blind.is_some()
            && self
                .listing
                .sort
                .key
                .is_some_and(crate::tui::components::sort::SortKey::tells_outcome)
        {
            // Blind: an order by verdict, judge or closeness would tell (a header click).
            self.listing.sort = before;
            return;
        }
        if self.listing.sort.key.is_none() {
            // Unsorted: the order the filter and search give.
            self.listing.search.last.clear();
            self.research();
            return;
        }
        let keep = self.selected();
        self.apply_sort();
        let l = &mut self.listing;
        l.sample_list.sel = keep
            .and_then(|k| l.visible.iter().position(|v| *v == k))
            .unwrap_or(0);
        l.generation += 1;
    }

    /// The sort key of a row under a column (`None` sorts last).
    fn sort_key(&self, key: SortKey, r: u32, i: u32) -> Option<u32> {
        if self.blind.is_some() {
            // Blind: the sort reads the projection (size, own label, run place); the
            // outcome columns have no key here.
            let b = self.blind_row((r, i));
            return match key {
                SortKey::Measure => b.measure.map(|c| c as u32),
                SortKey::Labelled => Some(u32::from(b.labelled())),
                SortKey::Run => Some(b.run as u32),
                SortKey::Verdict | SortKey::Metric(_) | SortKey::Judge => None,
            };
        }
        let run = &self.runs[r as usize];
        let row = &run.rows[i as usize];
        match key {
            SortKey::Measure => self.category(r, i).map(|c| c as u32),
            SortKey::Verdict => Some(row.verdict as u32),
            SortKey::Metric(m) => row.scores.get(m).map(u32::from),
            SortKey::Judge => run.judge.get(&*row.id).map(|j| j.answer as u32),
            SortKey::Labelled => Some(u32::from(run.labels.contains_key(&*row.id))),
            SortKey::Run => Some(r),
        }
    }

    /// Puts the list in the sort's order (ties keep the order they had); search scores
    /// follow their rows.
    fn apply_sort(&mut self) {
        let Some(key) = self.listing.sort.key else {
            self.apply_blind_order();
            return;
        };
        let keys: Vec<Option<u32>> = self
            .listing
            .visible
            .iter()
            .map(|&(r, i)| self.sort_key(key, r, i))
            .collect();
        let l = &mut self.listing;
        let order = l.sort.order(&keys);
        l.visible = order.iter().map(|&k| l.visible[k as usize]).collect();
        if l.search.scores.len() == order.len() {
            l.search.scores = order.iter().map(|&k| l.search.scores[k as usize]).collect();
        }
    }

    /// Blind mode, unsorted and not ranked by a search: the annotator's own seeded
    /// order (`labels::blind::order`; ids are `RUN/ID` when several runs are loaded).
    fn apply_blind_order(&mut self) {
        let Some(seed) = self.blind else {
            return;
        };
        if !self.listing.search.scores.is_empty() {
            return;
        }
        let several = self.runs.len() > 1;
        let ids: Vec<String> = self
            .listing
            .visible
            .iter()
            .map(|&(r, i)| {
                let run = &self.runs[r as usize];
                let id = &*run.rows[i as usize].id;
                if several {
                    format!("{}/{id}", run.name())
                } else {
                    id.to_string()
                }
            })
            .collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let order = crate::labels::blind::order(&refs, &self.annotator, seed);
        let l = &mut self.listing;
        l.visible = order.iter().map(|&k| l.visible[k]).collect();
    }

    /// Adds rows appended since `before` (per run: rows, base generation) to the
    /// filtered list and, when they match the search, to what is shown.
    pub(super) fn take_appended(&mut self, before: &[(usize, u64)]) {
        let mut new = Vec::new();
        for (ri, &(n, _)) in before.iter().enumerate() {
            for i in n..self.runs[ri].rows.len() {
                if self.passes(ri, i as u32) {
                    new.push((ri as u32, i as u32));
                }
            }
        }
        self.listing.generation += 1;
        if new.is_empty() {
            return;
        }
        // Lists are in (run, row) order, as a full refilter makes them: merge.
        let base = merge_by(&self.listing.base, &new, |a, b| a <= b);
        self.listing.base = Arc::new(base);
        let searching = !self.listing.search.field.text.trim().is_empty();
        let shown = if searching {
            run_job(&self.search_job(Arc::new(new)))
        } else {
            Found {
                rows: new,
                scores: Vec::new(),
            }
        };
        let keep = self.selected();
        let l = &mut self.listing;
        let ranked = searching && l.search.ranked;
        let old = Found {
            rows: std::mem::take(&mut l.visible),
            scores: std::mem::take(&mut l.search.scores),
        };
        let merged = old.merge(shown, ranked);
        l.visible = merged.rows;
        l.search.scores = merged.scores;
        if let Some(k) = keep
            && let Some(p) = l.visible.iter().position(|v| *v == k)
        {
            l.sample_list.sel = p;
        }
    }
}
