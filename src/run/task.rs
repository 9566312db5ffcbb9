//! Reference tasks (the paper's §A1, Appendix K) as runs: FOLIO and Multi-LogiEval items
//! become the samples of an ordinary run (same directory, resume, cache, batches,
//! budget), each one call whose answer is read by [`crate::analysis::task_answer`].
//!
//! Every item is one sample with idx = its place in the task's item list, so resume and
//! `--limit` work as for datasets. `folio-a` and `folio-i` take one sample per distinct
//! FOLIO premise whose FOL reads (the paper screened premises the same way).

use crate::analysis::task_answer::LabelSet;
use crate::dataset::tasks::{TaskData, TaskItem, load_folio, load_multi_logieval};
use crate::dataset::{Dataset, DatasetFile, Item};
use crate::prompt::{PromptSet, Rendered};
use crate::syntax::folio::{FolioNames, parse_folio};
use crate::syntax::{Expr, SyntaxKind, logic_metrics};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::dataset::task_kind::{TaskFiles, TaskKind, TaskShape};

/// The facts of a task that need the analysis layer (its answer labels and how it
/// counts); the rest of its table is [`crate::dataset::task_kind`].
impl TaskKind {
    /// The labels a reasoning task answers with (None: `folio-a`, `folio-i`).
    pub fn labels(self) -> Option<LabelSet> {
        match self {
            TaskKind::FolioRNl | TaskKind::FolioRFol => Some(LabelSet::Folio),
            TaskKind::MultiLogievalPl | TaskKind::MultiLogievalFol => Some(LabelSet::YesNo),
            TaskKind::FolioA | TaskKind::FolioI => None,
        }
    }

    /// How its samples count toward A2 and A3.
    pub fn scoring(self) -> crate::analysis::counts::TaskScoring {
        use crate::analysis::counts::TaskScoring;
        match self.shape() {
            TaskShape::Reasoning => TaskScoring::Answer,
            TaskShape::Autoformalize => TaskScoring::Formula,
            TaskShape::Informalize => TaskScoring::Text,
        }
    }
}

/// Where the shipped task data is: `$AUTOEVAL_TASK_DATA`, else the `data/` folder of the
/// source tree the binary was built from.
pub fn data_root() -> PathBuf {
    std::env::var_os("AUTOEVAL_TASK_DATA").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("data"),
        PathBuf::from,
    )
}

/// How a run's samples count toward A2 and A3: by its task's rule, or (None) a
/// dataset's.
pub fn scoring_of(m: &crate::record::Manifest) -> Option<crate::analysis::counts::TaskScoring> {
    m.task().map(TaskKind::scoring)
}

/// One sample of a task run.
#[derive(Clone, Debug)]
pub struct TaskUnit {
    /// The task's item (for `folio-a`/`folio-i`, the story record the premise is from).
    pub item: TaskItem,
    /// `folio-a`/`folio-i`: which premise of the record.
    pub premise: Option<usize>,
    /// `folio-a`/`folio-i`: the premise's FOL, read (FOLIO notation, names made safe).
    pub phi0: Option<Expr>,
    /// `folio-a`/`folio-i`: other premises of the same record as examples, (FOL, English).
    pub examples: Vec<(String, String)>,
    /// Operator count (the premise's, or the conclusion's for `folio-r-*`).
    pub operators: Option<usize>,
}

impl TaskUnit {
    /// The sample's id in the task's data (`3-7`, `3-7/p2`, `d3/pl/HS_MP_MP/7`).
    pub fn item_id(&self) -> String {
        match self.premise {
            Some(k) => format!("{}/p{}", self.item.id, k + 1),
            None => self.item.id.clone(),
        }
    }
}

/// A task's samples, by idx.
#[derive(Debug)]
pub struct TaskSet {
    /// The task.
    pub kind: TaskKind,
    /// Samples, idx = position.
    pub units: Vec<TaskUnit>,
    /// Solved items shown as examples with `--shots 2` (reasoning tasks).
    pub shots: Vec<usize>,
}

/// A loaded task: its samples, the dataset the driver walks, what was read with a caveat.
pub struct LoadedTask {
    /// The samples.
    pub set: TaskSet,
    /// One dataset item per sample (idx, category), for the driver, `--limit` and resume.
    pub dataset: Dataset,
    /// Lines left out, files read as ISO-8859-1, premises that do not read.
    pub warnings: Vec<String>,
}

/// Operators of a formula.
fn operators(e: &Expr) -> Option<usize> {
    match e {
        Expr::Logic(f) => Some(logic_metrics(f).operators),
        Expr::Regex(_) => None,
    }
}

/// Reads `kind`'s items from `source` (a FOLIO JSON-lines file, or Multi-LogiEval's
/// folder with `d1_Data` … `d5_Data`); refuses a source with no usable item.
pub fn load(kind: TaskKind, source: &Path, shots: usize) -> Result<LoadedTask, String> {
    let (data, mut warnings) = read_items(kind, source);
    let mut names = FolioNames::default();
    let mut read = |s: &str| parse_folio(s, &mut names).ok().map(Expr::Logic);
    let units = match kind.shape() {
        TaskShape::Autoformalize | TaskShape::Informalize => {
            premise_units(&data.items, shots, &mut read, &mut warnings)
        }
        TaskShape::Reasoning => question_units(&data.items, &mut read),
    };
    if units.is_empty() {
        return Err(format!(
            "{}: no usable {} item{}",
            source.display(),
            kind.name(),
            warnings
                .first()
                .map(|w| format!(" ({w})"))
                .unwrap_or_default()
        ));
    }
    let set = TaskSet {
        kind,
        shots: if shots >= 2 && kind.labels().is_some() {
            shot_items(&units, kind)
        } else {
            Vec::new()
        },
        units,
    };
    let dataset = dataset_of(&set);
    Ok(LoadedTask {
        set,
        dataset,
        warnings,
    })
}

/// The task's items as its files hold them (FOLIO's `[BG]` marks taken off), and what
/// was read with a caveat.
fn read_items(kind: TaskKind, source: &Path) -> (TaskData, Vec<String>) {
    let mut data = match kind.files() {
        TaskFiles::Folio => load_folio(source),
        TaskFiles::MultiLogieval(logic) => load_multi_logieval(source, logic),
    };
    let warnings: Vec<String> = data.errors.iter().chain(&data.notes).cloned().collect();
    // FOLIO marks background premises `[BG] …`: an annotation, not part of the
    // sentence (and a `[` opening a line reads as a prompt block).
    for item in &mut data.items {
        for p in &mut item.premises {
            if let Some(rest) = p.strip_prefix("[BG]") {
                *p = rest.trim_start().to_string();
            }
        }
    }
    (data, warnings)
}

/// `folio-a`/`folio-i`: one sample per distinct premise whose FOL reads, with other
/// premises of its story as examples; records whose premises cannot be paired with
/// their FOL, and FOL that does not read, are left out and said in `warnings`.
fn premise_units(
    items: &[TaskItem],
    shots: usize,
    read: &mut impl FnMut(&str) -> Option<Expr>,
    warnings: &mut Vec<String>,
) -> Vec<TaskUnit> {
    let mut units = Vec::new();
    let mut seen = HashSet::new();
    let mut unread = 0usize;
    let mut uneven = Vec::new();
    for item in items {
        if item.premises.len() != item.premises_fol.len() {
            uneven.push(item.id.clone());
            continue;
        }
        let parsed: Vec<Option<Expr>> = item.premises_fol.iter().map(|f| read(f)).collect();
        for (k, phi0) in parsed.iter().enumerate() {
            let Some(phi0) = phi0 else {
                unread += 1;
                continue;
            };
            if !seen.insert((item.premises[k].clone(), item.premises_fol[k].clone())) {
                continue;
            }
            let examples = parsed
                .iter()
                .enumerate()
                .filter(|(j, e)| *j != k && e.is_some())
                .filter_map(|(j, e)| Some((e.as_ref()?.to_unicode(), item.premises[j].clone())))
                .take(if shots >= 2 { 2 } else { 1 })
                .collect();
            units.push(TaskUnit {
                item: item.clone(),
                premise: Some(k),
                operators: operators(phi0),
                phi0: Some(phi0.clone()),
                examples,
            });
        }
    }
    if !uneven.is_empty() {
        warnings.push(format!(
            "{} FOLIO records have not one premise-FOL per premise, so which formula \
             is which premise's is unknown; their premises are left out ({})",
            uneven.len(),
            uneven.join(", ")
        ));
    }
    if unread > 0 {
        warnings.push(format!(
            "{unread} premise-FOL formulas do not read as FOLIO notation and are left out \
             (the paper screened premises the same way)"
        ));
    }
    units
}

/// Reasoning tasks: one sample per item, its operator count the conclusion-FOL's.
fn question_units(
    items: &[TaskItem],
    read: &mut impl FnMut(&str) -> Option<Expr>,
) -> Vec<TaskUnit> {
    items
        .iter()
        .map(|item| {
            let conclusion = item.conclusion_fol.as_deref().and_then(&mut *read);
            TaskUnit {
                item: item.clone(),
                premise: None,
                operators: conclusion.as_ref().and_then(operators),
                phi0: None,
                examples: Vec::new(),
            }
        })
        .collect()
}

/// Two solved items for `--shots 2`: the first items with different gold labels.
fn shot_items(units: &[TaskUnit], kind: TaskKind) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let set = kind.labels().unwrap_or(LabelSet::YesNo);
    let mut labels = Vec::new();
    for (i, u) in units.iter().enumerate() {
        let g = crate::analysis::task_answer::gold(&u.item.gold, set);
        if g.is_some() && !labels.contains(&g) {
            labels.push(g);
            out.push(i);
        }
        if out.len() == 2 {
            break;
        }
    }
    out
}

/// The dataset the driver walks: one item per sample with its category.
fn dataset_of(set: &TaskSet) -> Dataset {
    let kind = set.kind;
    let data = set
        .units
        .iter()
        .enumerate()
        .map(|(idx, u)| Item {
            idx,
            fs: u.phi0.as_ref().map(Expr::to_unicode).unwrap_or_default(),
            depth: u.item.depth.map(|d| d as usize),
            num_operators: u.operators,
            num_propositions: None,
            num_quantifiers: None,
            num_predicates: None,
            num_nodes: None,
            num_edges: None,
            density: None,
            batch: None,
            fs_unicode: None,
            fs_ascii: None,
            tree_depth: None,
            num_terminals: None,
            distinct_symbols: None,
            extra: Map::new(),
        })
        .collect();
    let info: Map<String, Value> = [
        ("type", Value::from(kind.name())),
        ("task", Value::from(kind.name())),
        ("filter_field", Value::from(kind.filter_field())),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Dataset {
        file: DatasetFile {
            info,
            metadata: Map::new(),
            data,
            extra: Map::new(),
        },
        syntax: kind.syntax(),
        exprs: Vec::new(),
        skipped: Vec::new(),
    }
}

impl TaskSet {
    /// The prompt of sample `idx`.
    pub fn prompt(&self, prompts: &PromptSet, idx: usize) -> Option<Rendered> {
        let u = self.units.get(idx)?;
        match self.kind.shape() {
            TaskShape::Autoformalize => self.premise_prompt(prompts, u, false),
            TaskShape::Informalize => self.premise_prompt(prompts, u, true),
            TaskShape::Reasoning => Some(self.question_prompt(prompts, u, idx)),
        }
    }

    /// `folio-a` (English premise → formula) or, with `informalize`, `folio-i`
    /// (formula → English): the premise with other premises of its story as examples.
    fn premise_prompt(
        &self,
        prompts: &PromptSet,
        u: &TaskUnit,
        informalize: bool,
    ) -> Option<Rendered> {
        let phi0 = u.phi0.as_ref()?;
        let k = u.premise?;
        let vocabulary = crate::prompt::vocabulary::describe(phi0, SyntaxKind::Fol);
        let mut examples = String::new();
        for (i, (fol, nl)) in u.examples.iter().enumerate() {
            let (a, b) = if informalize { (fol, nl) } else { (nl, fol) };
            examples.push_str(&format!("\n[EXAMPLE {}]\n{a}\n{b}\n", i + 1));
        }
        let target = if informalize {
            ("{formula}", phi0.to_unicode())
        } else {
            ("{description}", u.item.premises.get(k)?.clone())
        };
        Some(prompts.task(
            self.kind.template(),
            &[
                ("{vocabulary}", vocabulary.as_str()),
                ("{examples}", examples.as_str()),
                (target.0, target.1.as_str()),
            ],
        ))
    }

    /// A reasoning task's question, with the solved items of `--shots 2` (other than
    /// sample `idx` itself) as examples.
    fn question_prompt(&self, prompts: &PromptSet, u: &TaskUnit, idx: usize) -> Rendered {
        let (premises, conclusion) = self.question(u);
        let mut examples = String::new();
        for (i, &j) in self.shots.iter().enumerate().filter(|&(_, &j)| j != idx) {
            let Some(s) = self.units.get(j) else { continue };
            let (p, c) = self.question(s);
            examples.push_str(&format!(
                "\n[EXAMPLE {}]\n[PREMISES]:\n{p}\n[CONCLUSION]:\n{c}\nAnswer: {}\n",
                i + 1,
                s.item.gold
            ));
        }
        prompts.task(
            self.kind.template(),
            &[
                ("{examples}", examples.as_str()),
                ("{premises}", premises.as_str()),
                ("{conclusion}", conclusion.as_str()),
            ],
        )
    }

    /// The premises (one a line) and the conclusion a reasoning task shows for a unit.
    pub fn question(&self, u: &TaskUnit) -> (String, String) {
        if self.kind.shows_fol() {
            (
                u.item.premises_fol.join("\n"),
                u.item.conclusion_fol.clone().unwrap_or_default(),
            )
        } else {
            (u.item.premises.join("\n"), u.item.conclusion.clone())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_loads_from_the_shipped_data_with_its_categories() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
        for kind in TaskKind::ALL {
            let t = load(kind, &kind.default_source(&root), 0).unwrap();
            assert!(!t.set.units.is_empty(), "{}", kind.name());
            assert_eq!(t.dataset.file.data.len(), t.set.units.len());
            assert_eq!(TaskKind::from_name(kind.name()), Some(kind));
            let p = t.set.prompt(&PromptSet::builtin(0).unwrap(), 0).unwrap();
            assert!(!p.text.contains("{premises}") && !p.text.contains("{formula}"));
        }
        let ml = load(TaskKind::MultiLogievalPl, &root.join("multi-logieval"), 0).unwrap();
        assert_eq!(ml.set.units.len(), 525);
        assert!(ml.dataset.file.data.iter().all(|i| i.depth.is_some()));
        let a = load(
            TaskKind::FolioA,
            &root.join("folio/folio-v0.0-validation.jsonl"),
            0,
        )
        .unwrap();
        // Distinct premises only, each with an example from its own story.
        let ids: HashSet<String> = a.set.units.iter().map(TaskUnit::item_id).collect();
        assert_eq!(ids.len(), a.set.units.len());
        let with_one = a.set.units.iter().filter(|u| u.examples.len() == 1).count();
        assert!(a.set.units.iter().all(|u| u.examples.len() <= 1));
        assert!(
            with_one * 100 >= a.set.units.len() * 95,
            "{with_one} of {}",
            a.set.units.len()
        );
        let two = load(
            TaskKind::FolioI,
            &root.join("folio/folio-v0.0-validation.jsonl"),
            2,
        )
        .unwrap();
        assert!(two.set.units.iter().any(|u| u.examples.len() == 2));
    }
}
