//! Sorting the run catalogue (`s` / `d` while the run list has focus): which column,
//! which way, and the order it makes. The run list keeps each run's index; only the
//! order it is drawn in changes.

/// A column the run catalogue sorts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunSortKey {
    /// The run's name.
    Name,
    /// When it was made.
    Created,
    /// Samples done.
    Samples,
    /// Pass rate.
    Pass,
    /// USD spent.
    Cost,
    /// Status (running, finished, cancelled…).
    Status,
}

impl RunSortKey {
    /// The columns in the order `s` steps through them.
    pub const ALL: [RunSortKey; 6] = [
        RunSortKey::Name,
        RunSortKey::Created,
        RunSortKey::Samples,
        RunSortKey::Pass,
        RunSortKey::Cost,
        RunSortKey::Status,
    ];

    /// Name in the header and statuses.
    pub fn name(self) -> &'static str {
        match self {
            RunSortKey::Name => "name",
            RunSortKey::Created => "created",
            RunSortKey::Samples => "samples",
            RunSortKey::Pass => "pass",
            RunSortKey::Cost => "cost",
            RunSortKey::Status => "status",
        }
    }

    /// Whether the order would tell how runs did (closed in blind mode).
    pub(crate) fn tells_outcome(self) -> bool {
        match self {
            RunSortKey::Pass | RunSortKey::Name | RunSortKey::Cost => true,
            RunSortKey::Created | RunSortKey::Samples | RunSortKey::Status => false,
        }
    }
}

/// The catalogue's sort: none (the order runs were named or found), or a column and a way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunSort {
    /// The column, if sorted.
    pub key: Option<RunSortKey>,
    /// Largest (or latest, or last alphabetically) first.
    pub desc: bool,
}

impl RunSort {
    /// The next column (after the last, back to no sort); `blind` passes over the
    /// columns that would tell.
    pub fn cycle(&mut self, blind: bool) {
        loop {
            self.key = match self.key {
                None => Some(RunSortKey::ALL[0]),
                Some(k) => RunSortKey::ALL
                    .iter()
                    .position(|x| *x == k)
                    .and_then(|i| RunSortKey::ALL.get(i + 1))
                    .copied(),
            };
            if !(blind && self.key.is_some_and(RunSortKey::tells_outcome)) {
                break;
            }
        }
        self.desc = false;
    }

    /// Reverses the direction (nothing while unsorted).
    pub fn reverse(&mut self) {
        if self.key.is_some() {
            self.desc = !self.desc;
        }
    }

    /// The header's words for it (`sorted by cost ▼`), or empty.
    pub fn describe(self) -> String {
        self.key.map_or_else(String::new, |k| {
            format!(
                "sorted by {} {}",
                k.name(),
                if self.desc { "▼" } else { "▲" }
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_through_every_column_then_back_to_none_and_blind_skips_the_telling_ones() {
        let mut s = RunSort::default();
        let mut seen = Vec::new();
        for _ in 0..7 {
            s.cycle(false);
            seen.push(s.key);
        }
        assert_eq!(seen[..6], RunSortKey::ALL.map(Some));
        assert_eq!(seen[6], None);
        let mut b = RunSort::default();
        let mut seen = Vec::new();
        for _ in 0..4 {
            b.cycle(true);
            seen.push(b.key);
        }
        assert_eq!(
            seen,
            [
                Some(RunSortKey::Created),
                Some(RunSortKey::Samples),
                Some(RunSortKey::Status),
                None
            ]
        );
        b.reverse();
        assert!(!b.desc, "unsorted: nothing to reverse");
    }
}
