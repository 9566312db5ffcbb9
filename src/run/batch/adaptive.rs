//! Adaptive runs through a provider's batch API: each round's items go out as batches
//! of their own (one per stage: informalizations, then autoformalizations), and the
//! next round is planned when they are all answered.
//!
//! A round whose batches were open when the run stopped is finished first on resume
//! (its answers are paid for), before the design plans anything new.

use super::super::driver::{Event, RunError, RunSpec};
use super::super::store;
use super::{BatchOutcome, BatchSpec, execute_on, state};
use crate::run::adaptive::{self, Design};
use std::collections::HashSet;
use tokio::sync::{mpsc, watch};

/// Sample ids with a request in an open batch or an answer stored, of samples not
/// written yet: a round that was under way.
fn started(spec: &RunSpec) -> Result<HashSet<String>, RunError> {
    let st = state::State::load(&spec.out, false).map_err(RunError::Store)?;
    let mut ids: HashSet<String> = st
        .open
        .iter()
        .flat_map(|(_, o)| o.custom_ids.iter())
        .chain(st.results.keys())
        .filter_map(|cid| cid.rsplitn(3, '_').nth(2).map(str::to_string))
        .collect();
    if spec.out.join(store::SAMPLES).exists() {
        for r in store::read_samples(&spec.out)?.records {
            ids.remove(&r.id);
        }
    }
    Ok(ids)
}

/// Plans a round, runs its items through batches, until the design says stop.
pub(super) async fn rounds(
    mut spec: RunSpec,
    batch: &BatchSpec,
    d: &Design,
    events: &mpsc::UnboundedSender<Event>,
    cancel: &mut watch::Receiver<bool>,
) -> Result<BatchOutcome, RunError> {
    let mut rounds = adaptive::Rounds::start(
        &spec.out,
        &mut spec.dataset.file.data,
        &spec.dataset_info.kind,
        d,
    )?;
    let mut items = std::mem::take(&mut rounds.items);
    let mut outcome = BatchOutcome::Finished;
    while rounds.next(&spec.out, &mut spec.resume) {
        let unfinished = started(&spec)?;
        let resumed: Vec<_> = items
            .iter()
            .filter(|i| unfinished.contains(&i.idx.to_string()))
            .cloned()
            .collect();
        spec.dataset.file.data = if resumed.is_empty() {
            match adaptive::plan(&spec.out, &mut items, d, &rounds.kind)? {
                Some(round) => round.items,
                None => break,
            }
        } else {
            resumed
        };
        outcome = execute_on(&spec, batch, events, cancel).await?;
        if outcome != BatchOutcome::Finished {
            break;
        }
    }
    Ok(outcome)
}
