//! The small vocabulary the Smatch search and its structural bound share: triple ends,
//! a variable's adjacency, and the states of a variable in the search's map.

/// A node position in a triple: a variable of its graph or an interned constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum End {
    Var(u32),
    Const(u32),
}

/// Distinct triples at one variable of the other graph: (relation, other end, count).
pub(crate) type Adj = Vec<(u32, End, u32)>;

/// `map` value of a variable not decided yet.
pub(crate) const OPEN: u32 = u32::MAX;
/// `map` value of a variable decided to stay unmatched.
pub(crate) const NONE: u32 = u32::MAX - 1;
