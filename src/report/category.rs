//! `report --by FIELD` beyond operators and depth (the paper's Appendix I cuts): counts
//! read from φ₀ (`and`, `or`, `not`, `quantifiers`, `predicates`, `terminals`,
//! `tree_depth`, `distinct_symbols`), a regex's minimal-DFA `dfa_states`, `dfa_edges` and
//! `density` (in tenths) computed from φ₀ as `generate` stores them, and any other
//! numeric field the run's dataset stores per item (`num_propositions`, …), joined to the
//! samples by their dataset index.

use crate::dataset::{Dataset, Item};
use crate::record::SampleRecord;
use crate::syntax::{BinOp, Expr, Formula, logic_metrics};
use std::collections::HashMap;
use std::path::Path;

/// Fields computed from φ₀.
pub const FORMULA_FIELDS: [&str; 8] = [
    "and",
    "or",
    "not",
    "quantifiers",
    "predicates",
    "terminals",
    "tree_depth",
    "distinct_symbols",
];

/// Fields of a regex's minimal DFA, computed from φ₀ as `generate` computes them
/// (Appendix I), with the dataset's names for them.
pub const DFA_FIELDS: [(&str, &str); 3] = [
    ("dfa_states", "num_nodes"),
    ("dfa_edges", "num_edges"),
    ("density", "density"),
];

/// Names a user may write for dataset fields, and the item field they read.
const ALIASES: [(&str, &str); 1] = [("propositions", "num_propositions")];

/// A category field and where its values come from.
pub struct Field {
    /// The field's name as the report shows it.
    pub label: String,
    /// Dataset index → value, for dataset fields (None: computed from φ₀).
    from_dataset: Option<HashMap<usize, usize>>,
}

/// ∧, ∨ and ¬ occurrences of a formula.
fn connectives(f: &Formula) -> [usize; 3] {
    let mut n = [0; 3];
    f.walk(&mut |g| match g {
        Formula::Bin(BinOp::And, ..) => n[0] += 1,
        Formula::Bin(BinOp::Or, ..) => n[1] += 1,
        Formula::Not(_) => n[2] += 1,
        _ => {}
    });
    n
}

/// The value of a dataset item's field `name` (a density in tenths).
fn item_value(item: &Item, name: &str) -> Option<usize> {
    match name {
        "num_propositions" => item.num_propositions,
        "num_quantifiers" => item.num_quantifiers,
        "num_predicates" => item.num_predicates,
        "num_nodes" => item.num_nodes,
        "num_edges" => item.num_edges,
        "tree_depth" => item.tree_depth,
        "num_terminals" => item.num_terminals,
        "distinct_symbols" => item.distinct_symbols,
        "density" => item.density.map(|d| (d * 10.0).round().max(0.0) as usize),
        other => item
            .extra
            .get(other)
            .and_then(serde_json::Value::as_u64)
            .map(|v| v as usize),
    }
}

impl Field {
    /// The field `name` for the run in `dir` (its dataset is read when the field is the
    /// dataset's); an unknown name is an error listing what there is.
    pub fn resolve(name: &str, dir: &Path, m: &crate::record::Manifest) -> Result<Field, String> {
        let name = name.trim().to_ascii_lowercase().replace('-', "_");
        if let Some((dfa, _)) = DFA_FIELDS.iter().find(|(a, b)| *a == name || *b == name) {
            return Ok(Field {
                label: if *dfa == "density" {
                    "density (tenths)".into()
                } else {
                    (*dfa).to_string()
                },
                from_dataset: None,
            });
        }
        if FORMULA_FIELDS.contains(&name.as_str()) {
            return Ok(Field {
                label: name,
                from_dataset: None,
            });
        }
        let item_field = ALIASES
            .iter()
            .find(|(a, _)| *a == name)
            .map_or(name.as_str(), |(_, f)| f);
        let path = [dir.join("dataset.json")]
            .into_iter()
            .chain(m.dataset.path.as_deref().map(std::path::PathBuf::from))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                format!(
                    "--by {name}: not a field of φ₀ ({}) and the run's dataset file is not here to read it \
                     from (run.json names {})",
                    FORMULA_FIELDS.join(", "),
                    m.dataset.path.as_deref().unwrap_or("none")
                )
            })?;
        let ds = Dataset::open(&path).map_err(|e| e.to_string())?;
        let values: HashMap<usize, usize> = ds
            .file
            .data
            .iter()
            .filter_map(|i| Some((i.idx, item_value(i, item_field)?)))
            .collect();
        if values.is_empty() {
            return Err(format!(
                "--by {name}: {} stores no `{item_field}` per item; fields of φ₀: {}; dataset \
                 fields: num_nodes (dfa_states), num_edges (dfa_edges), density (tenths), \
                 num_propositions, num_quantifiers, num_predicates, tree_depth, num_terminals, \
                 distinct_symbols",
                path.display(),
                FORMULA_FIELDS.join(", ")
            ));
        }
        Ok(Field {
            label: if item_field == "density" {
                "density (tenths)".into()
            } else {
                name.clone()
            },
            from_dataset: Some(values),
        })
    }

    /// The sample's value of this field.
    pub fn key(&self, s: &SampleRecord) -> Option<usize> {
        if let Some(v) = &self.from_dataset {
            return v.get(&s.idx).copied();
        }
        let f = match crate::syntax::parse(&s.phi0, s.syntax) {
            Ok(Expr::Logic(f)) => f,
            Ok(Expr::Regex(r)) => {
                let d = crate::verify::automata::Dfa::build(&r, &r.alphabet()).ok()?;
                let m = d.metrics();
                return match self.label.as_str() {
                    "dfa_states" => Some(m.nodes),
                    "dfa_edges" => Some(m.edges),
                    "density (tenths)" => Some((m.density * 10.0).round().max(0.0) as usize),
                    _ => None,
                };
            }
            Err(_) => return None,
        };
        if self.label.starts_with("dfa_") || self.label.starts_with("density") {
            return None;
        }
        let m = logic_metrics(&f);
        let c = connectives(&f);
        Some(match self.label.as_str() {
            "and" => c[0],
            "or" => c[1],
            "not" => c[2],
            "quantifiers" => m.quantifiers,
            "predicates" => m.predicates,
            "terminals" => m.terminals,
            "tree_depth" => m.tree_depth,
            _ => m.distinct_symbols,
        })
    }
}
