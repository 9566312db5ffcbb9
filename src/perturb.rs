//! Labelled perturbations of formulas and regexes (after the metrics paper, seed 004).
//!
//! Breaking kinds usually change the meaning (the verifier decides whether a
//! particular instance really does); equivalence-preserving kinds never do.

use crate::base::rng::Rng;
use crate::syntax::logic::Name;
use crate::syntax::{BinOp, Expr, Formula, Quantifier, Regex, Term};

/// Kinds of perturbation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PerturbKind {
    /// ∀ ↔ ∃ at one quantifier.
    QuantifierSwap,
    /// ¬ put around one subformula.
    NegationAdded,
    /// One ¬ taken away.
    NegationRemoved,
    /// One ∧ ↔ ∨.
    AndOrSwap,
    /// One ∨ ↔ ⊕.
    OrXorSwap,
    /// A binary operator replaced by one of its operands.
    OperatorDropped,
    /// A predicate renamed (a negated one becomes `NotP`).
    PredicateRenamed,
    /// A constant argument turned into an in-scope variable, or a variable into a constant.
    ConstantVariable,
    /// A Kleene star moved to another place.
    StarMoved,
    /// A Kleene star added.
    StarAdded,
    /// De Morgan's law applied once.
    DeMorgan,
    /// The operands of one ∧, ∨, ⊕ or ↔ swapped.
    Commutation,
    /// ¬¬ added around one subformula.
    DoubleNegation,
    /// ∧ distributed over ∨ (or ∨ over ∧) once.
    Distribution,
    /// ∀x.φ written as ¬∃x.¬φ (or ∃ as ¬∀¬).
    QuantifierDuality,
}

impl PerturbKind {
    /// Every kind that applies to logic.
    pub const LOGIC: [PerturbKind; 13] = [
        PerturbKind::QuantifierSwap,
        PerturbKind::NegationAdded,
        PerturbKind::NegationRemoved,
        PerturbKind::AndOrSwap,
        PerturbKind::OrXorSwap,
        PerturbKind::OperatorDropped,
        PerturbKind::PredicateRenamed,
        PerturbKind::ConstantVariable,
        PerturbKind::DeMorgan,
        PerturbKind::Commutation,
        PerturbKind::DoubleNegation,
        PerturbKind::Distribution,
        PerturbKind::QuantifierDuality,
    ];
    /// Every kind that applies to regexes.
    pub const REGEX: [PerturbKind; 2] = [PerturbKind::StarMoved, PerturbKind::StarAdded];

    /// Whether the rewrite always keeps the meaning.
    pub fn preserves_equivalence(self) -> bool {
        matches!(
            self,
            PerturbKind::DeMorgan
                | PerturbKind::Commutation
                | PerturbKind::DoubleNegation
                | PerturbKind::Distribution
                | PerturbKind::QuantifierDuality
        )
    }

    /// Kebab-case name.
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

/// Applies `kind` at a random applicable place; `None` if there is none.
pub fn perturb(e: &Expr, kind: PerturbKind, rng: &mut Rng) -> Option<Expr> {
    match e {
        Expr::Logic(f) => perturb_formula(f, kind, rng).map(Expr::Logic),
        Expr::Regex(r) => perturb_regex(r, kind, rng).map(Expr::Regex),
    }
}

/// Pre-order indices of subformulas satisfying `pred`, with the variables in scope.
fn sites(f: &Formula, pred: &dyn Fn(&Formula, &[Name]) -> bool) -> Vec<(usize, Vec<Name>)> {
    fn go(
        f: &Formula,
        pred: &dyn Fn(&Formula, &[Name]) -> bool,
        scope: &mut Vec<Name>,
        i: &mut usize,
        out: &mut Vec<(usize, Vec<Name>)>,
    ) {
        if pred(f, scope) {
            out.push((*i, scope.clone()));
        }
        *i += 1;
        match f {
            Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => {}
            Formula::Not(a) => go(a, pred, scope, i, out),
            Formula::Bin(_, a, b) => {
                go(a, pred, scope, i, out);
                go(b, pred, scope, i, out);
            }
            Formula::Quant(_, v, body) => {
                scope.push(v.clone());
                go(body, pred, scope, i, out);
                scope.pop();
            }
        }
    }
    let mut out = Vec::new();
    go(f, pred, &mut Vec::new(), &mut 0, &mut out);
    out
}

/// Rebuilds `f` with the subformula at pre-order index `target` replaced by `g(sub)`.
fn replace_at(f: &Formula, target: usize, g: &mut dyn FnMut(&Formula) -> Formula) -> Formula {
    fn go(
        f: &Formula,
        target: usize,
        i: &mut usize,
        g: &mut dyn FnMut(&Formula) -> Formula,
    ) -> Formula {
        let me = *i;
        *i += 1;
        if me == target {
            // Skip the subtree's indices so later siblings are not matched.
            *i += f.size() - 1;
            return g(f);
        }
        match f {
            Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => f.clone(),
            Formula::Not(a) => Formula::negate(go(a, target, i, g)),
            Formula::Bin(op, a, b) => {
                let a = go(a, target, i, g);
                let b = go(b, target, i, g);
                Formula::bin(*op, a, b)
            }
            Formula::Quant(q, v, body) => {
                Formula::Quant(*q, v.clone(), Box::new(go(body, target, i, g)))
            }
        }
    }
    go(f, target, &mut 0, g)
}

fn pick<T: Clone>(rng: &mut Rng, xs: &[T]) -> Option<T> {
    rng.choose(xs).cloned()
}

fn perturb_formula(f: &Formula, kind: PerturbKind, rng: &mut Rng) -> Option<Formula> {
    let (site, scope) = pick_site(f, kind, rng)?;
    let names: Vec<String> = f
        .predicates()
        .into_iter()
        .map(|p| p.0)
        .chain(f.propositions())
        .collect();
    let constants: Vec<String> = f.constants().into_iter().collect();
    let coin = rng.chance(0.5);
    let choice = rng.next_u64();
    let rw = Rewrite {
        kind,
        names,
        constants,
        coin,
        choice,
        scope: &scope,
    };
    let out = replace_at(f, site, &mut |g| rw.apply(g));
    (out != *f || kind == PerturbKind::Commutation).then_some(out)
}

/// A random site `kind` can rewrite (pre-order index, with the variables bound
/// there); None when `f` has none, or `kind` is a regex perturbation.
fn pick_site(f: &Formula, kind: PerturbKind, rng: &mut Rng) -> Option<(usize, Vec<Name>)> {
    use PerturbKind as K;
    let any = |_: &Formula, _: &[Name]| true;
    Some(match kind {
        K::QuantifierSwap => {
            // A vacuous quantifier's swap changes nothing, so prefer ones that bind something.
            let binding = sites(
                f,
                &|g, _| matches!(g, Formula::Quant(_, v, body) if body.free_variables().contains(v.as_str())),
            );
            match pick(rng, &binding) {
                Some(s) => s,
                None => pick(rng, &sites(f, &|g, _| matches!(g, Formula::Quant(..))))?,
            }
        }
        K::QuantifierDuality => pick(rng, &sites(f, &|g, _| matches!(g, Formula::Quant(..))))?,
        K::NegationAdded | K::DoubleNegation => pick(rng, &sites(f, &any))?,
        K::NegationRemoved => pick(rng, &sites(f, &|g, _| matches!(g, Formula::Not(..))))?,
        K::AndOrSwap => pick(
            rng,
            &sites(f, &|g, _| {
                matches!(g, Formula::Bin(BinOp::And | BinOp::Or, ..))
            }),
        )?,
        K::OrXorSwap => pick(
            rng,
            &sites(f, &|g, _| {
                matches!(g, Formula::Bin(BinOp::Or | BinOp::Xor, ..))
            }),
        )?,
        K::OperatorDropped => pick(rng, &sites(f, &|g, _| matches!(g, Formula::Bin(..))))?,
        K::PredicateRenamed => pick(
            rng,
            &sites(f, &|g, _| matches!(g, Formula::Pred(..) | Formula::Prop(_))),
        )?,
        K::ConstantVariable => pick(
            rng,
            &sites(f, &|g, scope| match g {
                Formula::Pred(_, args) => {
                    args.iter().any(|a| matches!(a, Term::Var(_))) || !scope.is_empty()
                }
                _ => false,
            }),
        )?,
        K::DeMorgan => pick(
            rng,
            &sites(f, &|g, _| {
                matches!(g, Formula::Bin(BinOp::And | BinOp::Or, ..))
                    || matches!(g, Formula::Not(a) if matches!(**a, Formula::Bin(BinOp::And | BinOp::Or, ..)))
            }),
        )?,
        K::Commutation => pick(
            rng,
            &sites(f, &|g, _| {
                matches!(
                    g,
                    Formula::Bin(BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Iff, ..)
                )
            }),
        )?,
        K::Distribution => pick(
            rng,
            &sites(f, &|g, _| match g {
                Formula::Bin(BinOp::And, _, b) => matches!(**b, Formula::Bin(BinOp::Or, ..)),
                Formula::Bin(BinOp::Or, _, b) => matches!(**b, Formula::Bin(BinOp::And, ..)),
                _ => false,
            }),
        )?,
        K::StarMoved | K::StarAdded => return None,
    })
}

/// One perturbation's rewrite of its site, with the random choices drawn for it.
struct Rewrite<'a> {
    kind: PerturbKind,
    /// Predicate and proposition names of the formula (a new name avoids them).
    names: Vec<String>,
    /// Its constants.
    constants: Vec<String>,
    /// Which operand an operator drop keeps.
    coin: bool,
    /// Which argument (low bits) and bound variable (higher bits) a constant swap takes.
    choice: u64,
    /// The variables bound at the site.
    scope: &'a [Name],
}

/// ∧ ↔ ∨.
fn and_or_dual(op: BinOp) -> BinOp {
    if op == BinOp::And {
        BinOp::Or
    } else {
        BinOp::And
    }
}

impl Rewrite<'_> {
    /// The site `g` rewritten (unchanged where the kind does not apply).
    fn apply(&self, g: &Formula) -> Formula {
        use PerturbKind as K;
        match (self.kind, g) {
            (K::QuantifierSwap, Formula::Quant(q, v, b)) => {
                Formula::Quant(q.dual(), v.clone(), b.clone())
            }
            (K::QuantifierDuality, Formula::Quant(q, v, b)) => Formula::negate(Formula::Quant(
                q.dual(),
                v.clone(),
                Box::new(Formula::negate((**b).clone())),
            )),
            (K::NegationAdded, g) => Formula::negate(g.clone()),
            (K::DoubleNegation, g) => Formula::negate(Formula::negate(g.clone())),
            (K::NegationRemoved, Formula::Not(a)) => (**a).clone(),
            (K::AndOrSwap, Formula::Bin(op, a, b)) => {
                Formula::Bin(and_or_dual(*op), a.clone(), b.clone())
            }
            (K::OrXorSwap, Formula::Bin(op, a, b)) => {
                let op = if *op == BinOp::Or {
                    BinOp::Xor
                } else {
                    BinOp::Or
                };
                Formula::Bin(op, a.clone(), b.clone())
            }
            (K::OperatorDropped, Formula::Bin(_, a, b)) => {
                if self.coin {
                    (**a).clone()
                } else {
                    (**b).clone()
                }
            }
            (K::PredicateRenamed, Formula::Pred(p, args)) => Formula::Pred(
                fresh_name(&format!("Not{p}"), &self.names).into(),
                args.clone(),
            ),
            (K::PredicateRenamed, Formula::Prop(p)) => {
                Formula::Prop(fresh_name(&format!("Not{p}"), &self.names).into())
            }
            (K::ConstantVariable, Formula::Pred(p, args)) => self.constant_variable(p, args),
            (K::DeMorgan, Formula::Bin(op, a, b)) => Formula::negate(Formula::bin(
                and_or_dual(*op),
                Formula::negate((**a).clone()),
                Formula::negate((**b).clone()),
            )),
            (K::DeMorgan, Formula::Not(inner)) => match &**inner {
                Formula::Bin(op, a, b) => Formula::bin(
                    and_or_dual(*op),
                    Formula::negate((**a).clone()),
                    Formula::negate((**b).clone()),
                ),
                other => Formula::negate(other.clone()),
            },
            (K::Commutation, Formula::Bin(op, a, b)) => Formula::Bin(*op, b.clone(), a.clone()),
            (K::Distribution, Formula::Bin(op, a, b)) => match &**b {
                Formula::Bin(inner, x, y) => Formula::bin(
                    *inner,
                    Formula::Bin(*op, a.clone(), x.clone()),
                    Formula::Bin(*op, a.clone(), y.clone()),
                ),
                _ => g.clone(),
            },
            (_, g) => g.clone(),
        }
    }

    /// An atom with one argument swapped: a variable for a constant, or a constant for
    /// a variable bound at the site.
    fn constant_variable(&self, p: &Name, args: &[Term]) -> Formula {
        let mut args = args.to_vec();
        let idx = (self.choice as usize) % args.len().max(1);
        args[idx] = match &args[idx] {
            Term::Var(_) => Term::Const(
                self.constants
                    .first()
                    .cloned()
                    .unwrap_or_else(|| fresh_name("c", &self.names))
                    .into(),
            ),
            Term::Const(_) if !self.scope.is_empty() => {
                Term::Var(self.scope[(self.choice as usize >> 8) % self.scope.len()].clone())
            }
            t => t.clone(),
        };
        Formula::Pred(p.clone(), args)
    }
}

fn fresh_name(base: &str, taken: &[String]) -> String {
    let mut name = base.to_string();
    let mut i = 2;
    while taken.contains(&name) {
        name = format!("{base}{i}");
        i += 1;
    }
    name
}

/// Regex nodes in pre-order, rebuilt with one replaced.
fn regex_replace(
    r: &Regex,
    target: usize,
    i: &mut usize,
    g: &mut dyn FnMut(&Regex) -> Regex,
) -> Regex {
    let me = *i;
    *i += 1;
    if me == target {
        *i += r.size() - 1;
        return g(r);
    }
    match r {
        Regex::Epsilon | Regex::Sym(_) => r.clone(),
        Regex::Concat(xs) => {
            Regex::concat(xs.iter().map(|x| regex_replace(x, target, i, g)).collect())
        }
        Regex::Alt(xs) => Regex::alt(xs.iter().map(|x| regex_replace(x, target, i, g)).collect()),
        Regex::Star(x) => Regex::Star(Box::new(regex_replace(x, target, i, g))),
        Regex::Plus(x) => Regex::Plus(Box::new(regex_replace(x, target, i, g))),
        Regex::Opt(x) => Regex::Opt(Box::new(regex_replace(x, target, i, g))),
        Regex::Repeat(x, min, max) => {
            Regex::Repeat(Box::new(regex_replace(x, target, i, g)), *min, *max)
        }
    }
}

fn regex_sites(r: &Regex, pred: &dyn Fn(&Regex) -> bool) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    r.walk(&mut |x| {
        if pred(x) {
            out.push(i);
        }
        i += 1;
    });
    out
}

fn perturb_regex(r: &Regex, kind: PerturbKind, rng: &mut Rng) -> Option<Regex> {
    let starrable = |x: &Regex| matches!(x, Regex::Sym(_) | Regex::Concat(_) | Regex::Alt(_));
    match kind {
        PerturbKind::StarAdded => {
            let site = pick(rng, &regex_sites(r, &starrable))?;
            Some(regex_replace(r, site, &mut 0, &mut |x| {
                Regex::Star(Box::new(x.clone()))
            }))
        }
        PerturbKind::StarMoved => {
            let stars = regex_sites(r, &|x| matches!(x, Regex::Star(_)));
            let site = pick(rng, &stars)?;
            let removed = regex_replace(r, site, &mut 0, &mut |x| match x {
                Regex::Star(inner) => (**inner).clone(),
                other => other.clone(),
            });
            let targets = regex_sites(&removed, &starrable);
            // Prefer a different place than the one the star came from.
            let others: Vec<usize> = targets.into_iter().filter(|t| *t != site).collect();
            let to = pick(rng, &others)?;
            Some(regex_replace(&removed, to, &mut 0, &mut |x| {
                Regex::Star(Box::new(x.clone()))
            }))
        }
        _ => None,
    }
}

/// `f` with up to `n` of its constants turned into variables `x1…xn` bound by a random
/// prefix of nested quantifiers: a hard FOL formula (nested quantifiers over a large
/// matrix) built from a ground one, for benchmarks and completeness tests.
pub fn quantify_constants(f: &Formula, n: usize, rng: &mut Rng) -> Formula {
    let consts: Vec<String> = f.constants().into_iter().collect();
    let n = n.min(consts.len());
    let start = rng.below(consts.len() - n + 1);
    let mut g = f.clone();
    for (k, c) in consts[start..start + n].iter().enumerate() {
        let v = Term::Var(format!("x{}", k + 1).into());
        g = g.map_terms(&mut |t, _| match t {
            Term::Const(name) if name == c => v.clone(),
            other => other.clone(),
        });
    }
    for k in (1..=n).rev() {
        let q = if rng.chance(0.5) {
            Quantifier::Forall
        } else {
            Quantifier::Exists
        };
        g = Formula::quant(q, format!("x{k}").as_str(), g);
    }
    g
}

/// `e` with each operator perturbed independently with probability `r` (the offline
/// model's `--perturb-per-op`): for logic each operator the operator count counts (∧ ∨
/// → ↔ ⊕, and ¬ over a non-atom) is negated (a ¬ over a non-atom is dropped), so the
/// subformula it heads takes the opposite value under every assignment; for a
/// regex each depth level gets one star perturbation with probability `r`. Flips may
/// cancel or be equivalent by chance: the verifier decides.
pub fn perturb_per_op(e: &Expr, r: f64, rng: &mut Rng) -> Expr {
    match e {
        Expr::Logic(f) => Expr::Logic(flip_operators(f, r, rng)),
        Expr::Regex(x) => {
            let levels = crate::syntax::metrics::regex_metrics(x).cfg_depth.max(1);
            let mut out = x.clone();
            for _ in 0..levels {
                if !rng.chance(r) {
                    continue;
                }
                let first = if rng.chance(0.5) {
                    PerturbKind::StarMoved
                } else {
                    PerturbKind::StarAdded
                };
                let other = if first == PerturbKind::StarMoved {
                    PerturbKind::StarAdded
                } else {
                    PerturbKind::StarMoved
                };
                if let Some(p) =
                    perturb_regex(&out, first, rng).or_else(|| perturb_regex(&out, other, rng))
                {
                    out = p;
                }
            }
            Expr::Regex(out)
        }
    }
}

/// Each counted operator of `f` negated with probability `r` (decided in pre-order).
fn flip_operators(f: &Formula, r: f64, rng: &mut Rng) -> Formula {
    match f {
        Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => f.clone(),
        Formula::Not(a) if !a.is_atom() => {
            let drop = rng.chance(r);
            let inner = flip_operators(a, r, rng);
            if drop {
                inner
            } else {
                Formula::Not(Box::new(inner))
            }
        }
        Formula::Not(a) => Formula::Not(a.clone()),
        Formula::Bin(op, a, b) => {
            let negate = rng.chance(r);
            let a = flip_operators(a, r, rng);
            let b = flip_operators(b, r, rng);
            let g = Formula::Bin(*op, Box::new(a), Box::new(b));
            if negate { Formula::Not(Box::new(g)) } else { g }
        }
        Formula::Quant(q, v, body) => {
            Formula::Quant(*q, v.clone(), Box::new(flip_operators(body, r, rng)))
        }
    }
}
