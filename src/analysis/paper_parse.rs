//! The paper's FOL parser (AlignmentFOL `parse_text_FOL_to_tree`): its NLTK grammar and
//! NLTK's `ChartParser` (bottom-up left-corner strategy, agenda as a stack) re-done edge
//! for edge, so that `parse_one`'s choice among ambiguous trees is the same: mixed
//! unparenthesised operators group left to right, a leading `¬` is read as `S -> ¬ S`.

use super::fol_text::{msplit, reorder_quantifiers, starts_symbol};
use rustc_hash::FxHashMap as HashMap;

/// Nonterminals of the paper's grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Nt {
    S,
    Q,
    F,
    Op,
    L,
    Terms,
    Term,
    Quant,
    Var,
    Pred,
    Const,
}

/// A parse tree as NLTK returns it: leaves are the token strings.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PTree {
    Leaf(String),
    Node(Nt, Vec<PTree>),
}

impl PTree {
    /// The node's label, `None` for a leaf.
    pub(crate) fn label(&self) -> Option<Nt> {
        match self {
            PTree::Node(n, _) => Some(*n),
            PTree::Leaf(_) => None,
        }
    }

    /// The leaf text, `None` for a node.
    pub(crate) fn leaf(&self) -> Option<&str> {
        match self {
            PTree::Leaf(s) => Some(s),
            PTree::Node(..) => None,
        }
    }

    /// Children (empty for a leaf).
    pub(crate) fn children(&self) -> &[PTree] {
        match self {
            PTree::Node(_, c) => c,
            PTree::Leaf(_) => &[],
        }
    }

    /// All leaves left to right (NLTK `Tree.leaves`).
    pub(crate) fn leaves<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            PTree::Leaf(s) => out.push(s),
            PTree::Node(_, c) => c.iter().for_each(|t| t.leaves(out)),
        }
    }
}

/// Why the paper's parser gives no tree (its code then scores the pair 0).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum PaperParseError {
    /// 25 + 3 × symbols > 80 grammar productions.
    #[error("{0} distinct symbols: the paper's parser gives up at 19 or more")]
    TooManySymbols(usize),
    /// A token the grammar has no terminal for (`>`, `&`, …).
    #[error("token `{0}` is not in the paper's grammar")]
    NotCovered(String),
    /// No parse under the grammar (unbalanced brackets, a bare proposition, …).
    #[error("no parse under the paper's grammar")]
    NoParse,
    /// Longer than the bound this port accepts.
    #[error("{0} tokens: longer than the {MAX_TOKENS}-token bound")]
    TooLong(usize),
    /// No symbol at all.
    #[error("no predicate or term symbol")]
    Empty,
}

/// Longest token list parsed (the paper's 5 s timeout cuts in long before on real input).
pub(crate) const MAX_TOKENS: usize = 400;

const FIXED: [&str; 12] = ["¬", "(", ")", "⊕", "∨", "∧", "→", "↔", "∀", "∃", "=", ","];
const NOT: u32 = 0;
const LP: u32 = 1;
const RP: u32 = 2;
const QALL: u32 = 8;
const QEX: u32 = 9;
const EQ: u32 = 10;
const COMMA: u32 = 11;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Sym {
    N(Nt),
    T(u32),
}

struct Grammar {
    prods: Vec<(Nt, Vec<Sym>)>,
    by_first: HashMap<Sym, Vec<u32>>,
}

fn grammar(symbols: &[u32]) -> Grammar {
    use Nt::{Const, F, L, Op, Pred, Q, Quant, S, Term, Terms, Var};
    use Sym::{N, T};
    let mut prods: Vec<(Nt, Vec<Sym>)> = vec![
        (S, vec![N(F)]),
        (S, vec![N(Q), N(F)]),
        (S, vec![T(NOT), N(S)]),
        (S, vec![T(LP), N(S), T(RP)]),
        (Q, vec![N(Quant), N(Var)]),
        (Q, vec![N(Quant), N(Var), N(Q)]),
        (F, vec![T(NOT), T(LP), N(F), T(RP)]),
        (F, vec![T(LP), N(F), T(RP)]),
        (F, vec![N(F), N(Op), N(F)]),
        (F, vec![N(L)]),
    ];
    for op in 3..8 {
        prods.push((Op, vec![T(op)]));
    }
    prods.extend([
        (L, vec![T(NOT), N(Pred), T(LP), N(Terms), T(RP)]),
        (L, vec![N(Pred), T(LP), N(Terms), T(RP)]),
        (L, vec![N(Var), T(EQ), N(Var)]),
        (L, vec![T(NOT), N(Var), T(EQ), N(Var)]),
        (Terms, vec![N(Term)]),
        (Terms, vec![N(Term), T(COMMA), N(Terms)]),
        (Term, vec![N(Const)]),
        (Term, vec![N(Var)]),
        (Quant, vec![T(QALL)]),
        (Quant, vec![T(QEX)]),
    ]);
    for nt in [Var, Pred, Const] {
        for &s in symbols {
            prods.push((nt, vec![T(s)]));
        }
    }
    let mut by_first: HashMap<Sym, Vec<u32>> = HashMap::default();
    for (i, (_, rhs)) in prods.iter().enumerate() {
        by_first.entry(rhs[0]).or_default().push(i as u32);
    }
    Grammar { prods, by_first }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Leaf(u32),
    Tree {
        prod: u32,
        dot: u32,
        start: u32,
        end: u32,
    },
}

/// The empty child list.
const EMPTY: u32 = u32::MAX;

struct Chart<'g> {
    g: &'g Grammar,
    toks: Vec<u32>,
    keys: Vec<Key>,
    /// Each edge's child lists, as ids of `lists`, in the order NLTK adds them.
    cpls: Vec<Vec<u32>>,
    /// Child lists shared by prefix: (the list without its last child, that child).
    /// Equal lists get equal ids, so a list is new exactly when its id is.
    lists: Vec<(u32, u32)>,
    list_ids: HashMap<(u32, u32), u32>,
    /// (edge, child list) pairs already in the chart.
    has: rustc_hash::FxHashSet<(u32, u32)>,
    /// Scratch for the child lists of a combined edge.
    buf: Vec<u32>,
    ids: HashMap<Key, u32>,
    complete_at: HashMap<(u32, Sym), Vec<u32>>,
    incomplete_at: HashMap<(u32, Sym), Vec<u32>>,
}

impl<'g> Chart<'g> {
    fn new(g: &'g Grammar, toks: Vec<u32>) -> Self {
        Chart {
            g,
            toks,
            keys: Vec::new(),
            cpls: Vec::new(),
            lists: Vec::new(),
            list_ids: HashMap::default(),
            has: rustc_hash::FxHashSet::default(),
            buf: Vec::new(),
            ids: HashMap::default(),
            complete_at: HashMap::default(),
            incomplete_at: HashMap::default(),
        }
    }

    /// The first complete `S` edge over every token, after [`Chart::run`].
    fn root(&self) -> Option<u32> {
        let n = self.toks.len() as u32;
        self.complete_at
            .get(&(0, Sym::N(Nt::S)))
            .and_then(|v| v.iter().copied().find(|&e| self.span(e).1 == n))
    }

    fn span(&self, e: u32) -> (u32, u32) {
        match self.keys[e as usize] {
            Key::Leaf(i) => (i, i + 1),
            Key::Tree { start, end, .. } => (start, end),
        }
    }

    fn lhs(&self, e: u32) -> Sym {
        match self.keys[e as usize] {
            Key::Leaf(i) => Sym::T(self.toks[i as usize]),
            Key::Tree { prod, .. } => Sym::N(self.g.prods[prod as usize].0),
        }
    }

    /// The symbol after the dot, `None` when complete.
    fn next(&self, e: u32) -> Option<Sym> {
        match self.keys[e as usize] {
            Key::Leaf(_) => None,
            Key::Tree { prod, dot, .. } => self.g.prods[prod as usize].1.get(dot as usize).copied(),
        }
    }

    /// The id of the child list `prefix` + `last`.
    fn list(&mut self, prefix: u32, last: u32) -> u32 {
        let n = self.lists.len() as u32;
        let id = *self.list_ids.entry((prefix, last)).or_insert(n);
        if id == n {
            self.lists.push((prefix, last));
        }
        id
    }

    /// The children of a child list, in order.
    fn children(&self, mut list: u32) -> Vec<u32> {
        let mut out = Vec::new();
        while list != EMPTY {
            let (prefix, last) = self.lists[list as usize];
            out.push(last);
            list = prefix;
        }
        out.reverse();
        out
    }

    /// NLTK `Chart.insert`: true when the edge or one of its child lists is new.
    fn insert(&mut self, key: Key, new_cpls: &[u32]) -> Option<u32> {
        let id = if let Some(&id) = self.ids.get(&key) {
            id
        } else {
            let id = self.keys.len() as u32;
            self.keys.push(key);
            self.cpls.push(Vec::new());
            self.ids.insert(key, id);
            let (start, end) = self.span(id);
            let lhs = self.lhs(id);
            match self.next(id) {
                None => self.complete_at.entry((start, lhs)).or_default().push(id),
                Some(n) => self.incomplete_at.entry((end, n)).or_default().push(id),
            }
            id
        };
        let mut modified = false;
        for &c in new_cpls {
            if self.has.insert((id, c)) {
                self.cpls[id as usize].push(c);
                modified = true;
            }
        }
        modified.then_some(id)
    }

    /// `left` with its dot moved over `right` (NLTK `insert_with_backpointer`).
    fn combine(&mut self, left: u32, right: u32) -> Option<u32> {
        let Key::Tree {
            prod, dot, start, ..
        } = self.keys[left as usize]
        else {
            return None;
        };
        let end = self.span(right).1;
        let mut cpls = std::mem::take(&mut self.buf);
        cpls.clear();
        for i in 0..self.cpls[left as usize].len() {
            let l = self.list(self.cpls[left as usize][i], right);
            cpls.push(l);
        }
        let id = self.insert(
            Key::Tree {
                prod,
                dot: dot + 1,
                start,
                end,
            },
            &cpls,
        );
        self.buf = cpls;
        id
    }

    fn run(&mut self) {
        let n = self.toks.len() as u32;
        for i in 0..n {
            self.insert(Key::Leaf(i), &[EMPTY]);
        }
        let mut agenda: Vec<u32> = (0..n).rev().collect();
        while let Some(e) = agenda.pop() {
            let (start, end) = self.span(e);
            match self.next(e) {
                None => {
                    // Bottom-up predict + combine, then the fundamental rule for a complete edge.
                    let lhs = self.lhs(e);
                    let g = self.g;
                    let prods = g.by_first.get(&lhs).map_or(&[][..], Vec::as_slice);
                    let one = self.list(EMPTY, e);
                    for &p in prods {
                        let key = Key::Tree {
                            prod: p,
                            dot: 1,
                            start,
                            end,
                        };
                        if let Some(id) = self.insert(key, &[one]) {
                            agenda.push(id);
                        }
                    }
                    // Combining never adds to this list (spans are never empty), so it
                    // is taken out while iterated instead of copied.
                    let key = (start, lhs);
                    let lefts = self.incomplete_at.remove(&key).unwrap_or_default();
                    for &l in &lefts {
                        if let Some(id) = self.combine(l, e) {
                            agenda.push(id);
                        }
                    }
                    if !lefts.is_empty() {
                        self.incomplete_at.insert(key, lefts);
                    }
                }
                Some(next) => {
                    let key = (end, next);
                    let rights = self.complete_at.remove(&key).unwrap_or_default();
                    for &r in &rights {
                        if let Some(id) = self.combine(e, r) {
                            agenda.push(id);
                        }
                    }
                    if !rights.is_empty() {
                        self.complete_at.insert(key, rights);
                    }
                }
            }
        }
    }

    /// The first tree of an edge: its first child list, recursively (NLTK `_trees`).
    fn first_tree(&self, e: u32, words: &[String]) -> PTree {
        match self.keys[e as usize] {
            Key::Leaf(i) => PTree::Leaf(words[i as usize].clone()),
            Key::Tree { prod, .. } => {
                let kids = self.cpls[e as usize]
                    .first()
                    .map(|&c| {
                        self.children(c)
                            .iter()
                            .map(|&k| self.first_tree(k, words))
                            .collect()
                    })
                    .unwrap_or_default();
                PTree::Node(self.g.prods[prod as usize].0, kids)
            }
        }
    }
}

/// Parses a FOL string as the paper's code does: hoist quantifiers, `msplit`, then the
/// first parse of NLTK's chart parser.
pub(crate) fn parse_paper(src: &str) -> Result<PTree, PaperParseError> {
    let words = msplit(&reorder_quantifiers(src));
    if words.len() > MAX_TOKENS {
        return Err(PaperParseError::TooLong(words.len()));
    }
    let (toks, sym_ids) = tokenize(&words)?;
    // Every parse bottoms out in a literal, `Pred ( Terms )` or `Var = Var`: without a
    // symbol before `(` and without `=` (every propositional formula) there is none.
    let literal_possible = toks.contains(&EQ)
        || toks
            .windows(2)
            .any(|w| w[0] >= FIXED.len() as u32 && w[1] == LP);
    if !literal_possible {
        return Err(PaperParseError::NoParse);
    }
    let g = grammar(&sym_ids);
    let mut chart = Chart::new(&g, toks);
    chart.run();
    chart
        .root()
        .map(|e| chart.first_tree(e, &words))
        .ok_or(PaperParseError::NoParse)
}

/// The paper's token ids of `words` and the ids of its symbols, or why its parser
/// gives up before parsing.
fn tokenize(words: &[String]) -> Result<(Vec<u32>, Vec<u32>), PaperParseError> {
    let mut symbols: Vec<&str> = Vec::new();
    for w in words {
        if starts_symbol(w) && !symbols.contains(&w.as_str()) {
            symbols.push(w);
        }
    }
    if 25 + 3 * symbols.len() > 80 {
        return Err(PaperParseError::TooManySymbols(symbols.len()));
    }
    if symbols.is_empty() {
        return Err(PaperParseError::Empty);
    }
    let mut toks = Vec::with_capacity(words.len());
    for w in words {
        let id = if let Some(i) = FIXED.iter().position(|f| f == w) {
            i as u32
        } else if let Some(i) = symbols.iter().position(|s| s == w) {
            (FIXED.len() + i) as u32
        } else {
            return Err(PaperParseError::NotCovered(w.clone()));
        };
        toks.push(id);
    }
    let sym_ids = (0..symbols.len())
        .map(|i| (FIXED.len() + i) as u32)
        .collect();
    Ok((toks, sym_ids))
}

/// NLTK's bracketed one-line form (`Tree.pformat` with a wide margin), for tests.
#[cfg(test)]
pub(crate) fn bracketed(t: &PTree) -> String {
    match t {
        PTree::Leaf(s) => s.clone(),
        PTree::Node(n, kids) => {
            let name = match n {
                Nt::S => "S",
                Nt::Q => "Q",
                Nt::F => "F",
                Nt::Op => "OP",
                Nt::L => "L",
                Nt::Terms => "TERMS",
                Nt::Term => "TERM",
                Nt::Quant => "QUANT",
                Nt::Var => "VAR",
                Nt::Pred => "PRED",
                Nt::Const => "CONST",
            };
            let inner: Vec<String> = kids.iter().map(bracketed).collect();
            format!("({name} {})", inner.join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> String {
        bracketed(&parse_paper(s).expect("parses"))
    }

    /// Trees NLTK 3.7 returned for these strings (probed with the paper's code).
    #[test]
    fn picks_the_same_tree_as_nltk() {
        assert_eq!(
            p("¬A(x) ∧ B(x)"),
            "(S (F (F (L ¬ (PRED A) ( (TERMS (TERM (CONST x))) ))) (OP ∧) (F (L (PRED B) ( (TERMS (TERM (CONST x))) )))))"
        );
        assert_eq!(
            p("¬(A(x) ∧ B(x))"),
            "(S ¬ (S (F ( (F (F (L (PRED A) ( (TERMS (TERM (CONST x))) ))) (OP ∧) (F (L (PRED B) ( (TERMS (TERM (CONST x))) )))) ))))"
        );
        assert_eq!(
            p("(¬A(x))"),
            "(S ( (S ¬ (S (F (L (PRED A) ( (TERMS (TERM (CONST x))) ))))) ))"
        );
        assert_eq!(
            p("x = y ∧ ¬x = y"),
            "(S (F (F (L (VAR x) = (VAR y))) (OP ∧) (F (L ¬ (VAR x) = (VAR y)))))"
        );
        assert_eq!(
            p("∀x ∃y (A(x,y))"),
            "(S (Q (QUANT ∀) (VAR x) (Q (QUANT ∃) (VAR y))) (F ( (F (L (PRED A) ( (TERMS (TERM (CONST x)) , (TERMS (TERM (CONST y)))) ))) )))"
        );
        assert_eq!(
            p("A(x) ∨ (B(x) ∧ C(x)) ∨ D(x)"),
            "(S (F (F (F (L (PRED A) ( (TERMS (TERM (CONST x))) ))) (OP ∨) (F ( (F (F (L (PRED B) ( (TERMS (TERM (CONST x))) ))) (OP ∧) (F (L (PRED C) ( (TERMS (TERM (CONST x))) )))) ))) (OP ∨) (F (L (PRED D) ( (TERMS (TERM (CONST x))) )))))"
        );
    }

    #[test]
    fn formulas_without_a_literal_fail_before_the_chart_as_the_chart_would() {
        // The chart, run anyway, agrees with the shortcut.
        for src in ["p ∧ q", "(p1 ∨ ¬p2) → p3", "¬(a ⊕ b)", "∀x (p)"] {
            assert_eq!(parse_paper(src), Err(PaperParseError::NoParse), "{src}");
            let words = msplit(&reorder_quantifiers(src));
            let (toks, sym_ids) = tokenize(&words).expect("tokens");
            let g = grammar(&sym_ids);
            let mut chart = Chart::new(&g, toks);
            chart.run();
            let full = chart.root().is_some();
            assert!(!full, "{src}");
        }
        assert!(parse_paper("x = y").is_ok());
    }

    #[test]
    fn refuses_what_the_paper_refuses() {
        assert_eq!(parse_paper("A(x) ∧ (B(x)"), Err(PaperParseError::NoParse));
        assert_eq!(parse_paper("p ∧ q"), Err(PaperParseError::NoParse));
        assert!(matches!(
            parse_paper("A(x) > B(x)"),
            Err(PaperParseError::NotCovered(_))
        ));
        let many: Vec<String> = (0..19).map(|i| format!("P{i}(a)")).collect();
        assert!(matches!(
            parse_paper(&many.join(" ∧ ")),
            Err(PaperParseError::TooManySymbols(20))
        ));
    }
}
