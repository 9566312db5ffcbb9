//! Issue 47's figures on material the other tests never saw: φ₀ from the generator,
//! one planted mutation (the perturbations that change meaning, or an operand added)
//! followed by one or two meaning-preserving rewrites, and two mutations followed by
//! a rewrite. Prints the share of one-mutation pairs left unproved and, per syntax,
//! the share of two-mutation pairs whose explanation names both planted kinds (the
//! issue's targets: at most 1 %, at least 85 %). Figures, not a gate: it prints them.
//!
//! φ₀ are drawn evenly over sizes up to 40 nodes (a batch lists its formulas smallest
//! first, so taking a batch's first items would leave the large ones out), and the
//! figures are also given per size band. A two-mutation pair where one planted mutation
//! kept the meaning (the first against φ₀, the second against the first's result) has
//! one mistake, not two: it is counted apart, as are pairs one proved edit explains.
//!
//! `cargo test --release --test it explain_fresh:: -- --ignored --nocapture` (AUTOEVAL_FRESH_N sets φ₀ per syntax, 120;
//! AUTOEVAL_FRESH_ONLY=pl|fol|regex runs one syntax; AUTOEVAL_FRESH_MISSES=1 prints the misses,
//! AUTOEVAL_FRESH_DIAG=1 with them where the search lost the planted pair).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::analysis::failure_kind::{FailureKind, kind_of_change};
use autoeval::analysis::proof::explain;
use autoeval::base::rng::Rng;
use autoeval::grammar::{DatasetKind, GenParams, generate_batch};
use autoeval::perturb::{PerturbKind, perturb};
use autoeval::syntax::{BinOp, Expr, Formula, Regex};
use autoeval::verify::{Options, verify};

/// A planted mistake: a perturbation, or an operand added.
#[derive(Clone, Copy, Debug)]
enum Mutation {
    Perturb(PerturbKind),
    OperandAdded,
}

impl Mutation {
    fn kind(self) -> FailureKind {
        match self {
            Mutation::OperandAdded => FailureKind::OperandAdded,
            Mutation::Perturb(k) => match k {
                PerturbKind::QuantifierSwap => FailureKind::QuantifierChanged,
                PerturbKind::NegationAdded | PerturbKind::NegationRemoved => {
                    FailureKind::NegationMisplaced
                }
                PerturbKind::AndOrSwap => FailureKind::AndOrSwap,
                PerturbKind::OrXorSwap => FailureKind::ConnectiveSwapped,
                PerturbKind::OperatorDropped => FailureKind::OperandDropped,
                PerturbKind::PredicateRenamed => FailureKind::SymbolRenamed,
                PerturbKind::ConstantVariable => FailureKind::ConstantVariable,
                _ => FailureKind::StarMisplaced,
            },
        }
    }
}

/// The `k`-th node (pre-order) of `f` replaced by `g(node)`.
fn at_node(f: &Formula, k: &mut usize, g: &impl Fn(&Formula) -> Formula) -> Formula {
    if *k == 0 {
        *k = usize::MAX;
        return g(f);
    }
    *k = k.wrapping_sub(1);
    match f {
        Formula::Not(a) => Formula::negate(at_node(a, k, g)),
        Formula::Bin(op, a, b) => {
            let a = at_node(a, k, g);
            Formula::bin(*op, a, at_node(b, k, g))
        }
        Formula::Quant(q, v, body) => Formula::quant(*q, v.clone(), at_node(body, k, g)),
        other => other.clone(),
    }
}

/// An operand added next to an atom of φ: another atom over the same arguments
/// (so every variable stays in scope), sometimes negated, joined by ∧ or ∨.
fn add_logic(f: &Formula, rng: &mut Rng) -> Option<Formula> {
    let mut atoms = Vec::new();
    f.walk(&mut |g| {
        if g.is_atom() {
            atoms.push(g.clone());
        }
    });
    let props: Vec<String> = f.propositions().into_iter().collect();
    let preds: Vec<(String, usize)> = f.predicates().into_iter().collect();
    let mut idx = Vec::new();
    let mut n = 0;
    f.walk(&mut |g| {
        if g.is_atom() {
            idx.push(n);
        }
        n += 1;
    });
    let which = rng.below(atoms.len().max(1));
    let leaf = atoms.get(which)?.clone();
    let other = match &leaf {
        Formula::Prop(p) => {
            let q = props
                .iter()
                .filter(|q| q.as_str() != p.as_str())
                .nth(rng.below(props.len().max(2) - 1))?;
            Formula::Prop(q.as_str().into())
        }
        Formula::Pred(p, args) => {
            let same: Vec<&String> = preds
                .iter()
                .filter(|(q, k)| *k == args.len() && q.as_str() != p.as_str())
                .map(|(q, _)| q)
                .collect();
            let q = same.get(rng.below(same.len().max(1)))?;
            Formula::Pred(q.as_str().into(), args.clone())
        }
        _ => return None,
    };
    let other = if rng.below(2) == 0 {
        other
    } else {
        Formula::negate(other)
    };
    let op = if rng.below(2) == 0 {
        BinOp::And
    } else {
        BinOp::Or
    };
    let mut k = idx[which];
    Some(at_node(f, &mut k, &|n| {
        Formula::bin(op, n.clone(), other.clone())
    }))
}

/// An operand added to a regex: a symbol as an alternative, or concatenated, at one node.
fn add_regex(r: &Regex, rng: &mut Rng) -> Regex {
    fn go(r: &Regex, k: &mut usize, g: &impl Fn(&Regex) -> Regex) -> Regex {
        if *k == 0 {
            *k = usize::MAX;
            return g(r);
        }
        *k = k.wrapping_sub(1);
        match r {
            Regex::Concat(xs) => Regex::Concat(xs.iter().map(|x| go(x, k, g)).collect()),
            Regex::Alt(xs) => Regex::Alt(xs.iter().map(|x| go(x, k, g)).collect()),
            Regex::Star(x) => Regex::Star(Box::new(go(x, k, g))),
            Regex::Plus(x) => Regex::Plus(Box::new(go(x, k, g))),
            Regex::Opt(x) => Regex::Opt(Box::new(go(x, k, g))),
            Regex::Repeat(x, a, b) => Regex::Repeat(Box::new(go(x, k, g)), *a, *b),
            other => other.clone(),
        }
    }
    let size = r.size();
    let s = Regex::Sym(if rng.below(2) == 0 { '0' } else { '1' });
    let alt = rng.below(2) == 0;
    let mut k = rng.below(size.max(1));
    go(r, &mut k, &|n| {
        if alt {
            Regex::Alt(vec![n.clone(), s.clone()])
        } else {
            Regex::Concat(vec![n.clone(), s.clone()])
        }
    })
}

fn mutate(e: &Expr, m: Mutation, rng: &mut Rng) -> Option<Expr> {
    match (m, e) {
        (Mutation::Perturb(k), _) => perturb(e, k, rng),
        (Mutation::OperandAdded, Expr::Logic(f)) => add_logic(f, rng).map(Expr::Logic),
        (Mutation::OperandAdded, Expr::Regex(r)) => Some(Expr::Regex(add_regex(r, rng))),
    }
}

/// `want` φ₀ of at most 40 nodes, drawn evenly from whole batches: a batch lists its
/// formulas by size (one bucket of operator counts after another), so its first items
/// are its smallest and cutting the list short would leave the large φ₀ out.
fn phis(kind: DatasetKind, want: usize) -> Vec<Expr> {
    let cfg = kind.grammar().expect("grammar");
    let params = GenParams {
        vocab: kind.vocab(),
        ..Default::default()
    };
    let mut out = Vec::new();
    for batch in 0..100u64 {
        let b = generate_batch(&cfg, &params, 4747, batch, &mut |_| {}).expect("batch");
        out.extend(
            b.items
                .into_iter()
                .map(|i| i.expr)
                .filter(|e| size(e) <= 40),
        );
        if out.len() >= want {
            break;
        }
    }
    Rng::new(4747).shuffle(&mut out);
    out.truncate(want);
    out
}

fn size(e: &Expr) -> usize {
    match e {
        Expr::Logic(f) => f.size(),
        Expr::Regex(r) => r.size(),
    }
}

/// The size bands figures are given for (φ₀ nodes).
const BANDS: [(usize, usize); 4] = [(1, 10), (11, 20), (21, 30), (31, 40)];

fn band(e: &Expr) -> usize {
    let n = size(e);
    BANDS
        .iter()
        .position(|(lo, hi)| (*lo..=*hi).contains(&n))
        .unwrap_or(BANDS.len() - 1)
}

/// Counts per size band: (pairs, hits).
#[derive(Default)]
struct Banded([(usize, usize); BANDS.len()]);

impl Banded {
    fn add(&mut self, e: &Expr, hit: bool) {
        let slot = &mut self.0[band(e)];
        slot.0 += 1;
        slot.1 += usize::from(hit);
    }

    fn total(&self) -> (usize, usize) {
        self.0.iter().fold((0, 0), |(n, h), (m, k)| (n + m, h + k))
    }

    fn show(&self) -> String {
        BANDS
            .iter()
            .zip(&self.0)
            .map(|((lo, hi), (n, h))| {
                format!(
                    "{lo}-{hi}: {h}/{n} ({:.1} %)",
                    100.0 * *h as f64 / (*n).max(1) as f64
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[test]
#[ignore = "issue 47's figures: minutes in release"]
fn fresh_mutations_are_explained() {
    let opts = Options::default();
    let n: usize = std::env::var("AUTOEVAL_FRESH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    let only = std::env::var("AUTOEVAL_FRESH_ONLY").unwrap_or_default();
    let mut one = Banded::default();
    let mut lines = Vec::new();
    for kind in [DatasetKind::Pl, DatasetKind::Fol, DatasetKind::Regex] {
        if !only.is_empty() && !format!("{kind:?}").eq_ignore_ascii_case(&only) {
            continue;
        }
        let all: &[PerturbKind] = if kind == DatasetKind::Regex {
            &PerturbKind::REGEX
        } else {
            &PerturbKind::LOGIC
        };
        let mut muts: Vec<Mutation> = all
            .iter()
            .filter(|k| !k.preserves_equivalence())
            .map(|k| Mutation::Perturb(*k))
            .collect();
        muts.push(Mutation::OperandAdded);
        let rewrites: Vec<PerturbKind> = all
            .iter()
            .copied()
            .filter(|k| k.preserves_equivalence())
            .collect();
        let mut rng = Rng::new(47);
        let (mut two, mut two_all) = (Banded::default(), Banded::default());
        let (mut two_unproved, mut two_collapsed, mut two_kept) = (0, 0, 0);
        for (i, phi) in phis(kind, n).into_iter().enumerate() {
            let rewrite = |e: Expr, rng: &mut Rng| -> Expr {
                if rewrites.is_empty() {
                    return e;
                }
                let k = rewrites[rng.below(rewrites.len())];
                perturb(&e, k, rng).unwrap_or(e)
            };
            // One mutation, then one or two rewrites.
            let m = muts[rng.below(muts.len())];
            if let Some(b) = mutate(&phi, m, &mut rng) {
                let mut b = rewrite(b, &mut rng);
                if i % 2 == 0 {
                    b = rewrite(b, &mut rng);
                }
                if verify(&phi, &b, &opts).name() == "not-equivalent" {
                    let proved = explain(&phi, &b, false, &opts).proved;
                    one.add(&phi, !proved);
                    if !proved {
                        eprintln!(
                            "unproved one ({m:?}): {} vs {}",
                            phi.print(autoeval::syntax::Notation::Unicode),
                            b.print(autoeval::syntax::Notation::Unicode)
                        );
                    }
                }
            }
            // Two mutations, then a rewrite.
            let (m1, m2) = (muts[rng.below(muts.len())], muts[rng.below(muts.len())]);
            let Some((b1, b)) = mutate(&phi, m1, &mut rng)
                .and_then(|b1| mutate(&b1, m2, &mut rng).map(|b| (b1, b)))
            else {
                continue;
            };
            let planted = b.clone();
            let b = rewrite(b, &mut rng);
            if verify(&phi, &b, &opts).name() != "not-equivalent" {
                continue;
            }
            // A mutation that kept the meaning where it was planted (`0` → `0|0`, an
            // operand added under a star that already repeats it) is no second mistake:
            // such pairs are counted apart.
            let kept = verify(&phi, &b1, &opts).name() != "not-equivalent"
                || verify(&b1, &planted, &opts).name() != "not-equivalent";
            let x = explain(&phi, &b, false, &opts);
            let kinds: Vec<FailureKind> = x
                .changes
                .iter()
                .filter_map(|c| kind_of_change(c.change))
                .collect();
            // Two mistakes one proved edit explains (`0*` → `0*1*`: a star on an added
            // operand) were not two; they are counted apart.
            if x.proved && x.changes.len() == 1 {
                two_collapsed += 1;
                continue;
            }
            let named = x.proved && kinds.contains(&m1.kind()) && kinds.contains(&m2.kind());
            // Every pair, as counted before kept meanings were told apart.
            two_all.add(&phi, named);
            if kept {
                two_kept += 1;
                continue;
            }
            if !x.proved {
                two_unproved += 1;
            }
            two.add(&phi, named);
            if !named && std::env::var_os("AUTOEVAL_FRESH_MISSES").is_some() {
                let named: Vec<String> = x.changes.iter().map(|c| c.text.clone()).collect();
                eprintln!(
                    "miss ({m1:?} + {m2:?}, proved {}, φ₀ {} nodes): {} vs {}: {named:?}",
                    x.proved,
                    size(&phi),
                    phi.print(autoeval::syntax::Notation::Unicode),
                    b.print(autoeval::syntax::Notation::Unicode)
                );
                if std::env::var_os("AUTOEVAL_FRESH_DIAG").is_some() {
                    eprintln!(
                        "  diag: {}",
                        autoeval::analysis::proof::diagnose(&phi, &planted, &b)
                    );
                }
            }
        }
        let (total, hit) = two.total();
        let (all_total, all_hit) = two_all.total();
        lines.push(format!(
            "{kind:?}: two mutations + a rewrite: both kinds named {hit}/{total} ({:.1} %), unproved {two_unproved}; one edit explains both in {two_collapsed} more; a mutation kept the meaning in {two_kept} more\n  by φ₀ size: {}\n  with those {two_kept}: {all_hit}/{all_total} ({:.1} %), by φ₀ size: {}",
            100.0 * hit as f64 / total.max(1) as f64,
            two.show(),
            100.0 * all_hit as f64 / all_total.max(1) as f64,
            two_all.show()
        ));
    }
    let (total, unproved) = one.total();
    eprintln!(
        "one mutation + rewrites: unproved {unproved}/{total} ({:.2} %)\n  by φ₀ size: {}",
        100.0 * unproved as f64 / total.max(1) as f64,
        one.show()
    );
    for l in &lines {
        eprintln!("{l}");
    }
}
