//! The run catalogue's order: the runs sorted by a column of the run list.

use super::Model;
use crate::tui::components::run_sort::{RunSort, RunSortKey};
use std::cmp::Ordering;

/// A run's value in a catalogue column.
#[derive(PartialEq, PartialOrd)]
enum Value {
    Text(String),
    Number(f64),
}

impl Model {
    /// A run's value in the column `key` (None: unknown).
    fn run_value(&self, run: usize, key: RunSortKey) -> Option<Value> {
        let r = &self.runs[run];
        match key {
            RunSortKey::Name => Some(Value::Text(r.name())),
            RunSortKey::Created => Some(r.created()).filter(|c| !c.is_empty()).map(Value::Text),
            RunSortKey::Samples => Some(Value::Number(r.rows.len() as f64)),
            RunSortKey::Pass => r.accuracy().map(Value::Number),
            RunSortKey::Cost => r.cost.map(Value::Number),
            RunSortKey::Status => Some(Value::Text(r.status().to_string())),
        }
    }

    /// The runs in the catalogue's order (indices into `runs`): ties keep the order runs
    /// were named or found, and unknown values (no manifest, nothing priced) go last
    /// whichever the direction.
    pub fn run_order(&self, sort: RunSort) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.runs.len()).collect();
        let Some(key) = sort.key else {
            return order;
        };
        let values: Vec<Option<Value>> = order.iter().map(|&r| self.run_value(r, key)).collect();
        order.sort_by(|&a, &b| match (&values[a], &values[b]) {
            (Some(x), Some(y)) => {
                let o = x.partial_cmp(y).unwrap_or(Ordering::Equal);
                if sort.desc { o.reverse() } else { o }
            }
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (None, None) => Ordering::Equal,
        });
        order
    }
}
