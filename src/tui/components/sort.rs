//! Sorting the sample list (`s` picks the column, `d` reverses, `m` picks a closeness
//! metric, a click on a column header sorts by it): which column, which way, and the
//! order it makes.

use crate::record::Metric;

/// A column the sample list sorts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    /// The measure column (operators, or depth).
    Measure,
    /// The verdict.
    Verdict,
    /// A closeness metric of φ₁ against φ₀ (samples without it last).
    Metric(Metric),
    /// The judge's answer.
    Judge,
    /// Hand-labelled or not.
    Labelled,
    /// The run (and the sample's place in it).
    Run,
}

impl SortKey {
    /// The column at `x` (columns into the sample list's inner area), as the list lays
    /// its columns out (the judge column only when some run has judge decisions; the
    /// metric column, [`METRIC_WIDTH`] wide after the hand-label mark, only while the
    /// list is sorted by a metric).
    pub(crate) fn at_column(x: usize, judged: bool, metric: Option<Metric>) -> SortKey {
        let mark = if judged { 32 } else { 29 };
        match (x, metric) {
            (0..=7, _) => SortKey::Run,
            (8..=13, _) => SortKey::Measure,
            (14..=28, _) => SortKey::Verdict,
            (29..=31, _) if judged => SortKey::Judge,
            (x, _) if x == mark => SortKey::Labelled,
            (x, Some(m)) if x > mark && x <= mark + METRIC_WIDTH => SortKey::Metric(m),
            _ => SortKey::Run,
        }
    }
}

impl SortKey {
    /// The columns in the order `s` steps through them.
    pub const ALL: [SortKey; 6] = [
        SortKey::Measure,
        SortKey::Verdict,
        SortKey::Metric(Metric::Bleu),
        SortKey::Judge,
        SortKey::Labelled,
        SortKey::Run,
    ];

    /// Name in titles (a metric by its field name).
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Measure => "measure",
            SortKey::Verdict => "verdict",
            SortKey::Metric(m) => m.label(),
            SortKey::Judge => "judge",
            SortKey::Labelled => "labelled",
            SortKey::Run => "run",
        }
    }
}

impl SortKey {
    /// Whether sorting by it orders samples by their outcome (closed in blind mode).
    pub(crate) fn tells_outcome(self) -> bool {
        match self {
            SortKey::Verdict | SortKey::Metric(_) | SortKey::Judge => true,
            SortKey::Measure | SortKey::Labelled | SortKey::Run => false,
        }
    }
}

/// Width of the sample list's metric column (shown while sorted by a metric).
pub(crate) const METRIC_WIDTH: usize = 8;

/// The list's sort: none (dataset order, or ranked by a search), or a column and a way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sort {
    /// The column, if sorted.
    pub key: Option<SortKey>,
    /// Largest first.
    pub desc: bool,
}

impl Sort {
    /// The next column (after the last, back to no sort).
    pub fn cycle(&mut self) {
        self.key = match self.key {
            None => Some(SortKey::ALL[0]),
            // Any metric stands in the metrics' place among the columns.
            Some(k) => SortKey::ALL
                .iter()
                .position(|x| *x == k || matches!((x, k), (SortKey::Metric(_), SortKey::Metric(_))))
                .and_then(|i| SortKey::ALL.get(i + 1))
                .copied(),
        };
        self.desc = false;
    }

    /// The next closeness metric: the first when the list is not sorted by one, after
    /// the last back to no sort.
    pub(crate) fn cycle_metric(&mut self) {
        self.key = match self.key {
            Some(SortKey::Metric(m)) => Metric::ALL.get(m.index() + 1).map(|&n| SortKey::Metric(n)),
            _ => Some(SortKey::Metric(Metric::ALL[0])),
        };
        self.desc = false;
    }

    /// The metric sorted by, if any.
    pub fn metric(self) -> Option<Metric> {
        match self.key {
            Some(SortKey::Metric(m)) => Some(m),
            _ => None,
        }
    }

    /// Flips the direction (sorting by the first column when nothing is sorted).
    pub fn reverse(&mut self) {
        if self.key.is_none() {
            self.key = Some(SortKey::ALL[0]);
        }
        self.desc = !self.desc;
    }

    /// A click on a column header: sorts by it, or flips the way when it is the one.
    pub fn click(&mut self, key: SortKey) {
        if self.key == Some(key) {
            self.desc = !self.desc;
        } else {
            *self = Sort {
                key: Some(key),
                desc: false,
            };
        }
    }

    /// `sorted by verdict ↓`, or nothing when unsorted.
    pub fn title(self) -> Option<String> {
        self.key.map(|k| {
            format!(
                "sorted by {} {}",
                k.name(),
                if self.desc { "↓" } else { "↑" }
            )
        })
    }

    /// The order of items given their keys (`None` last either way); ties keep their
    /// present order, so a sort is stable and repeatable.
    pub fn order(self, keys: &[Option<u32>]) -> Vec<u32> {
        let mut idx: Vec<(u32, u32)> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let k = match (k, self.desc) {
                    (None, _) => u32::MAX,
                    (Some(k), false) => (*k).min(u32::MAX - 1),
                    (Some(k), true) => u32::MAX - 1 - (*k).min(u32::MAX - 1),
                };
                (k, i as u32)
            })
            .collect();
        // Unstable is fine: the position breaks every tie.
        idx.sort_unstable();
        idx.into_iter().map(|(_, i)| i).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_stable_with_missing_values_last_both_ways() {
        let keys = [Some(3), None, Some(1), Some(3), Some(2)];
        let mut s = Sort::default();
        s.click(SortKey::Metric(Metric::Bleu));
        assert_eq!(s.order(&keys), [2, 4, 0, 3, 1]);
        s.click(SortKey::Metric(Metric::Bleu));
        assert!(s.desc);
        assert_eq!(s.order(&keys), [0, 3, 4, 2, 1]);
        assert_eq!(s.title().unwrap(), "sorted by bleu ↓");
    }

    #[test]
    fn cycling_visits_every_column_then_none() {
        let mut s = Sort::default();
        for k in SortKey::ALL {
            s.cycle();
            assert_eq!(s.key, Some(k));
        }
        s.cycle();
        assert_eq!(s.key, None);
        s.reverse();
        assert_eq!((s.key, s.desc), (Some(SortKey::Measure), true));
    }

    #[test]
    fn the_metric_key_visits_every_metric_then_none() {
        let mut s = Sort {
            key: Some(SortKey::Verdict),
            desc: true,
        };
        for m in Metric::ALL {
            s.cycle_metric();
            assert_eq!(
                (s.key, s.desc, s.metric()),
                (Some(SortKey::Metric(m)), false, Some(m))
            );
        }
        s.cycle_metric();
        assert_eq!(s.key, None);
        // The metric column sits after the hand-label mark, judged or not.
        for (judged, mark) in [(false, 29), (true, 32)] {
            let m = Some(Metric::Smatch);
            assert_eq!(SortKey::at_column(mark, judged, m), SortKey::Labelled);
            assert_eq!(
                SortKey::at_column(mark + 1, judged, m),
                SortKey::Metric(Metric::Smatch)
            );
            assert_eq!(
                SortKey::at_column(mark + METRIC_WIDTH, judged, m),
                SortKey::Metric(Metric::Smatch)
            );
            assert_eq!(
                SortKey::at_column(mark + METRIC_WIDTH + 1, judged, m),
                SortKey::Run
            );
            assert_eq!(SortKey::at_column(mark + 1, judged, None), SortKey::Run);
        }
    }
}
