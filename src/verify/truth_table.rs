//! Bit-parallel truth tables for propositional formulas (64 rows per word).

use crate::syntax::{BinOp, Formula};
use std::collections::BTreeMap;

/// Most propositions the fast path handles (2^20 rows).
pub const MAX_VARS: usize = 20;

#[derive(Clone, Copy, Debug)]
enum Op {
    Var(u8),
    Not,
    Bin(BinOp),
}

/// A formula compiled to postfix over variable indices.
struct Program(Vec<Op>);

fn compile(f: &Formula, vars: &[&str], out: &mut Vec<Op>) -> Option<()> {
    match f {
        Formula::Prop(p) => out.push(Op::Var(vars.iter().position(|v| *v == p.as_str())? as u8)),
        Formula::Not(a) => {
            compile(a, vars, out)?;
            out.push(Op::Not);
        }
        Formula::Bin(op, a, b) => {
            compile(a, vars, out)?;
            compile(b, vars, out)?;
            out.push(Op::Bin(*op));
        }
        Formula::Pred(..) | Formula::Quant(..) => return None,
    }
    Some(())
}

const LOW: [u64; 6] = [
    0xAAAA_AAAA_AAAA_AAAA,
    0xCCCC_CCCC_CCCC_CCCC,
    0xF0F0_F0F0_F0F0_F0F0,
    0xFF00_FF00_FF00_FF00,
    0xFFFF_0000_FFFF_0000,
    0xFFFF_FFFF_0000_0000,
];

impl Program {
    fn run(&self, word: usize, stack: &mut Vec<u64>) -> u64 {
        stack.clear();
        for op in &self.0 {
            match *op {
                Op::Var(i) => {
                    let i = i as usize;
                    stack.push(if i < 6 {
                        LOW[i]
                    } else if word >> (i - 6) & 1 == 1 {
                        u64::MAX
                    } else {
                        0
                    });
                }
                Op::Not => {
                    if let Some(x) = stack.last_mut() {
                        *x = !*x;
                    }
                }
                Op::Bin(op) => {
                    let b = stack.pop().unwrap_or(0);
                    let a = stack.pop().unwrap_or(0);
                    stack.push(match op {
                        BinOp::And => a & b,
                        BinOp::Or => a | b,
                        BinOp::Implies => !a | b,
                        BinOp::Iff => !(a ^ b),
                        BinOp::Xor => a ^ b,
                    });
                }
            }
        }
        stack.pop().unwrap_or(0)
    }
}

/// Result of a truth-table comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableResult {
    /// Same value on every row.
    Equivalent,
    /// First differing row: the assignment, φ's value, φ′'s value.
    Differ(BTreeMap<String, bool>, bool, bool),
}

/// Compares two propositional formulas over the union of their propositions.
/// `None` if either is not propositional or there are more than [`MAX_VARS`] propositions.
pub fn compare(a: &Formula, b: &Formula) -> Option<TableResult> {
    let mut names: Vec<String> = a.propositions().into_iter().collect();
    for p in b.propositions() {
        if !names.contains(&p) {
            names.push(p);
        }
    }
    names.sort();
    if names.len() > MAX_VARS {
        return None;
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let (mut pa, mut pb) = (Vec::new(), Vec::new());
    compile(a, &refs, &mut pa)?;
    compile(b, &refs, &mut pb)?;
    let (pa, pb) = (Program(pa), Program(pb));
    let n = names.len();
    let rows = 1usize << n;
    let words = rows.div_ceil(64);
    let valid = if rows < 64 {
        (1u64 << rows) - 1
    } else {
        u64::MAX
    };
    let mut stack = Vec::with_capacity(64);
    for w in 0..words {
        let va = pa.run(w, &mut stack);
        let vb = pb.run(w, &mut stack);
        let diff = (va ^ vb) & valid;
        if diff != 0 {
            let bit = diff.trailing_zeros() as usize;
            let row = w * 64 + bit;
            let values = names
                .iter()
                .enumerate()
                .map(|(i, name)| (name.clone(), row >> i & 1 == 1))
                .collect();
            return Some(TableResult::Differ(
                values,
                va >> bit & 1 == 1,
                vb >> bit & 1 == 1,
            ));
        }
    }
    Some(TableResult::Equivalent)
}
