//! Sorting the sample list (`s` picks the column, `r` reverses, a click on a column
//! header sorts by it): which column, which way, and the order it makes.

/// A column the sample list sorts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    /// The measure column (operators, or depth).
    Measure,
    /// The verdict.
    Verdict,
    /// BLEU of φ₁ against φ₀ (the closeness metric rows carry).
    Bleu,
    /// The judge's answer.
    Judge,
    /// Hand-labelled or not.
    Labelled,
    /// The run (and the sample's place in it).
    Run,
}

impl SortKey {
    /// The column at `x` (columns into the sample list's inner area), as the list lays
    /// its columns out (the judge column only when some run has judge decisions).
    pub fn at_column(x: usize, judged: bool) -> SortKey {
        let mark = if judged { 32 } else { 29 };
        match x {
            0..=7 => SortKey::Run,
            8..=13 => SortKey::Measure,
            14..=28 => SortKey::Verdict,
            29..=31 if judged => SortKey::Judge,
            x if x == mark => SortKey::Labelled,
            _ => SortKey::Run,
        }
    }
}

impl SortKey {
    /// The columns in the order `s` steps through them.
    pub const ALL: [SortKey; 6] = [
        SortKey::Measure,
        SortKey::Verdict,
        SortKey::Bleu,
        SortKey::Judge,
        SortKey::Labelled,
        SortKey::Run,
    ];

    /// Name in titles.
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Measure => "measure",
            SortKey::Verdict => "verdict",
            SortKey::Bleu => "BLEU",
            SortKey::Judge => "judge",
            SortKey::Labelled => "labelled",
            SortKey::Run => "run",
        }
    }
}

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
            Some(k) => SortKey::ALL
                .iter()
                .position(|x| *x == k)
                .and_then(|i| SortKey::ALL.get(i + 1))
                .copied(),
        };
        self.desc = false;
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
        s.click(SortKey::Bleu);
        assert_eq!(s.order(&keys), [2, 4, 0, 3, 1]);
        s.click(SortKey::Bleu);
        assert!(s.desc);
        assert_eq!(s.order(&keys), [0, 3, 4, 2, 1]);
        assert_eq!(s.title().unwrap(), "sorted by BLEU ↓");
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
}
