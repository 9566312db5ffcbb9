//! The draws every path shares, pinned.

use super::*;
use proptest::prelude::*;

const NAMES: [&str; 4] = ["a", "b", "x1", "P"];

fn pool(props: &[u8], preds: &[(u8, usize)]) -> Pool {
    let name = |n: &u8| NAMES[usize::from(*n) % NAMES.len()].to_string();
    Pool {
        props: props.iter().map(name).collect(),
        preds: preds.iter().map(|(n, k)| (name(n), *k)).collect(),
        consts: Vec::new(),
        free: Vec::new(),
        operands: Vec::new(),
        sizes: Vec::new(),
    }
}

/// The draw as first written (maps filled in place, a number below the size by
/// [`Rand::below`]), kept to pin the draw order every path shares.
fn first_written(i: usize, pool: &Pool, names: &[String], rng: &mut Rand) -> Model {
    let size: usize = [1, 2, 3, 2, 3, 4][i % 6];
    let density = [1u64, 3, 4, 5, 7][i % 5];
    let coin = |r: &mut Rand| r.next() % 8 < density;
    let mut m = Model {
        size,
        props: BTreeMap::new(),
        preds: BTreeMap::new(),
        names: BTreeMap::new(),
    };
    for p in &pool.props {
        m.props.insert(p.clone(), coin(rng));
    }
    for (p, k) in &pool.preds {
        for arity in k.saturating_sub(1)..=k + 1 {
            let n = size.pow(arity as u32).min(MAX_TUPLES);
            let ext: Vec<bool> = (0..n).map(|_| coin(rng)).collect();
            let e = m.preds.entry(p.clone()).or_default();
            if !e.iter().any(|(a, _)| *a == arity) {
                e.push((arity, ext));
            }
        }
    }
    for c in names {
        m.names.insert(c.clone(), rng.below(size));
    }
    m
}

/// The constant names picked by `names`.
fn named(names: &[u8]) -> Vec<String> {
    names
        .iter()
        .map(|n| NAMES[usize::from(*n)].to_string())
        .collect()
}

proptest! {
    /// Random models are drawn as first written: the same values, the same
    /// random numbers consumed.
    #[test]
    fn the_draw_order_is_the_first_written(
        props in proptest::collection::vec(0u8..4, 0..4),
        preds in proptest::collection::vec((0u8..4, 0usize..5), 0..5),
        names in proptest::collection::vec(0u8..4, 0..4),
        i in 0usize..64,
        seed in any::<u64>(),
    ) {
        let pool = pool(&props, &preds);
        let names = named(&names);
        let (mut r1, mut r2) = (Rand::new(seed), Rand::new(seed));
        let (m, f) = (
            random_model(i, &pool, &names, &mut r1),
            first_written(i, &pool, &names, &mut r2),
        );
        prop_assert_eq!(m.size, f.size);
        prop_assert_eq!(m.props, f.props);
        prop_assert_eq!(m.preds, f.preds);
        prop_assert_eq!(m.names, f.names);
        prop_assert_eq!(r1.next(), r2.next());
    }

    /// A model drawn into a reused buffer is the one drawn as maps (the same
    /// values for every symbol, the same random numbers consumed), whatever the
    /// buffer held, with names and (name, arity) pairs listed twice.
    #[test]
    fn a_draw_into_arrays_is_the_draw_as_maps(
        props in proptest::collection::vec(0u8..4, 0..4),
        preds in proptest::collection::vec((0u8..4, 0usize..4), 0..5),
        names in proptest::collection::vec(0u8..4, 0..4),
        i in 0usize..64,
        before in 0usize..64,
        seed in any::<u64>(),
    ) {
        let pool = pool(&props, &preds);
        let names = named(&names);
        let syms = Symbols::from_pool(&pool, &names);
        let layout = syms.layout(&pool, &names);
        let mut buf = Dense::default();
        layout.draw(before, &mut Rand::new(seed ^ 1), &mut buf);
        let (mut r1, mut r2) = (Rand::new(seed), Rand::new(seed));
        layout.draw(i, &mut r1, &mut buf);
        let maps = random_model(i, &pool, &names, &mut r2);
        prop_assert_eq!(&buf, &syms.dense(&maps));
        prop_assert_eq!(r1.next(), r2.next());
    }

    /// A draw keeping only the tables a formula reads keeps them as drawn whole,
    /// consumes the same random numbers, and gives the formula the same value.
    #[test]
    fn a_draw_of_the_tables_read_is_the_whole_draw_there(
        preds in proptest::collection::vec((0u8..4, 0usize..4), 1..5),
        atoms in proptest::collection::vec((0usize..5, 0usize..3), 1..4),
        i in 0usize..64,
        seed in any::<u64>(),
    ) {
        use crate::syntax::BinOp;
        let pool = pool(&[], &preds);
        let names = vec!["a".to_string()];
        // Atoms at the pool's arity, one less or one more (as an edit may give).
        let atoms: Vec<Formula> = atoms
            .iter()
            .map(|(j, d)| {
                let (p, k) = &pool.preds[j % pool.preds.len()];
                let arity = (k + d).saturating_sub(1);
                Formula::Pred(p.as_str().into(), vec![Term::Const("a".into()); arity])
            })
            .collect();
        let f = atoms
            .into_iter()
            .reduce(|x, y| Formula::Bin(BinOp::Xor, Box::new(x), Box::new(y)))
            .unwrap_or(Formula::Bool(true));
        let syms = Symbols::from_pool(&pool, &names);
        let prog = syms.compile(&f, &[]);
        let layout = syms.layout(&pool, &names);
        let reading = layout.reading(&[&prog]);
        let (mut whole, mut part) = (Dense::default(), Dense::default());
        let (mut r1, mut r2) = (Rand::new(seed), Rand::new(seed));
        layout.draw(i, &mut r1, &mut whole);
        reading.draw(i, &mut r2, &mut part);
        prop_assert_eq!(r1.next(), r2.next());
        for t in prog.tables() {
            prop_assert_eq!(whole.table(t), part.table(t));
        }
        let mut env = Vec::new();
        prop_assert_eq!(prog.eval(&whole, &mut env), prog.eval(&part, &mut env));
        prop_assert_eq!(prog.eval(&whole, &mut env), maps_value(&f, i, &pool, &names, seed));
    }
}

/// `f` on random model `i` drawn as maps, by name.
fn maps_value(f: &Formula, i: usize, pool: &Pool, names: &[String], seed: u64) -> bool {
    random_model(i, pool, names, &mut Rand::new(seed)).eval(f, &mut Vec::new())
}
