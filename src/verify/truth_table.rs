//! Bit-parallel truth tables (64 rows per word) over propositions and ground atoms.
//!
//! A formula without variables is a Boolean combination of ground atoms such as
//! `P(a,b)`; treating each distinct atom as a proposition is exact for equivalence,
//! because any assignment is realised by a structure with one element per constant.

use crate::syntax::{BinOp, Formula};
use std::collections::BTreeMap;

/// Most propositions the fast path handles (2^20 rows).
pub(crate) const MAX_VARS: usize = 20;

#[derive(Clone, Copy, Debug)]
enum Op {
    Var(u8),
    Const(bool),
    Not,
    Bin(BinOp),
}

/// A formula compiled to postfix over variable indices.
struct Program(Vec<Op>);

/// A proposition or a ground predicate atom.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// A proposition.
    Prop(String),
    /// A predicate over constants.
    Ground(String, Vec<String>),
}

fn atom_of(f: &Formula) -> Option<Atom> {
    match f {
        Formula::Prop(p) => Some(Atom::Prop(p.to_string())),
        Formula::Pred(p, args) => Some(Atom::Ground(
            p.to_string(),
            args.iter()
                .map(|t| match t {
                    crate::syntax::Term::Const(c) => Some(c.to_string()),
                    crate::syntax::Term::Var(_) => None,
                })
                .collect::<Option<Vec<_>>>()?,
        )),
        _ => None,
    }
}

/// Replaces ground atoms by propositions named after them (`None` if not ground).
pub(crate) fn abstract_ground(f: &Formula, table: &mut Vec<Atom>) -> Option<Formula> {
    Some(match f {
        Formula::Bool(_) => f.clone(),
        Formula::Prop(_) | Formula::Pred(..) => {
            let a = atom_of(f)?;
            let i = if let Some(i) = table.iter().position(|x| *x == a) {
                i
            } else {
                table.push(a);
                table.len() - 1
            };
            Formula::Prop(format!("atom!{i}").into())
        }
        Formula::Not(a) => Formula::negate(abstract_ground(a, table)?),
        Formula::Bin(op, a, b) => {
            Formula::bin(*op, abstract_ground(a, table)?, abstract_ground(b, table)?)
        }
        Formula::Quant(..) => return None,
    })
}

fn collect_atoms(f: &Formula, out: &mut Vec<Atom>) -> Option<()> {
    match f {
        Formula::Bool(_) => {}
        Formula::Prop(_) | Formula::Pred(..) => {
            if !out.iter().any(|a| is_atom(f, a)) {
                out.push(atom_of(f)?);
            }
        }
        Formula::Not(a) => collect_atoms(a, out)?,
        Formula::Bin(_, a, b) => {
            collect_atoms(a, out)?;
            collect_atoms(b, out)?;
        }
        Formula::Quant(..) => return None,
    }
    Some(())
}

/// Whether `f` is the atom `a` (compared without allocating).
fn is_atom(f: &Formula, a: &Atom) -> bool {
    match (f, a) {
        (Formula::Prop(p), Atom::Prop(q)) => p.as_str() == q,
        (Formula::Pred(p, args), Atom::Ground(q, consts)) => {
            p.as_str() == q
                && args.len() == consts.len()
                && args
                    .iter()
                    .zip(consts)
                    .all(|(t, c)| matches!(t, crate::syntax::Term::Const(x) if x.as_str() == c))
        }
        _ => false,
    }
}

fn compile(f: &Formula, vars: &[Atom], out: &mut Vec<Op>) -> Option<()> {
    match f {
        Formula::Bool(b) => out.push(Op::Const(*b)),
        Formula::Prop(_) | Formula::Pred(..) => {
            out.push(Op::Var(vars.iter().position(|v| is_atom(f, v))? as u8));
        }
        Formula::Not(a) => {
            compile(a, vars, out)?;
            out.push(Op::Not);
        }
        Formula::Bin(op, a, b) => {
            compile(a, vars, out)?;
            compile(b, vars, out)?;
            out.push(Op::Bin(*op));
        }
        Formula::Quant(..) => return None,
    }
    Some(())
}

/// Bit `i` of the row number over the 64 rows of a word, for `i` below 6 (the
/// truth-table column of a variable whose period is under a word).
pub(crate) const LOW: [u64; 6] = [
    0xAAAA_AAAA_AAAA_AAAA,
    0xCCCC_CCCC_CCCC_CCCC,
    0xF0F0_F0F0_F0F0_F0F0,
    0xFF00_FF00_FF00_FF00,
    0xFFFF_0000_FFFF_0000,
    0xFFFF_FFFF_0000_0000,
];

/// Words evaluated together; each operation runs over the whole block so the
/// inner loops vectorise.
const BLOCK: usize = 64;

impl Program {
    /// Evaluates rows `first_word*64 ..` for `n` words into `out`, using `stack` as scratch.
    fn run(
        &self,
        first_word: usize,
        n: usize,
        stack: &mut Vec<[u64; BLOCK]>,
        out: &mut [u64; BLOCK],
    ) {
        let mut top = 0;
        for op in &self.0 {
            match *op {
                Op::Var(i) => {
                    if stack.len() <= top {
                        stack.push([0; BLOCK]);
                    }
                    let row = &mut stack[top];
                    let i = i as usize;
                    if i < 6 {
                        row.fill(LOW[i]);
                    } else {
                        for (k, w) in row.iter_mut().enumerate().take(n) {
                            *w = if (first_word + k) >> (i - 6) & 1 == 1 {
                                u64::MAX
                            } else {
                                0
                            };
                        }
                    }
                    top += 1;
                }
                Op::Const(b) => {
                    if stack.len() <= top {
                        stack.push([0; BLOCK]);
                    }
                    stack[top].fill(if b { u64::MAX } else { 0 });
                    top += 1;
                }
                Op::Not => {
                    for w in &mut stack[top - 1] {
                        *w = !*w;
                    }
                }
                Op::Bin(op) => {
                    let (lo, hi) = stack.split_at_mut(top - 1);
                    let (a, b) = (&mut lo[top - 2], &hi[0]);
                    match op {
                        BinOp::And => a.iter_mut().zip(b).for_each(|(x, y)| *x &= *y),
                        BinOp::Or => a.iter_mut().zip(b).for_each(|(x, y)| *x |= *y),
                        BinOp::Implies => a.iter_mut().zip(b).for_each(|(x, y)| *x = !*x | *y),
                        BinOp::Iff => a.iter_mut().zip(b).for_each(|(x, y)| *x = !(*x ^ *y)),
                        BinOp::Xor => a.iter_mut().zip(b).for_each(|(x, y)| *x ^= *y),
                    }
                    top -= 1;
                }
            }
        }
        *out = stack[0];
    }
}

/// Result of a truth-table comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableResult {
    /// Same value on every row.
    Equivalent,
    /// First differing row: the assignment, φ's value, φ′'s value.
    Differ(BTreeMap<Atom, bool>, bool, bool),
}

/// Compares two quantifier-free, variable-free formulas over the union of their atoms.
/// `None` if either has a quantifier or variable, or there are more than `MAX_VARS` atoms.
pub fn compare(a: &Formula, b: &Formula) -> Option<TableResult> {
    let mut names: Vec<Atom> = Vec::new();
    collect_atoms(a, &mut names)?;
    collect_atoms(b, &mut names)?;
    names.sort();
    if names.len() > MAX_VARS {
        return None;
    }
    let (mut pa, mut pb) = (Vec::new(), Vec::new());
    compile(a, &names, &mut pa)?;
    compile(b, &names, &mut pb)?;
    let (pa, pb) = (Program(pa), Program(pb));
    let n = names.len();
    let rows = 1usize << n;
    let words = rows.div_ceil(64);
    let valid = if rows < 64 {
        (1u64 << rows) - 1
    } else {
        u64::MAX
    };
    let (mut stack, mut va, mut vb) = (Vec::with_capacity(16), [0u64; BLOCK], [0u64; BLOCK]);
    let mut first = 0;
    while first < words {
        let count = BLOCK.min(words - first);
        pa.run(first, count, &mut stack, &mut va);
        pb.run(first, count, &mut stack, &mut vb);
        for k in 0..count {
            let diff = (va[k] ^ vb[k]) & valid;
            if diff != 0 {
                let bit = diff.trailing_zeros() as usize;
                let row = (first + k) * 64 + bit;
                let values = names
                    .iter()
                    .enumerate()
                    .map(|(i, name)| (name.clone(), row >> i & 1 == 1))
                    .collect();
                return Some(TableResult::Differ(
                    values,
                    va[k] >> bit & 1 == 1,
                    vb[k] >> bit & 1 == 1,
                ));
            }
        }
        first += count;
    }
    Some(TableResult::Equivalent)
}
