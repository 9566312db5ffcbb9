//! Verification: one verdict type; Z3 and truth tables for logic, automata for regexes.

pub mod automata;
pub mod model;
pub mod regex_check;
pub mod render;
pub mod truth_table;
pub mod verdict;
pub mod z3_logic;

pub use verdict::{Countermodel, PredicateTable, Side, Verdict};

use crate::syntax::{Expr, Formula, Quantifier, SyntaxKind, parse};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Verifier settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// Per-pair time limit (default 5 s).
    pub timeout: Duration,
    /// Largest domain searched for a readable FOL countermodel.
    pub max_domain: usize,
    /// Largest combined AST size accepted.
    pub max_nodes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: Duration::from_secs(5),
            max_domain: 4,
            max_nodes: 20_000,
        }
    }
}

/// Verifies φ (reference) against φ′ (candidate).
pub fn verify(a: &Expr, b: &Expr, opts: &Options) -> Verdict {
    match (a, b) {
        (Expr::Logic(fa), Expr::Logic(fb)) => verify_logic(fa, fb, opts),
        (Expr::Regex(ra), Expr::Regex(rb)) => {
            if ra.size() + rb.size() > opts.max_nodes {
                return too_large(ra.size() + rb.size(), opts);
            }
            regex_check::check(ra, rb)
        }
        _ => Verdict::Unparseable {
            pos: 0,
            reason: "the two sides use different syntaxes (formula vs regex)".into(),
        },
    }
}

/// Parses both texts and verifies; a φ′ that does not parse is `unparseable`.
/// Errors if φ itself does not parse.
pub fn verify_text(
    a: &str,
    b: &str,
    syntax: SyntaxKind,
    opts: &Options,
) -> Result<Verdict, crate::syntax::ParseError> {
    let ea = parse(a, syntax)?;
    Ok(match parse(b, syntax) {
        Ok(eb) => verify(&ea, &eb, opts),
        Err(e) => Verdict::Unparseable {
            pos: e.pos,
            reason: e.reason,
        },
    })
}

/// Verifies many pairs on all cores (each worker thread has its own Z3 context).
pub fn verify_batch(pairs: &[(Expr, Expr)], opts: &Options) -> Vec<Verdict> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<Option<Verdict>> = vec![None; pairs.len()];
    let results = std::sync::Mutex::new(&mut out);
    std::thread::scope(|s| {
        for _ in 0..threads.min(pairs.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((a, b)) = pairs.get(i) else { break };
                    let v = verify(a, b, opts);
                    if let Ok(mut r) = results.lock() {
                        r[i] = Some(v);
                    }
                }
            });
        }
    });
    out.into_iter()
        .map(|v| {
            v.unwrap_or(Verdict::Unknown {
                reason: "verifier thread failed".into(),
            })
        })
        .collect()
}

fn too_large(n: usize, opts: &Options) -> Verdict {
    Verdict::Unknown {
        reason: format!(
            "input too large to verify: {n} nodes (limit {})",
            opts.max_nodes
        ),
    }
}

/// Wraps free variables in ∀, as documented: a free variable in φ′ is read as universal.
fn close(f: &Formula) -> (Formula, Vec<String>) {
    let free: Vec<String> = f.free_variables().into_iter().collect();
    let mut g = f.clone();
    for v in free.iter().rev() {
        g = Formula::quant(Quantifier::Forall, v.as_str(), g);
    }
    (g, free)
}

fn verify_logic(a: &Formula, b: &Formula, opts: &Options) -> Verdict {
    let n = a.size() + b.size();
    if n > opts.max_nodes {
        return too_large(n, opts);
    }
    let mut arities: BTreeMap<String, usize> = BTreeMap::new();
    for (name, arity) in a.predicates().into_iter().chain(b.predicates()) {
        match arities.get(&name) {
            Some(&other) if other != arity => {
                return Verdict::Unparseable {
                    pos: 0,
                    reason: format!("predicate '{name}' is used with arities {other} and {arity}"),
                };
            }
            _ => {
                arities.insert(name, arity);
            }
        }
    }
    let mut notes = Vec::new();
    let (ca, fa) = close(a);
    let (cb, fb) = close(b);
    for v in fa {
        notes.push(format!("free variable {v} in φ read as ∀{v}"));
    }
    for v in fb {
        notes.push(format!("free variable {v} in φ′ read as ∀{v}"));
    }
    let known: std::collections::BTreeSet<String> = a
        .propositions()
        .into_iter()
        .chain(a.predicates().into_iter().map(|p| p.0))
        .chain(a.constants())
        .collect();
    let introduced: Vec<String> = b
        .propositions()
        .into_iter()
        .chain(b.predicates().into_iter().map(|p| p.0))
        .chain(b.constants())
        .filter(|s| !known.contains(s))
        .collect();
    if !introduced.is_empty() {
        notes.push(format!("introduces {}", introduced.join(", ")));
    }
    let verdict = match truth_table::compare(&ca, &cb) {
        Some(truth_table::TableResult::Equivalent) => Verdict::Equivalent { notes: vec![] },
        Some(truth_table::TableResult::Differ(values, left, right)) => {
            let fm = model::FiniteModel {
                propositions: values.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                ..Default::default()
            };
            if model::holds(&fm, &ca) != left || model::holds(&fm, &cb) != right || left == right {
                Verdict::Unknown {
                    reason: "internal error: truth-table row failed re-check (please report)"
                        .into(),
                }
            } else {
                Verdict::NotEquivalent {
                    countermodel: Countermodel::Assignment {
                        values,
                        left,
                        right,
                    },
                    notes: vec![],
                }
            }
        }
        None => z3_logic::check(&ca, &cb, Instant::now() + opts.timeout, opts.max_domain),
    };
    match verdict {
        Verdict::Equivalent { .. } => Verdict::Equivalent { notes },
        Verdict::NotEquivalent { countermodel, .. } => Verdict::NotEquivalent {
            countermodel,
            notes,
        },
        other => other,
    }
}
