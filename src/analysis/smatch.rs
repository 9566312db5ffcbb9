//! `smatch`: Smatch F1 on a correct graph of the formula, with an optimal alignment.
//!
//! The graph has one node per quantifier, connective, negation, predicate/proposition
//! and term. A quantifier node has `:var` to its variable's node and `:scope` to its body;
//! every occurrence of a bound variable points at that one node (so renaming bound
//! variables changes nothing); each distinct constant and free variable is one node.
//! A predicate has `:arg0`, `:arg1`, … to its terms in order; `∧ ∨ ⊕ ↔` have two
//! unordered `:op` edges, `→` has `:arg0` (antecedent) and `:arg1` (consequent), `¬` has
//! `:arg0`. Variable nodes carry the concept `variable`, so only structure identifies them.

use super::smatch_align::{End, Graph, Interner, f1};
use crate::syntax::{BinOp, Formula, Quantifier, Term};
use rustc_hash::FxHashMap as HashMap;

/// Most graph nodes on either side before `smatch` refuses (the search is exponential
/// in the worst case; real formulas of this size still finish within the node budget).
pub(crate) const MAX_NODES: usize = 400;

/// Relation names used on every graph, interned once per pair.
struct Rels {
    instance: u32,
    op: u32,
    var: u32,
    scope: u32,
    /// `:arg0` … `:arg9` (more arguments are interned as they come).
    args: [u32; 10],
}

struct Builder<'a> {
    names: &'a mut Interner,
    rels: Rels,
    g: Graph,
    scope: Vec<(&'a str, u32)>,
    free: HashMap<String, u32>,
    consts: HashMap<String, u32>,
}

impl<'a> Builder<'a> {
    fn node(&mut self, concept: &str) -> u32 {
        let v = self.g.vars;
        self.g.vars += 1;
        let c = self.names.id(concept);
        self.g
            .triples
            .push((End::Var(v), self.rels.instance, End::Const(c)));
        v
    }

    fn edge(&mut self, from: u32, r: u32, to: u32) {
        self.g.triples.push((End::Var(from), r, End::Var(to)));
    }

    /// The id of `:arg{i}`.
    fn arg(&mut self, i: usize) -> u32 {
        match self.rels.args.get(i) {
            Some(&r) => r,
            None => self.names.id(&format!(":arg{i}")),
        }
    }

    fn term(&mut self, t: &'a Term) -> u32 {
        match t {
            Term::Var(v) => {
                if let Some(&(_, id)) = self.scope.iter().rev().find(|(n, _)| *n == v.as_str()) {
                    return id;
                }
                if let Some(&id) = self.free.get(v.as_str()) {
                    return id;
                }
                let id = self.node("variable");
                self.free.insert(v.to_string(), id);
                id
            }
            Term::Const(c) => {
                if let Some(&id) = self.consts.get(c.as_str()) {
                    return id;
                }
                let id = self.node(c);
                self.consts.insert(c.to_string(), id);
                id
            }
        }
    }

    fn build(&mut self, f: &'a Formula) -> u32 {
        match f {
            Formula::Prop(p) => self.node(p),
            Formula::Bool(b) => self.node(if *b { "true" } else { "false" }),
            Formula::Pred(p, args) => {
                let n = self.node(p);
                for (i, a) in args.iter().enumerate() {
                    let t = self.term(a);
                    let r = self.arg(i);
                    self.edge(n, r, t);
                }
                n
            }
            Formula::Not(a) => {
                let n = self.node("not");
                let x = self.build(a);
                self.edge(n, self.rels.args[0], x);
                n
            }
            Formula::Bin(op, a, b) => {
                let (name, ordered) = match op {
                    BinOp::And => ("and", false),
                    BinOp::Or => ("or", false),
                    BinOp::Xor => ("xor", false),
                    BinOp::Iff => ("iff", false),
                    BinOp::Implies => ("implies", true),
                };
                let n = self.node(name);
                let (x, y) = (self.build(a), self.build(b));
                let (r0, r1) = if ordered {
                    (self.rels.args[0], self.rels.args[1])
                } else {
                    (self.rels.op, self.rels.op)
                };
                self.edge(n, r0, x);
                self.edge(n, r1, y);
                n
            }
            Formula::Quant(q, v, body) => {
                let n = self.node(match q {
                    Quantifier::Forall => "forall",
                    Quantifier::Exists => "exists",
                });
                let x = self.node("variable");
                self.edge(n, self.rels.var, x);
                self.scope.push((v.as_str(), x));
                let b = self.build(body);
                self.scope.pop();
                self.edge(n, self.rels.scope, b);
                n
            }
        }
    }
}

/// The graph of a formula (with its ROOT triple).
pub(crate) fn formula_graph(f: &Formula, names: &mut Interner) -> Graph {
    let rels = Rels {
        instance: names.id(":instance"),
        op: names.id(":op"),
        var: names.id(":var"),
        scope: names.id(":scope"),
        args: std::array::from_fn(|i| names.id(&format!(":arg{i}"))),
    };
    let mut b = Builder {
        names,
        rels,
        g: Graph::default(),
        scope: Vec::new(),
        free: HashMap::default(),
        consts: HashMap::default(),
    };
    let root = b.build(f);
    let (r, c) = (b.names.id(":root"), b.names.id("ROOT"));
    b.g.triples.push((End::Const(c), r, End::Var(root)));
    b.g
}

/// Why `smatch` has no value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SmatchError {
    /// Above `MAX_NODES`.
    #[error("{0} graph nodes: above the {MAX_NODES}-node bound")]
    TooLarge(usize),
}

/// `smatch` of two formulas in [0, 1], and whether the alignment was proved optimal.
pub fn smatch(candidate: &Formula, reference: &Formula) -> Result<(f64, bool), SmatchError> {
    let n = candidate.size().max(reference.size());
    if n > MAX_NODES {
        return Err(SmatchError::TooLarge(n));
    }
    let mut names = Interner::default();
    let gr = formula_graph(reference, &mut names);
    // A copy of the reference has the same graph: built once.
    let gc = if candidate == reference {
        gr.clone()
    } else {
        formula_graph(candidate, &mut names)
    };
    Ok(f1(&gr, &gc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_logic::parse_formula;

    fn s(a: &str, b: &str) -> f64 {
        let (x, y) = (parse_formula(a).expect("a"), parse_formula(b).expect("b"));
        let (v, optimal) = smatch(&x, &y).expect("small");
        assert!(optimal);
        v
    }

    #[test]
    fn renaming_and_commuting_are_free_and_changes_cost() {
        assert_eq!(s("∀x.(eel(x) → fish(x))", "∀y.(eel(y) → fish(y))"), 1.0);
        assert_eq!(s("p1 ∧ p2", "p2 ∧ p1"), 1.0);
        // Swapping → operands: 6 triples a side (3 instances, 2 edges, ROOT); the best
        // alignment keeps 4 (either the concepts or the two edges, plus → and ROOT).
        let v = s("p1 → p2", "p2 → p1");
        assert!((v - 2.0 / 3.0).abs() < 1e-12, "{v}");
        assert!(s("∀x.eel(x)", "∃x.eel(x)") < 1.0);
        assert!(s("¬p1", "p1") < 1.0);
    }
}
