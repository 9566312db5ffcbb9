//! Jumping to a sample by id (`:` then an id, `view --sample ID`): `ID`, or `RUN/ID`
//! when several runs hold that id (RUN is the run's name, its folder's name, or its
//! place in the run list, `2/17`).

use super::Model;

/// Where a jump landed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Jumped {
    /// The row, (run, index).
    pub at: (u32, u32),
    /// Filters and search had to be cleared to show it.
    pub cleared: bool,
    /// Other runs that hold the same id (named as the lists name them).
    pub also_in: Vec<String>,
}

impl Model {
    /// The runs `spec`'s RUN part names: by name, folder name, or 1-based place. In blind
    /// mode only by place, as the lists call runs `run N`.
    fn runs_named(&self, run: &str) -> Vec<usize> {
        let run = run.trim();
        let by_place = run
            .strip_prefix("run ")
            .unwrap_or(run)
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=self.runs.len()).contains(n))
            .map(|n| n - 1);
        if self.blind.is_some() {
            return by_place.into_iter().collect();
        }
        let named: Vec<usize> = (0..self.runs.len())
            .filter(|&k| {
                let r = &self.runs[k];
                r.name() == run
                    || r.dir
                        .file_name()
                        .is_some_and(|f| f.to_string_lossy() == run)
            })
            .collect();
        if named.is_empty() {
            by_place.into_iter().collect()
        } else {
            named
        }
    }

    /// Finds the sample `spec` names: `ID`, or `RUN/ID`. An id alone prefers the
    /// selected sample's run, then the first run holding it.
    pub fn find_sample(&self, spec: &str) -> Result<((u32, u32), Vec<usize>), String> {
        let spec = spec.trim();
        if spec.is_empty() {
            return Err("type a sample id (RUN/ID when several runs hold it)".into());
        }
        let holding = |id: &str, runs: &mut dyn Iterator<Item = usize>| -> Vec<(usize, u32)> {
            runs.filter_map(|k| {
                self.runs[k]
                    .rows
                    .iter()
                    .position(|r| &*r.id == id)
                    .map(|i| (k, i as u32))
            })
            .collect()
        };
        // The whole text as an id first: ids may hold a slash themselves.
        let mut found = holding(spec, &mut (0..self.runs.len()));
        if found.is_empty()
            && let Some((run, id)) = spec.rsplit_once('/')
        {
            let runs = self.runs_named(run);
            if runs.is_empty() {
                return Err(format!(
                    "no run named '{}': RUN is a run's name, its folder or its place in the run list",
                    crate::base::sanitize::one_line(run)
                ));
            }
            found = holding(id.trim(), &mut runs.into_iter());
        }
        let Some(&first) = found.first() else {
            return Err(format!(
                "no sample with id '{}' in the {} run(s) loaded",
                crate::base::sanitize::one_line(spec),
                self.runs.len()
            ));
        };
        let here = self.selected().map(|(r, _)| r as usize);
        let pick = found
            .iter()
            .find(|(k, _)| Some(*k) == here)
            .copied()
            .unwrap_or(first);
        let others = found
            .iter()
            .map(|(k, _)| *k)
            .filter(|k| *k != pick.0)
            .collect();
        Ok(((pick.0 as u32, pick.1), others))
    }

    /// Selects the sample `spec` names, clearing filters and search when they hide it.
    pub fn jump(&mut self, spec: &str) -> Result<Jumped, String> {
        let (at, others) = self.find_sample(spec)?;
        let mut cleared = false;
        if !self.listing.visible.contains(&at) {
            self.listing.filter = super::Filter::default();
            self.listing.search.field.text.clear();
            self.refilter();
            cleared = true;
        }
        let Some(k) = self.listing.visible.iter().position(|v| *v == at) else {
            return Err("the sample is not in the list (is its run hidden?)".into());
        };
        self.listing.sample_list.sel = k;
        self.listing.generation += 1;
        let also_in = others
            .into_iter()
            .map(|k| {
                if self.blind.is_some() {
                    format!("run {}", k + 1)
                } else {
                    self.runs[k].name()
                }
            })
            .collect();
        Ok(Jumped {
            at,
            cleared,
            also_in,
        })
    }
}
