//! Picking a chart bucket (`v`): which bucket and run are highlighted, and whether the
//! failure kinds of the bucket are shown.

use super::super::keymap::{Action, Context};
use super::Effect;

/// The chart picker's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChartPick {
    /// Index of the highlighted bucket on the chart's axis.
    pub bucket: usize,
    /// Index of the highlighted run among the chart's rows.
    pub run: usize,
    /// Failure kinds × buckets instead of accuracy.
    pub kinds: bool,
}

impl ChartPick {
    /// The keymap context whose bindings drive it.
    pub const CONTEXT: Context = Context::Chart;

    /// Handles an action; `buckets` and `runs` are the chart's axis length and rows.
    pub fn handle(&mut self, a: Action, buckets: usize, runs: usize) -> Effect {
        match a {
            Action::PrevBucket => self.bucket = self.bucket.saturating_sub(1),
            Action::NextBucket => self.bucket = (self.bucket + 1).min(buckets.saturating_sub(1)),
            Action::Up => self.run = self.run.saturating_sub(1),
            Action::Down => self.run = (self.run + 1).min(runs.saturating_sub(1)),
            Action::Open => return Effect::Show { one_run: true },
            Action::ChartAllRuns => return Effect::Show { one_run: false },
            Action::ChartKinds => self.kinds = !self.kinds,
            Action::Back => return Effect::Close,
            _ => {}
        }
        Effect::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_stay_on_the_axis_and_picks_say_which_runs() {
        let mut c = ChartPick::default();
        for _ in 0..10 {
            c.handle(Action::NextBucket, 4, 2);
            c.handle(Action::Down, 4, 2);
        }
        assert_eq!((c.bucket, c.run), (3, 1));
        c.handle(Action::PrevBucket, 4, 2);
        assert_eq!(c.bucket, 2);
        assert_eq!(c.handle(Action::Open, 4, 2), Effect::Show { one_run: true });
        assert_eq!(
            c.handle(Action::ChartAllRuns, 4, 2),
            Effect::Show { one_run: false }
        );
        assert_eq!(c.handle(Action::ChartKinds, 4, 2), Effect::None);
        assert!(c.kinds);
        assert_eq!(c.handle(Action::Back, 4, 2), Effect::Close);
    }
}
