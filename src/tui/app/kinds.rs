//! The viewer's side of the kinds pass: runs listed before their failure kinds are
//! proved are handed to the kinds worker, the samples on screen and in the filtered
//! list are asked for first, and proved kinds fill the rows as they arrive.

use super::App;
use crate::run::row_kinds::is_pending;
use std::collections::HashMap;
use std::path::PathBuf;

/// Rows around the selection asked for first (a screen's worth and more).
const AROUND: usize = 80;
/// Rows of a filtered list asked for first after the screen's.
const FILTERED: usize = 2_000;

impl App {
    /// Hands runs with kinds still to prove to the worker, and tells it which samples
    /// the screen and the filter want first (when that changed).
    pub(super) fn ensure_kinds(&mut self) {
        let mut asked = false;
        for i in 0..self.model.runs.len() {
            let run = &self.model.runs[i];
            if run.kinds_asked || run.kinds_pending.1 == 0 {
                continue;
            }
            let todo = crate::run::kinds_cache::todo(&run.rows);
            let dir = run.dir.clone();
            self.jobs.kinds().submit(&dir, todo);
            self.model.runs[i].kinds_asked = true;
            asked = true;
        }
        if !self.jobs.kinds_started() {
            return;
        }
        let l = &self.model.listing;
        let stamp = (l.generation, l.sample_list.sel, l.visible.len());
        if !asked && self.kinds_first_stamp == Some(stamp) {
            return;
        }
        self.kinds_first_stamp = Some(stamp);
        let sel = l.sample_list.sel;
        let around = l
            .visible
            .iter()
            .skip(sel.saturating_sub(AROUND / 4))
            .take(AROUND);
        // A filtered list's rows next: the filter in use gets its kinds first.
        let total: usize = self.model.runs.iter().map(|r| r.rows.len()).sum();
        let filtered = l
            .visible
            .iter()
            .take(if l.visible.len() < total { FILTERED } else { 0 });
        let mut wanted: Vec<(PathBuf, u64)> = Vec::new();
        for &(r, i) in around.chain(filtered) {
            let Some(run) = self.model.runs.get(r as usize) else {
                continue;
            };
            if let Some(row) = run.rows.get(i as usize)
                && is_pending(row.fails)
            {
                wanted.push((run.dir.clone(), row.kinds_key));
            }
        }
        self.jobs.kinds().first(wanted);
    }

    /// Proved kinds arrived for the run in `dir`: its rows take them, and what is
    /// counted or filtered by kind is made again.
    pub(super) fn kinds_arrived(&mut self, dir: &std::path::Path, proved: &[(u64, u32)]) -> bool {
        let proved: HashMap<u64, u32> = proved.iter().copied().collect();
        let selected = self.model.selected();
        let mut changed = false;
        let mut shown_changed = false;
        for (ri, run) in self.model.runs.iter_mut().enumerate() {
            if run.dir != dir {
                continue;
            }
            if let Some((r, i)) = selected
                && r as usize == ri
                && run
                    .rows
                    .get(i as usize)
                    .is_some_and(|row| is_pending(row.fails) && proved.contains_key(&row.kinds_key))
            {
                shown_changed = true;
            }
            changed |= run.take_kinds(&proved);
        }
        if !changed {
            return false;
        }
        if self.model.listing.filter.failure.is_some() {
            self.model.refilter();
        }
        self.model.listing.generation += 1;
        if shown_changed {
            // The detail shows the sample's kinds: made again with them.
            self.panes.detail = None;
        }
        true
    }

    /// "kinds: 34 % proved" while any run's kinds are still being proved.
    pub(crate) fn kinds_progress(&self) -> Option<String> {
        let (total, left) = self.model.runs.iter().fold((0, 0), |(t, l), r| {
            (t + r.kinds_pending.0, l + r.kinds_pending.1)
        });
        (left > 0).then(|| {
            format!(
                "kinds: {} % proved",
                (total - left.min(total)) * 100 / total.max(1)
            )
        })
    }
}
