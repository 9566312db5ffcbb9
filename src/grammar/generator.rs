//! Algorithm 1 of the paper: level-wise CFG expansion, bucketing, sampling, binding.
//!
//! Faithful to the original implementation's shape: a node is a sentential form;
//! expanding it walks its nonterminals left to right, trying productions in a
//! random order. A production that still contains a nonterminal makes a child
//! node (for the next level); a terminal-only one is substituted and the walk
//! continues to the next nonterminal, so every completed walk is a leaf. A node
//! yields at most `n` leaves; `n` of its children are kept, and the next level
//! expands `n` nodes sampled from all children of the level. Leaves are bucketed
//! by the metric; each bucket is sampled `per_category` times (with up to
//! `max_tries` redraws to avoid duplicates after vocabulary binding).
//!
//! Leaves are stored as production choices against their node, and only the
//! sampled ones are ever written out as text, which keeps memory and time low.

use super::cfg::{Cfg, Metric, Symbol, TermClass};
use super::vocab::{VocabParams, Vocabulary};

mod tree;
use crate::base::rng::Rng;
use crate::syntax::lexer::{Tok, lex};
use crate::syntax::{Expr, Formula, SyntaxKind, Term, parse_formula, parse_regex};

/// Generator parameters (defaults: the paper's Table 1).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct GenParams {
    /// Number of levels (the paper's depth, 40).
    pub depth: usize,
    /// Branching factor n (200).
    pub branching: usize,
    /// Samples per bucket (50).
    pub per_category: usize,
    /// Redraws per sample when a draw duplicates an earlier one (100, as the original).
    pub max_tries: usize,
    /// Bucketing metric; `None` uses the grammar's.
    pub metric: Option<Metric>,
    /// Vocabulary parameters.
    pub vocab: VocabParams,
}

impl Default for GenParams {
    fn default() -> Self {
        GenParams {
            depth: 40,
            branching: 200,
            per_category: 50,
            max_tries: 100,
            metric: None,
            vocab: VocabParams::default(),
        }
    }
}

/// Generation errors.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// A parameter is out of range.
    #[error("{0}")]
    Param(String),
    /// Vocabulary problem.
    #[error(transparent)]
    Vocab(#[from] super::vocab::VocabError),
    /// The grammar uses a terminal class its syntax cannot bind.
    #[error("the grammar uses {0} but is declared '@syntax {1}': {2}")]
    ClassMismatch(&'static str, &'static str, &'static str),
    /// Generation would exceed a size bound.
    #[error("{0}")]
    TooLarge(String),
    /// The grammar produced text that does not parse.
    #[error(
        "the grammar produced text the {syntax} parser rejects: {text:?} ({error}); check the grammar's literal tokens"
    )]
    Unparseable {
        /// Which parser (the text is shortened for the message).
        syntax: &'static str,
        /// The produced text.
        text: String,
        /// The parse error.
        error: String,
    },
}

/// One generated expression.
#[derive(Clone, Debug)]
pub struct GenItem {
    /// The parsed expression.
    pub expr: Expr,
    /// Text as generated (the original's form for regexes).
    pub text: String,
    /// The level at which the leaf was found (the original's `depth`).
    pub level: usize,
    /// The bucket (metric value).
    pub bucket: usize,
    /// Occurrences of `$var` and `$prop` tokens (the original's `num_propositions`).
    pub vocab_tokens: usize,
}

/// How full one bucket got.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BucketReport {
    /// Metric value.
    pub bucket: usize,
    /// Distinct CFG leaves available in the bucket.
    pub leaves: usize,
    /// Samples requested.
    pub wanted: usize,
    /// Samples obtained.
    pub got: usize,
}

/// The result of one batch.
#[derive(Clone, Debug)]
pub struct Batch {
    /// Items, bucket by bucket.
    pub items: Vec<GenItem>,
    /// Per-bucket fill.
    pub buckets: Vec<BucketReport>,
    /// The vocabulary drawn for this batch.
    pub vocab: Vocabulary,
    /// Metric used.
    pub metric: Metric,
    /// Total leaves collected.
    pub total_leaves: usize,
    /// Draws skipped because their form or text was over [`MAX_FORM`] or
    /// [`MAX_SAMPLE_BYTES`].
    pub oversized: usize,
}

/// Most symbols in a sentential form: longer nodes are not expanded and longer leaves
/// are not drawn (a recursive grammar's forms otherwise grow without bound).
pub const MAX_FORM: usize = 4096;
/// Most bytes of one sample's formula text; longer draws are skipped.
pub const MAX_SAMPLE_BYTES: usize = 64 << 10;
/// Most bytes of formula text one batch holds in memory.
pub(crate) const MAX_BATCH_BYTES: usize = 64 << 20;

/// Progress events for long generations.
#[derive(Clone, Copy, Debug)]
pub enum Progress {
    /// Finished expanding a level.
    Level(usize),
    /// Finished sampling a bucket.
    Bucket(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LitRole {
    Plain,
    Not,
    Op,
}

/// How a run of terminals changes the operator count: `base` plus one if a
/// pending `not` before it is not followed by a vocabulary class.
#[derive(Clone, Copy, Debug, Default)]
struct Summary {
    base: u32,
    first_class: bool,
    last_not: bool,
    empty: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct CountState {
    count: u32,
    pending_not: bool,
}

impl CountState {
    fn apply(self, s: &Summary) -> CountState {
        if s.empty {
            return self;
        }
        CountState {
            count: self.count + s.base + u32::from(self.pending_not && !s.first_class),
            pending_not: s.last_not,
        }
    }
    fn finish(self) -> u32 {
        self.count + u32::from(self.pending_not)
    }
}

struct Roles {
    lit: Vec<LitRole>,
}

impl Roles {
    fn new(cfg: &Cfg) -> Roles {
        let lit = cfg
            .literals
            .iter()
            .map(|l| match cfg.syntax {
                SyntaxKind::Regex => match l.as_str() {
                    "*" | "+" | "?" | "|" => LitRole::Op,
                    _ => LitRole::Plain,
                },
                _ => match lex(l).as_deref() {
                    Ok([t]) => match t.tok {
                        Tok::Not => LitRole::Not,
                        Tok::And | Tok::Or | Tok::Implies | Tok::Iff | Tok::Xor => LitRole::Op,
                        _ => LitRole::Plain,
                    },
                    _ => LitRole::Plain,
                },
            })
            .collect();
        Roles { lit }
    }

    fn summarize(&self, syms: &[Symbol]) -> Summary {
        let mut s = Summary {
            empty: syms.is_empty(),
            first_class: matches!(syms.first(), Some(Symbol::Class(_))),
            ..Default::default()
        };
        let mut pending = false;
        for sym in syms {
            let is_class = matches!(sym, Symbol::Class(_));
            if pending && !is_class {
                s.base += 1;
            }
            pending = false;
            if let Symbol::Lit(id) = sym {
                match self.lit[*id as usize] {
                    LitRole::Not => pending = true,
                    LitRole::Op => s.base += 1,
                    LitRole::Plain => {}
                }
            }
        }
        s.last_not = pending;
        s
    }
}

/// A leaf: production choices (in the arena) applied to an expanded node.
#[derive(Clone, Copy)]
struct Leaf {
    step: u32,
    node: u32,
    off: u32,
    len: u32,
}

/// A child waiting to be sampled for the next level.
#[derive(Clone, Copy)]
struct Child {
    node: u32,
    off: u32,
    len: u32,
}

struct Expander<'a> {
    cfg: &'a Cfg,
    prod_summary: Vec<Summary>,
    prod_has_nt: Vec<bool>,
    n: usize,
    budget: usize,
}

struct NodeWalk<'a> {
    nts: Vec<u16>,
    segs: Vec<Summary>,
    path: Vec<u16>,
    leaves_found: usize,
    steps: usize,
    arena: &'a mut Vec<u16>,
    leaves: Vec<(u32, u32, u32)>, // (off, len, metric)
    children: Vec<(u32, u32)>,
    child_arena: &'a mut Vec<u16>,
    scratch: Vec<Vec<u16>>,
}

impl Expander<'_> {
    fn walk(&self, w: &mut NodeWalk, i: usize, st: CountState, rng: &mut Rng) {
        if w.leaves_found >= self.n || w.steps >= self.budget {
            return;
        }
        w.steps += 1;
        if i == w.nts.len() {
            let off = w.arena.len() as u32;
            w.arena.extend_from_slice(&w.path);
            w.leaves.push((off, w.path.len() as u32, st.finish()));
            w.leaves_found += 1;
            return;
        }
        let prods = &self.cfg.by_lhs[w.nts[i] as usize];
        let mut order = std::mem::take(&mut w.scratch[i]);
        order.clear();
        order.extend(prods.iter().map(|p| *p as u16));
        rng.shuffle(&mut order);
        for &p in &order {
            if self.prod_has_nt[p as usize] {
                let off = w.child_arena.len() as u32;
                w.child_arena.extend_from_slice(&w.path);
                w.child_arena.push(p);
                w.children.push((off, w.path.len() as u32 + 1));
            } else {
                w.path.push(p);
                let next = st
                    .apply(&self.prod_summary[p as usize])
                    .apply(&w.segs[i + 1]);
                self.walk(w, i + 1, next, rng);
                w.path.pop();
                if w.leaves_found >= self.n || w.steps >= self.budget {
                    break;
                }
            }
        }
        w.scratch[i] = order;
    }
}

/// Replaces the first `choices.len()` nonterminals of `form` by the chosen productions;
/// None when the result would be longer than [`MAX_FORM`].
fn apply_choices(cfg: &Cfg, form: &[Symbol], choices: &[u16]) -> Option<Vec<Symbol>> {
    let mut out = Vec::with_capacity(form.len().min(MAX_FORM) + 8);
    let mut it = choices.iter();
    let mut done = false;
    for s in form {
        match s {
            Symbol::Nt(_) if !done => {
                if let Some(p) = it.next() {
                    out.extend_from_slice(&cfg.productions[*p as usize].rhs);
                } else {
                    done = true;
                    out.push(*s);
                }
            }
            other => out.push(*other),
        }
        if out.len() > MAX_FORM {
            return None;
        }
    }
    Some(out)
}

/// Checks parameters and the grammar's use of vocabulary classes.
fn validate(cfg: &Cfg, p: &GenParams) -> Result<(), GenError> {
    if p.depth == 0 {
        return Err(GenError::Param("--depth must be at least 1".into()));
    }
    if p.branching == 0 {
        return Err(GenError::Param("--branching must be at least 1".into()));
    }
    if p.per_category == 0 {
        return Err(GenError::Param("--per-category must be at least 1".into()));
    }
    if p.depth > 10_000 {
        return Err(GenError::Param(
            "--depth above 10000 is not supported".into(),
        ));
    }
    let regex = cfg.syntax == SyntaxKind::Regex;
    if regex {
        for c in [TermClass::Prop, TermClass::Atom, TermClass::Var] {
            if cfg.uses(c) {
                return Err(GenError::ClassMismatch(
                    c.token(),
                    "regex",
                    "regex grammars bind only $sym",
                ));
            }
        }
    } else if cfg.uses(TermClass::Sym) {
        return Err(GenError::ClassMismatch(
            "$sym",
            "logic",
            "use $prop or $atom, or declare '@syntax regex'",
        ));
    }
    if cfg.uses(TermClass::Prop) && p.vocab.num_propositions == 0 {
        return Err(GenError::Param(
            "--num-propositions must be at least 1".into(),
        ));
    }
    if cfg.uses(TermClass::Atom) && (p.vocab.num_objects == 0 || p.vocab.num_predicates == 0) {
        return Err(GenError::Param(
            "--num-objects and --num-predicates must be at least 1".into(),
        ));
    }
    if cfg.uses(TermClass::Sym) && p.vocab.alphabet_size == 0 {
        return Err(GenError::Param("--alphabet-size must be at least 1".into()));
    }
    Ok(())
}

/// Runs Algorithm 1 for one batch with its own RNG stream.
pub fn generate_batch(
    cfg: &Cfg,
    params: &GenParams,
    seed: u64,
    batch: u64,
    progress: &mut dyn FnMut(Progress),
) -> Result<Batch, GenError> {
    validate(cfg, params)?;
    let mut rng = Rng::stream(seed, batch);
    let vocab = Vocabulary::build(&params.vocab, &mut rng)?;
    let metric = params.metric.unwrap_or(cfg.metric);
    let roles = Roles::new(cfg);
    let n = params.branching;
    let ex = Expander {
        cfg,
        prod_summary: cfg
            .productions
            .iter()
            .map(|p| roles.summarize(&p.rhs))
            .collect(),
        prod_has_nt: cfg
            .productions
            .iter()
            .map(super::cfg::Production::has_nonterminal)
            .collect(),
        n,
        // Bounds the walk of a node whose nonterminals cannot all be finished.
        budget: 64 * n + 4096,
    };

    let tree = tree::Tree::grow(&ex, &roles, metric, params.depth, &mut rng, progress);
    let src = tree::Source {
        ex: &ex,
        params,
        tree: &tree,
        vocab: &vocab,
    };
    let drawn = tree::draw(&src, &mut rng, progress)?;
    if drawn.items.is_empty() && drawn.oversized > 0 {
        return Err(GenError::TooLarge(format!(
            "every draw was over the limits ({MAX_FORM} symbols per sentential form, {} per sample); \
             the grammar's recursion or literals make formulas too long: lower --depth or shorten the literals",
            crate::base::fsread::human_bytes(MAX_SAMPLE_BYTES as u64)
        )));
    }
    Ok(Batch {
        items: drawn.items,
        buckets: drawn.reports,
        vocab,
        metric,
        total_leaves: tree.leaf_count(),
        oversized: drawn.oversized,
    })
}

const ATOM_PLACEHOLDER: &str = "_atom_";

/// Binds the vocabulary to a terminal form and parses the result.
fn build_expression(
    cfg: &Cfg,
    form: &[Symbol],
    vocab: &Vocabulary,
    vp: &VocabParams,
    rng: &mut Rng,
    level: usize,
    bucket: usize,
) -> Result<Option<(GenItem, usize)>, GenError> {
    let regex = cfg.syntax == SyntaxKind::Regex;
    let mut text = String::with_capacity(form.len() * 4);
    let mut next_var = 1;
    let mut vocab_tokens = 0;
    for s in form {
        if !regex && !text.is_empty() {
            text.push(' ');
        }
        match s {
            Symbol::Lit(id) => text.push_str(cfg.literal(*id)),
            Symbol::Class(TermClass::Prop) => {
                vocab_tokens += 1;
                if let Some(p) = rng.choose(&vocab.propositions) {
                    text.push_str(p);
                }
            }
            Symbol::Class(TermClass::Var) => {
                vocab_tokens += 1;
                text.push('x');
                text.push_str(&next_var.to_string());
                next_var += 1;
            }
            Symbol::Class(TermClass::Atom) => text.push_str(ATOM_PLACEHOLDER),
            Symbol::Class(TermClass::Sym) => {
                if let Some(c) = rng.choose(&vocab.alphabet) {
                    text.push(*c);
                }
            }
            Symbol::Nt(_) => {}
        }
        if text.len() > MAX_SAMPLE_BYTES {
            return Ok(None);
        }
    }
    let len = text.len();
    let shown = || {
        crate::base::sanitize::one_line(&text.chars().take(200).collect::<String>()).into_owned()
    };
    let expr = if regex {
        Expr::Regex(parse_regex(&text).map_err(|e| GenError::Unparseable {
            syntax: "regex",
            text: shown(),
            error: e.to_string(),
        })?)
    } else {
        let f = parse_formula(&text).map_err(|e| GenError::Unparseable {
            syntax: "logic",
            text: shown(),
            error: e.to_string(),
        })?;
        let mut scope = Vec::new();
        Expr::Logic(bind_atoms(f, vocab, vp.free_variable_prob, &mut scope, rng))
    };
    if !regex {
        text = String::new();
    }
    Ok(Some((
        GenItem {
            expr,
            text,
            level,
            bucket,
            vocab_tokens,
        },
        len,
    )))
}

/// Replaces atom placeholders by predicates over objects, each argument becoming
/// an in-scope variable with probability `p` (the original's substitution).
fn bind_atoms(
    f: Formula,
    vocab: &Vocabulary,
    p: f64,
    scope: &mut Vec<crate::syntax::logic::Name>,
    rng: &mut Rng,
) -> Formula {
    match f {
        Formula::Prop(name) if name == ATOM_PLACEHOLDER => {
            let Some((pred, arity)) = rng.choose(&vocab.predicates).cloned() else {
                return Formula::Prop(name);
            };
            let args = (0..arity)
                .map(|_| {
                    let obj = rng.choose(&vocab.objects).cloned().unwrap_or_default();
                    if !scope.is_empty() && rng.chance(p) {
                        let v = scope[rng.below(scope.len())].clone();
                        Term::Var(v)
                    } else {
                        Term::Const(obj.into())
                    }
                })
                .collect();
            Formula::Pred(pred.into(), args)
        }
        Formula::Not(a) => Formula::negate(bind_atoms(*a, vocab, p, scope, rng)),
        Formula::Bin(op, a, b) => {
            let a = bind_atoms(*a, vocab, p, scope, rng);
            let b = bind_atoms(*b, vocab, p, scope, rng);
            Formula::bin(op, a, b)
        }
        Formula::Quant(q, v, body) => {
            scope.push(v.clone());
            let body = bind_atoms(*body, vocab, p, scope, rng);
            scope.pop();
            Formula::Quant(q, v, Box::new(body))
        }
        other => other,
    }
}
