//! The new-run form's reference task (its `task` field, instead of a dataset): the name
//! read, and the task's real prompts for the cost estimate, counted as `run --dry-run
//! --task` counts them (`run::task_estimate`); loaded once per task, shots and prompt
//! directory, not at every key.

use super::form_scale::FormError;
use crate::dataset::Dataset;
use crate::dataset::task_kind::TaskKind;
use std::collections::HashMap;

/// The task a field names (`None`: empty), or why it names none.
pub(crate) fn parse_task(v: &str) -> Result<Option<TaskKind>, FormError> {
    if v.is_empty() {
        return Ok(None);
    }
    TaskKind::from_name(v).map(Some).ok_or_else(|| {
        FormError::Invalid(format!(
            "reference task: '{}' is not one of {}",
            crate::base::sanitize::one_line(v),
            names()
        ))
    })
}

/// The six tasks' names, for messages and the form's hint.
pub(crate) fn names() -> String {
    TaskKind::ALL
        .iter()
        .map(|t| t.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A task's dataset (for `--limit`'s pick) and each sample's estimated (prompt, answer)
/// tokens by idx.
type Counted = (Dataset, HashMap<usize, (u64, u64)>);

/// A task's samples and each one's estimated (prompt, answer) tokens.
#[derive(Debug)]
pub(crate) struct TaskPlan {
    key: (TaskKind, usize, String),
    /// The task's samples counted, or why they did not load.
    loaded: Result<Counted, String>,
}

impl TaskPlan {
    /// Loads task `t`'s shipped data and renders every prompt with `shots` examples from
    /// the prompt directory `prompts` (empty: the built-in prompts).
    pub(crate) fn load(t: TaskKind, shots: usize, prompts: &str) -> TaskPlan {
        let loaded = (|| {
            let set = if prompts.is_empty() {
                crate::prompt::PromptSet::builtin(shots)
            } else {
                crate::prompt::PromptSet::load(std::path::Path::new(prompts), shots)
            }
            .map_err(|e| format!("prompts: {e:#}"))?;
            let source = t.default_source(&crate::run::task::data_root());
            let task = crate::run::task::load(t, &source, shots)?;
            let tokens = task
                .dataset
                .file
                .data
                .iter()
                .filter_map(|i| {
                    crate::run::task_estimate::call(&task.set, &set, i)
                        .map(|c| (i.idx, (c.input, c.output)))
                })
                .collect();
            Ok((task.dataset, tokens))
        })();
        TaskPlan {
            key: (t, shots, prompts.to_string()),
            loaded,
        }
    }

    /// Whether it was loaded for these settings.
    pub(crate) fn is_for(&self, t: TaskKind, shots: usize, prompts: &str) -> bool {
        self.key.0 == t && self.key.1 == shots && self.key.2 == prompts
    }

    /// (samples, prompt tokens, answer tokens) of the run `--limit` and `--seed` pick.
    pub(crate) fn tokens(
        &self,
        limit: Option<usize>,
        seed: u64,
    ) -> Result<(u64, u64, u64), String> {
        let (ds, tokens) = self.loaded.as_ref().map_err(Clone::clone)?;
        let mut ds = ds.clone();
        crate::dataset::limit::apply(&mut ds, limit, seed);
        let (mut n, mut tin, mut tout) = (0, 0, 0);
        for (i, o) in ds.file.data.iter().filter_map(|i| tokens.get(&i.idx)) {
            n += 1;
            tin += i;
            tout += o;
        }
        Ok((n, tin, tout))
    }
}
