//! Finite models and our own evaluator, used to re-check every countermodel.

use super::verdict::Countermodel;
use crate::syntax::{Formula, Quantifier, Term};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A finite structure: domain 0..size, constants, predicate extensions, propositions.
#[derive(Clone, Debug, Default)]
pub struct FiniteModel {
    /// Number of elements.
    pub size: usize,
    /// Constant → element.
    pub constants: HashMap<String, usize>,
    /// (predicate, arity) → tuples that hold.
    pub predicates: HashMap<(String, usize), HashSet<Vec<usize>>>,
    /// Proposition values.
    pub propositions: HashMap<String, bool>,
}

impl FiniteModel {
    /// Evaluates `f`; free variables take values from `env` (unknown names are false/element 0).
    pub fn eval(&self, f: &Formula, env: &mut Vec<(String, usize)>) -> bool {
        match f {
            Formula::Bool(b) => *b,
            Formula::Prop(p) => self.propositions.get(p.as_str()).copied().unwrap_or(false),
            Formula::Pred(name, args) => {
                let tuple: Vec<usize> = args.iter().map(|t| self.term(t, env)).collect();
                self.predicates
                    .get(&(name.to_string(), args.len()))
                    .is_some_and(|ext| ext.contains(&tuple))
            }
            Formula::Not(a) => !self.eval(a, env),
            Formula::Bin(op, a, b) => {
                let x = self.eval(a, env);
                op.apply(x, || self.eval(b, env))
            }
            Formula::Quant(q, v, body) => {
                let mut result = *q == Quantifier::Forall;
                for e in 0..self.size {
                    env.push((v.to_string(), e));
                    let val = self.eval(body, env);
                    env.pop();
                    if *q == Quantifier::Forall && !val {
                        result = false;
                        break;
                    }
                    if *q == Quantifier::Exists && val {
                        result = true;
                        break;
                    }
                }
                result
            }
        }
    }

    fn term(&self, t: &Term, env: &[(String, usize)]) -> usize {
        match t {
            Term::Var(v) | Term::Const(v) => env
                .iter()
                .rev()
                .find(|(n, _)| n == v.as_str())
                .map(|(_, e)| *e)
                .or_else(|| self.constants.get(v.as_str()).copied())
                .unwrap_or(0),
        }
    }

    /// The user-facing countermodel for φ and φ′ under this structure.
    pub(crate) fn to_countermodel(&self, left: bool, right: bool) -> Countermodel {
        let name = |e: usize| format!("e{}", e + 1);
        let mut preds: Vec<_> = self
            .predicates
            .iter()
            .map(|((n, arity), ext)| {
                let mut tuples: Vec<Vec<usize>> = ext.iter().cloned().collect();
                tuples.sort();
                super::verdict::PredicateTable {
                    name: n.clone(),
                    arity: *arity,
                    true_tuples: tuples
                        .into_iter()
                        .map(|t| t.into_iter().map(name).collect())
                        .collect(),
                }
            })
            .collect();
        preds.sort_by(|a, b| (&a.name, a.arity).cmp(&(&b.name, b.arity)));
        Countermodel::FiniteModel {
            domain: (0..self.size).map(name).collect(),
            constants: self
                .constants
                .iter()
                .map(|(c, e)| (c.clone(), name(*e)))
                .collect::<BTreeMap<_, _>>(),
            predicates: preds,
            propositions: self
                .propositions
                .iter()
                .map(|(p, v)| (p.clone(), *v))
                .collect(),
            left,
            right,
        }
    }
}

impl FiniteModel {
    /// Rebuilds the structure a shown countermodel describes (for re-checks and the viewer).
    pub fn from_countermodel(c: &Countermodel) -> Option<FiniteModel> {
        match c {
            Countermodel::Assignment { values, .. } => Some(FiniteModel {
                propositions: values.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                ..Default::default()
            }),
            Countermodel::FiniteModel {
                domain,
                constants,
                predicates,
                propositions,
                ..
            } => {
                let index = |e: &String| domain.iter().position(|d| d == e);
                let mut m = FiniteModel {
                    size: domain.len(),
                    propositions: propositions.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                    ..Default::default()
                };
                for (c, e) in constants {
                    m.constants.insert(c.clone(), index(e)?);
                }
                for t in predicates {
                    let ext = t
                        .true_tuples
                        .iter()
                        .map(|tu| tu.iter().map(index).collect::<Option<Vec<_>>>())
                        .collect::<Option<HashSet<_>>>()?;
                    m.predicates.insert((t.name.clone(), t.arity), ext);
                }
                Some(m)
            }
            _ => None,
        }
    }
}

/// Evaluates a closed formula.
pub fn holds(model: &FiniteModel, f: &Formula) -> bool {
    model.eval(f, &mut Vec::new())
}
