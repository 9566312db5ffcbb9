//! Models as arrays indexed by symbol number, and formulas compiled against the
//! numbers (names resolved, variables to quantifier levels, a predicate atom to its
//! table at the atom's arity), evaluated without a string compare or a search.

use super::Symbols;
use crate::syntax::{BinOp, Formula, Quantifier};

impl Symbols {
    /// `f` compiled: `scope` lists the variables bound around it, outermost first.
    pub fn compile(&self, f: &Formula, scope: &[&str]) -> Prog {
        let mut p = Prog {
            nodes: Vec::new(),
            terms: Vec::new(),
        };
        let mut scope: Vec<&str> = scope.to_vec();
        self.node(f, &mut scope, &mut p);
        p
    }

    fn node<'a>(&self, f: &'a Formula, scope: &mut Vec<&'a str>, p: &mut Prog) -> usize {
        let at = p.nodes.len();
        p.nodes.push(Node::Bool(false));
        let node = match f {
            Formula::Bool(b) => Node::Bool(*b),
            Formula::Prop(x) => Node::Prop(self.props.get(x.as_str()).copied()),
            Formula::Pred(x, args) => {
                let start = p.terms.len();
                for t in args {
                    let n = t.name();
                    // By name, whatever the term's kind, as [`Model::eval`] reads it.
                    let t = match scope.iter().rposition(|v| *v == n) {
                        Some(level) => T::Level(level),
                        None => self.names.get(n).map_or(T::Zero, |&i| T::Name(i)),
                    };
                    p.terms.push(t);
                }
                let table = self
                    .preds
                    .get(x.as_str())
                    .and_then(|p| self.tables.get(&(*p, args.len())))
                    .copied();
                Node::Pred(table, start, args.len())
            }
            Formula::Not(a) => Node::Not(self.node(a, scope, p)),
            Formula::Bin(op, a, b) => {
                let x = self.node(a, scope, p);
                Node::Bin(*op, x, self.node(b, scope, p))
            }
            Formula::Quant(q, v, body) => {
                scope.push(v.as_str());
                let x = self.node(body, scope, p);
                scope.pop();
                Node::Quant(*q == Quantifier::Forall, x)
            }
        };
        p.nodes[at] = node;
        at
    }
}

/// A model as arrays indexed by symbol number.
#[derive(Clone, Default, Debug)]
pub(in crate::analysis::proof) struct Dense {
    pub size: usize,
    pub(super) props: Vec<bool>,
    /// Per table number, where its entries are in `bits` (start, length; absent: empty).
    pub(super) tables: Vec<(usize, usize)>,
    pub(super) bits: Vec<bool>,
    pub(super) names: Vec<usize>,
}

#[cfg(test)]
impl Dense {
    /// Table `t`'s entries (absent: none).
    pub(super) fn table(&self, t: usize) -> &[bool] {
        self.tables
            .get(t)
            .and_then(|&(s, n)| self.bits.get(s..s + n))
            .unwrap_or(&[])
    }
}

/// The same model: the same values for every symbol number (however the tables lie
/// in `bits`).
#[cfg(test)]
impl PartialEq for Dense {
    fn eq(&self, o: &Dense) -> bool {
        self.size == o.size
            && self.props == o.props
            && self.names == o.names
            && self.tables.len() == o.tables.len()
            && (0..self.tables.len()).all(|t| self.table(t) == o.table(t))
    }
}

/// A compiled term.
#[derive(Clone, Copy)]
enum T {
    /// The variable bound at this quantifier level (0: outermost).
    Level(usize),
    /// A named element.
    Name(usize),
    /// A name no model knows (element 0).
    Zero,
}

/// A compiled formula node.
#[derive(Clone, Copy)]
enum Node {
    Bool(bool),
    Prop(Option<usize>),
    /// Table number (the predicate at the atom's arity), first term, arity.
    Pred(Option<usize>, usize, usize),
    Not(usize),
    Bin(BinOp, usize, usize),
    /// ∀ (true) or ∃, body.
    Quant(bool, usize),
}

/// A formula compiled against [`Symbols`] (root at node 0).
pub(in crate::analysis::proof) struct Prog {
    nodes: Vec<Node>,
    terms: Vec<T>,
}

impl Prog {
    /// The tables it reads.
    pub fn tables(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes.iter().filter_map(|n| match n {
            Node::Pred(t, ..) => *t,
            _ => None,
        })
    }

    /// The value on `m` with the enclosing variables at `env` (one element per level).
    pub fn eval(&self, m: &Dense, env: &mut Vec<usize>) -> bool {
        self.at(0, m, env)
    }

    fn at(&self, i: usize, m: &Dense, env: &mut Vec<usize>) -> bool {
        match self.nodes.get(i) {
            None => false,
            Some(Node::Bool(b)) => *b,
            Some(Node::Prop(p)) => p.and_then(|p| m.props.get(p)).copied().unwrap_or(false),
            Some(Node::Pred(t, start, len)) => {
                let Some(&(at, n)) = t.and_then(|t| m.tables.get(t)) else {
                    return false;
                };
                let terms = self.terms.get(*start..start + len).unwrap_or(&[]);
                let idx = terms.iter().fold(0, |i, t| {
                    let e = match t {
                        T::Level(l) => env.get(*l).copied().unwrap_or(0),
                        T::Name(n) => m.names.get(*n).copied().unwrap_or(0),
                        T::Zero => 0,
                    };
                    i * m.size + e
                });
                idx < n && m.bits.get(at + idx).copied().unwrap_or(false)
            }
            Some(Node::Not(a)) => !self.at(*a, m, env),
            Some(Node::Bin(op, a, b)) => {
                // [`BinOp::apply`] written out: its closure kept the recursion from
                // being inlined.
                let x = self.at(*a, m, env);
                match (op, x) {
                    (BinOp::And, false) => false,
                    (BinOp::Or, true) => true,
                    (BinOp::Implies, false) => true,
                    (BinOp::Iff, _) => x == self.at(*b, m, env),
                    (BinOp::Xor, _) => x != self.at(*b, m, env),
                    _ => self.at(*b, m, env),
                }
            }
            Some(Node::Quant(all, body)) => {
                for e in 0..m.size {
                    env.push(e);
                    let val = self.at(*body, m, env);
                    env.pop();
                    if val != *all {
                        return !all;
                    }
                }
                *all
            }
        }
    }

    /// The values at every assignment of `depth` enclosing variables (outermost
    /// variable the most significant digit), appended to `out`.
    pub fn table(&self, m: &Dense, depth: usize, out: &mut Vec<bool>) {
        let mut env = vec![0; depth];
        loop {
            out.push(self.eval(m, &mut env));
            // The next assignment, as an odometer (the innermost variable fastest).
            let mut k = depth;
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                env[k] += 1;
                if env[k] < m.size {
                    break;
                }
                env[k] = 0;
            }
        }
    }
}
