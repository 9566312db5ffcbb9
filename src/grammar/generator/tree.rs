//! Algorithm 1's two phases for one batch: the derivation tree grown level by level
//! (`n` nodes a level, `n` children kept a node), then each bucket's samples drawn
//! from its leaves.

use super::{
    BucketReport, Child, CountState, Expander, GenError, GenItem, GenParams, Leaf, MAX_BATCH_BYTES,
    NodeWalk, Progress, Roles, apply_choices, build_expression,
};
use crate::base::rng::Rng;
use crate::grammar::cfg::{Metric, Symbol};
use crate::grammar::vocab::Vocabulary;
use crate::syntax::Expr;
use std::collections::{BTreeMap, HashSet};

/// The expanded levels and their leaves.
pub(super) struct Tree {
    /// The sentential forms of each level's nodes (level 0: the start symbol).
    expanded: Vec<Vec<Vec<Symbol>>>,
    /// Every leaf's production choices, against its node.
    leaf_arena: Vec<u16>,
    leaves: Vec<Leaf>,
    /// Leaf indices by metric value.
    buckets: BTreeMap<u32, Vec<u32>>,
}

/// Children kept for the next level, their choices in one arena.
#[derive(Default)]
struct Pool {
    children: Vec<Child>,
    arena: Vec<u16>,
}

/// Growing the tree: what every node's expansion shares.
struct Growth<'a> {
    ex: &'a Expander<'a>,
    roles: &'a Roles,
    metric: Metric,
    tree: Tree,
    /// Reused production orders of the walk, one per nonterminal position.
    scratch: Vec<Vec<u16>>,
}

impl Tree {
    /// Leaves found at every level.
    pub(super) fn leaf_count(&self) -> usize {
        self.leaves.len()
    }

    /// Expands `depth` levels from the start symbol, reporting each level.
    pub(super) fn grow(
        ex: &Expander<'_>,
        roles: &Roles,
        metric: Metric,
        depth: usize,
        rng: &mut Rng,
        progress: &mut dyn FnMut(Progress),
    ) -> Tree {
        let mut g = Growth {
            ex,
            roles,
            metric,
            tree: Tree {
                expanded: vec![vec![vec![Symbol::Nt(ex.cfg.start)]]],
                leaf_arena: Vec::new(),
                leaves: Vec::new(),
                buckets: BTreeMap::new(),
            },
            scratch: Vec::new(),
        };
        // Level 0 holds only the start symbol; it is "expanded" at step 1.
        let mut pool = Pool {
            children: vec![Child {
                node: 0,
                off: 0,
                len: 0,
            }],
            arena: Vec::new(),
        };
        let mut pool_step = 0usize;
        for step in 1..=depth {
            if pool.children.is_empty() {
                break;
            }
            let picked = rng.sample_indices(pool.children.len(), ex.n);
            let nodes: Vec<Vec<Symbol>> = picked
                .iter()
                .map(|&ci| {
                    let c = pool.children[ci];
                    let parent = &g.tree.expanded[pool_step][c.node as usize];
                    let choices = &pool.arena[c.off as usize..(c.off + c.len) as usize];
                    // An over-long form stays as an empty node: never expanded, never drawn.
                    apply_choices(ex.cfg, parent, choices).unwrap_or_default()
                })
                .collect();
            let mut next = Pool::default();
            g.scratch = Vec::new();
            for (ni, form) in nodes.iter().enumerate() {
                if !form.is_empty() {
                    g.node(step, ni, form, &mut next, rng);
                }
            }
            g.tree.expanded.push(nodes);
            pool = next;
            pool_step = step;
            progress(Progress::Level(step));
        }
        g.tree
    }
}

impl Growth<'_> {
    /// Walks node `ni` of level `step`: its leaves go to the buckets, `n` of its
    /// children to `next`.
    fn node(&mut self, step: usize, ni: usize, form: &[Symbol], next: &mut Pool, rng: &mut Rng) {
        let mut nts = Vec::new();
        let mut segs = Vec::new();
        let mut seg_start = 0;
        for (i, s) in form.iter().enumerate() {
            if let Symbol::Nt(x) = s {
                segs.push(self.roles.summarize(&form[seg_start..i]));
                nts.push(*x);
                seg_start = i + 1;
            }
        }
        segs.push(self.roles.summarize(&form[seg_start..]));
        if self.scratch.len() < nts.len() {
            self.scratch.resize(nts.len(), Vec::new());
        }
        let mut child_arena = Vec::new();
        let mut w = NodeWalk {
            nts,
            segs,
            path: Vec::new(),
            leaves_found: 0,
            steps: 0,
            arena: &mut self.tree.leaf_arena,
            leaves: Vec::new(),
            children: Vec::new(),
            child_arena: &mut child_arena,
            scratch: std::mem::take(&mut self.scratch),
        };
        let st0 = CountState::default().apply(&w.segs[0]);
        self.ex.walk(&mut w, 0, st0, rng);
        self.scratch = std::mem::take(&mut w.scratch);
        let node_leaves = std::mem::take(&mut w.leaves);
        let node_children = std::mem::take(&mut w.children);
        drop(w);
        for (off, len, count) in node_leaves {
            let key = match self.metric {
                Metric::Operators => count,
                Metric::Depth => step as u32,
            };
            let t = &mut self.tree;
            t.buckets
                .entry(key)
                .or_default()
                .push(t.leaves.len() as u32);
            t.leaves.push(Leaf {
                step: step as u32,
                node: ni as u32,
                off,
                len,
            });
        }
        // Keep n of this node's children, as the original samples its nt_list.
        let kept = rng.sample_indices(node_children.len(), self.ex.n);
        for k in kept {
            let (off, len) = node_children[k];
            let new_off = next.arena.len() as u32;
            next.arena
                .extend_from_slice(&child_arena[off as usize..(off + len) as usize]);
            next.children.push(Child {
                node: ni as u32,
                off: new_off,
                len,
            });
        }
    }
}

/// The samples drawn so far, with what was refused.
pub(super) struct Drawn {
    /// Distinct samples, bucket by bucket.
    pub items: Vec<GenItem>,
    /// What each bucket gave.
    pub reports: Vec<BucketReport>,
    /// Draws over the size limits.
    pub oversized: usize,
    /// Formula text so far (bounded by [`MAX_BATCH_BYTES`]).
    bytes: usize,
    seen: HashSet<Expr>,
    seen_text: HashSet<String>,
}

/// One draw's outcome.
enum Draw {
    /// The bucket has no leaves.
    Empty,
    /// Over the limits or a duplicate: draw again.
    Miss,
    /// A new sample.
    Got,
}

/// What samples are drawn from: the grown tree, bound with the vocabulary.
pub(super) struct Source<'a> {
    pub ex: &'a Expander<'a>,
    pub params: &'a GenParams,
    pub tree: &'a Tree,
    pub vocab: &'a Vocabulary,
}

/// Draws `per_category` distinct samples from each bucket of the tree, reporting each
/// bucket.
pub(super) fn draw(
    src: &Source<'_>,
    rng: &mut Rng,
    progress: &mut dyn FnMut(Progress),
) -> Result<Drawn, GenError> {
    let params = src.params;
    let mut d = Drawn {
        items: Vec::new(),
        reports: Vec::new(),
        oversized: 0,
        bytes: 0,
        seen: HashSet::new(),
        seen_text: HashSet::new(),
    };
    for (&key, members) in &src.tree.buckets {
        let mut got = 0;
        for _ in 0..params.per_category {
            for _ in 0..params.max_tries.max(1) {
                match d.one(src, key, members, rng)? {
                    Draw::Empty => break,
                    Draw::Miss => {}
                    Draw::Got => {
                        got += 1;
                        break;
                    }
                }
            }
        }
        d.reports.push(BucketReport {
            bucket: key as usize,
            leaves: members.len(),
            wanted: params.per_category,
            got,
        });
        progress(Progress::Bucket(key as usize));
    }
    Ok(d)
}

impl Drawn {
    /// Draws one leaf of bucket `key` (leaf indices `members`) and binds it.
    fn one(
        &mut self,
        src: &Source<'_>,
        key: u32,
        members: &[u32],
        rng: &mut Rng,
    ) -> Result<Draw, GenError> {
        let Source {
            ex,
            params,
            tree,
            vocab,
        } = *src;
        let Some(&li) = rng.choose(members) else {
            return Ok(Draw::Empty);
        };
        let leaf = tree.leaves[li as usize];
        let node = &tree.expanded[leaf.step as usize][leaf.node as usize];
        let choices = &tree.leaf_arena[leaf.off as usize..(leaf.off + leaf.len) as usize];
        let Some(form) = apply_choices(ex.cfg, node, choices) else {
            self.oversized += 1;
            return Ok(Draw::Miss);
        };
        let Some((item, len)) = build_expression(
            ex.cfg,
            &form,
            vocab,
            &params.vocab,
            rng,
            leaf.step as usize,
            key as usize,
        )?
        else {
            self.oversized += 1;
            return Ok(Draw::Miss);
        };
        self.bytes += len;
        if self.bytes > MAX_BATCH_BYTES {
            return Err(GenError::TooLarge(format!(
                "one batch's samples passed {} of formula text; lower --per-category or --depth, or use more --batches",
                crate::base::fsread::human_bytes(MAX_BATCH_BYTES as u64)
            )));
        }
        let fresh = match &item.expr {
            Expr::Regex(_) => self.seen_text.insert(item.text.clone()),
            e => self.seen.insert(e.clone()),
        };
        if !fresh {
            return Ok(Draw::Miss);
        }
        self.items.push(item);
        Ok(Draw::Got)
    }
}
