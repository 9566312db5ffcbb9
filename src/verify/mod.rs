//! Verification: one verdict type; Z3 and truth tables for logic, automata for regexes.

pub mod automata;
pub mod explain;
pub mod model;
pub mod normalize;
pub mod regex_check;
pub mod render;
mod small_model;
#[cfg(test)]
mod small_model_tests;
pub mod truth_table;
pub mod verdict;
pub mod z3_logic;

pub use verdict::{Countermodel, PredicateTable, Side, Verdict, VerdictKind};

use crate::syntax::{Expr, Formula, SyntaxKind, parse};
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

/// Whether φ and φ′ are equivalent, as [`verify`] says, without the work that only
/// shapes a not-equivalent verdict's countermodel.
pub(crate) fn is_equivalent(a: &Expr, b: &Expr, opts: &Options) -> bool {
    z3_logic::least_model::equivalence_only(|| verify(a, b, opts)).is_equivalent()
}

/// Verifies many pairs on all cores (each worker thread has its own Z3 context).
pub fn verify_batch(pairs: &[(Expr, Expr)], opts: &Options) -> Vec<Verdict> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
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

/// Turns a differing truth-table row into a checked countermodel: an assignment for
/// propositional pairs, else a structure with one element per constant.
fn table_countermodel(
    a: &Formula,
    b: &Formula,
    values: BTreeMap<truth_table::Atom, bool>,
    left: bool,
    right: bool,
) -> Verdict {
    use truth_table::Atom;
    let ground = values.keys().any(|k| matches!(k, Atom::Ground(..)));
    let mut fm = model::FiniteModel::default();
    if ground {
        let mut consts: Vec<String> = a.constants().into_iter().chain(b.constants()).collect();
        consts.sort();
        consts.dedup();
        fm.size = consts.len().max(1);
        fm.constants = consts
            .iter()
            .enumerate()
            .map(|(i, c)| (c.clone(), i))
            .collect();
        for (p, arity) in a.predicates().into_iter().chain(b.predicates()) {
            fm.predicates.entry((p, arity)).or_default();
        }
    }
    for (atom, v) in &values {
        match atom {
            Atom::Prop(p) => {
                fm.propositions.insert(p.clone(), *v);
            }
            Atom::Ground(p, args) if *v => {
                let tuple: Vec<usize> = args
                    .iter()
                    .map(|c| fm.constants.get(c).copied().unwrap_or(0))
                    .collect();
                fm.predicates
                    .entry((p.clone(), args.len()))
                    .or_default()
                    .insert(tuple);
            }
            Atom::Ground(..) => {}
        }
    }
    if model::holds(&fm, a) != left || model::holds(&fm, b) != right || left == right {
        return Verdict::Unknown {
            reason: "internal error: truth-table row failed re-check (please report)".into(),
        };
    }
    let countermodel = if ground {
        fm.to_countermodel(left, right)
    } else {
        Countermodel::Assignment {
            values: fm
                .propositions
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
            left,
            right,
        }
    };
    Verdict::NotEquivalent {
        countermodel,
        notes: vec![],
    }
}

/// The symbols of a formula, gathered in one pass without copying names.
struct Symbols<'a> {
    /// Propositions, predicates and constants, in first-seen order.
    names: Vec<&'a str>,
    preds: Vec<(&'a str, usize)>,
    free: Vec<&'a str>,
}

impl<'a> Symbols<'a> {
    fn of(f: &'a Formula) -> Symbols<'a> {
        fn add<'a>(v: &mut Vec<&'a str>, s: &'a str) {
            if !v.contains(&s) {
                v.push(s);
            }
        }
        fn go<'a>(f: &'a Formula, bound: &mut Vec<&'a str>, out: &mut Symbols<'a>) {
            match f {
                Formula::Bool(_) => {}
                Formula::Prop(p) => add(&mut out.names, p),
                Formula::Pred(p, args) => {
                    add(&mut out.names, p);
                    if !out.preds.contains(&(p.as_str(), args.len())) {
                        out.preds.push((p, args.len()));
                    }
                    for t in args {
                        match t {
                            crate::syntax::Term::Const(c) => add(&mut out.names, c),
                            crate::syntax::Term::Var(v) if !bound.contains(&v.as_str()) => {
                                add(&mut out.free, v);
                            }
                            crate::syntax::Term::Var(_) => {}
                        }
                    }
                }
                Formula::Not(x) => go(x, bound, out),
                Formula::Bin(_, x, y) => {
                    go(x, bound, out);
                    go(y, bound, out);
                }
                Formula::Quant(_, v, body) => {
                    bound.push(v);
                    go(body, bound, out);
                    bound.pop();
                }
            }
        }
        let mut out = Symbols {
            names: Vec::new(),
            preds: Vec::new(),
            free: Vec::new(),
        };
        go(f, &mut Vec::new(), &mut out);
        out.free.sort_unstable();
        out
    }
}

fn verify_logic(a: &Formula, b: &Formula, opts: &Options) -> Verdict {
    let n = a.size() + b.size();
    if n > opts.max_nodes {
        return too_large(n, opts);
    }
    let (sa, sb) = (Symbols::of(a), Symbols::of(b));
    let mut arities: BTreeMap<&str, usize> = BTreeMap::new();
    for &(name, arity) in sa.preds.iter().chain(&sb.preds) {
        match arities.insert(name, arity) {
            Some(other) if other != arity => {
                return Verdict::Unparseable {
                    pos: 0,
                    reason: format!("predicate '{name}' is used with arities {other} and {arity}"),
                };
            }
            _ => {}
        }
    }
    let mut notes = Vec::new();
    // Open formulas: φ ≡ φ′ iff the universal closure of φ ↔ φ′ is valid, so free
    // variables are parameters shared by both sides (constants for the solver).
    let mut free: Vec<&str> = sa.free.iter().chain(&sb.free).copied().collect();
    free.sort_unstable();
    free.dedup();
    let (ca, cb) = if free.is_empty() {
        (std::borrow::Cow::Borrowed(a), std::borrow::Cow::Borrowed(b))
    } else {
        notes.push(format!(
            "free variable{} {} read as parameter{} shared by φ and φ′ (universal closure of φ ↔ φ′)",
            if free.len() > 1 { "s" } else { "" },
            free.join(", "),
            if free.len() > 1 { "s" } else { "" },
        ));
        (
            std::borrow::Cow::Owned(normalize::parameterize(a, &free)),
            std::borrow::Cow::Owned(normalize::parameterize(b, &free)),
        )
    };
    let introduced: Vec<&str> = sb
        .names
        .iter()
        .filter(|s| !sa.names.contains(*s))
        .copied()
        .collect();
    if !introduced.is_empty() {
        notes.push(format!("introduces {}", introduced.join(", ")));
    }
    // The same formula (most replies repeat φ₀ when they are right): every path below
    // answers equivalent for it, the truth table and the normal forms at a cost.
    if ca == cb {
        return Verdict::Equivalent { notes };
    }
    let quantifier_free = normalize::quantifier_free(&ca) && normalize::quantifier_free(&cb);
    // Small quantifier-free pairs: the truth table decides at once, with no normal
    // forms built (they allocate a tree per pair, which dominates on PL batches).
    let table = if quantifier_free {
        truth_table::compare(&ca, &cb)
    } else {
        None
    };
    let verdict = if let Some(t) = table {
        match t {
            truth_table::TableResult::Equivalent => Verdict::Equivalent { notes: vec![] },
            truth_table::TableResult::Differ(values, left, right) => {
                table_countermodel(&ca, &cb, values, left, right)
            }
        }
    } else if normalize::normalize(&ca) == normalize::normalize(&cb)
        || equivalent_by_congruence(&ca, &cb, opts)
    {
        Verdict::Equivalent { notes: vec![] }
    } else if quantifier_free {
        decide(&ca, &cb, opts)
    } else {
        // Quantified pairs go to the solver miniscoped (an equivalent form with small
        // quantifier scopes), where a change masked by its context is often local again.
        let (ma, mb) = (normalize::miniscope(&ca), normalize::miniscope(&cb));
        if normalize::normalize(&ma) == normalize::normalize(&mb)
            || equivalent_by_congruence(&ma, &mb, opts)
        {
            Verdict::Equivalent { notes: vec![] }
        } else {
            decide(&ma, &mb, opts)
        }
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

/// When φ and φ′ differ in one place only, an equivalence of two corresponding
/// subformulas on the way to that place (their free variables as shared parameters)
/// settles the whole pair: replacing a subformula by an equivalent one keeps the
/// meaning in any context. Two levels are tried: the smallest differing pair (local
/// rewrites such as De Morgan, distribution, quantifier duality) and the largest
/// quantifier-free pair (a change masked inside a formula's matrix, decided without
/// quantifiers). A level that is not an equivalence decides nothing here.
fn equivalent_by_congruence(a: &Formula, b: &Formula, opts: &Options) -> bool {
    let path = normalize::difference_path(a, b);
    let below_root = path.get(1..).unwrap_or(&[]);
    let deepest = below_root.last();
    let matrix = below_root
        .iter()
        .find(|(x, y)| normalize::quantifier_free(x) && normalize::quantifier_free(y));
    let sub = Options {
        timeout: opts.timeout / 4,
        ..opts.clone()
    };
    let mut tried: Vec<*const Formula> = Vec::new();
    for (sa, sb) in deepest.into_iter().chain(matrix) {
        if tried.contains(&std::ptr::from_ref::<Formula>(*sa)) {
            continue;
        }
        tried.push(*sa);
        let mut free = sa.free_variables();
        free.extend(sb.free_variables());
        let names: Vec<&str> = free.iter().map(String::as_str).collect();
        let (pa, pb) = (
            normalize::parameterize(sa, &names),
            normalize::parameterize(sb, &names),
        );
        // Only whether the sub-pair is equivalent counts: no least countermodel.
        if normalize::normalize(&pa) == normalize::normalize(&pb)
            || z3_logic::least_model::equivalence_only(|| decide(&pa, &pb, &sub)).is_equivalent()
        {
            return true;
        }
    }
    false
}

/// Decides two closed formulas: truth tables when small, else Z3.
fn decide(ca: &Formula, cb: &Formula, opts: &Options) -> Verdict {
    match truth_table::compare(ca, cb) {
        Some(truth_table::TableResult::Equivalent) => Verdict::Equivalent { notes: vec![] },
        Some(truth_table::TableResult::Differ(values, left, right)) => {
            table_countermodel(ca, cb, values, left, right)
        }
        None => {
            let deadline = Instant::now() + opts.timeout;
            let mut atoms = Vec::new();
            let abstracted = truth_table::abstract_ground(ca, &mut atoms)
                .zip(truth_table::abstract_ground(cb, &mut atoms));
            match abstracted {
                // Large ground pairs: the same exact abstraction, decided by Z3's SAT core.
                Some((xa, xb)) => match z3_logic::check(&xa, &xb, deadline, opts.max_domain) {
                    Verdict::NotEquivalent {
                        countermodel:
                            Countermodel::Assignment {
                                values,
                                left,
                                right,
                            },
                        ..
                    } => {
                        let values = values
                            .into_iter()
                            .filter_map(|(k, v)| {
                                let i: usize = k.strip_prefix("atom!")?.parse().ok()?;
                                Some((atoms.get(i)?.clone(), v))
                            })
                            .collect();
                        table_countermodel(ca, cb, values, left, right)
                    }
                    other => other,
                },
                None => z3_logic::check(ca, cb, deadline, opts.max_domain),
            }
        }
    }
}
