//! Skipping ahead in the screen's random stream without drawing each number: the
//! generator's state update (xorshift64) is linear over GF(2), so `n` steps are one
//! 64×64 bit matrix Mⁿ, applied as the product of the M^(2^j) for the bits set in `n`.

use crate::analysis::proof::screen::Rand;
use std::sync::OnceLock;

/// Fewer steps than this are taken one by one (cheaper than a few matrices).
const STEP_BELOW: usize = 16;
/// Powers M^(2^j) kept (j below this).
const POWERS: usize = 32;

/// A matrix as nibble tables: row `k`, entry `v` is the image of a state whose
/// nibble `k` holds `v` and the rest zero.
type Table = [[u64; 16]; 16];

/// The generator's state update ([`Rand::next`] without its output multiply).
fn step(mut x: u64) -> u64 {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    x
}

/// The image of `x` under the matrix with these columns (images of each bit).
fn by_columns(cols: &[u64; 64], x: u64) -> u64 {
    cols.iter()
        .enumerate()
        .filter(|(b, _)| x >> b & 1 == 1)
        .fold(0, |r, (_, c)| r ^ c)
}

/// M^(2^j) for j below [`POWERS`], made once per process.
fn powers() -> &'static [Table] {
    static P: OnceLock<Vec<Table>> = OnceLock::new();
    P.get_or_init(|| {
        let mut cols: [u64; 64] = std::array::from_fn(|b| step(1 << b));
        let mut out = Vec::with_capacity(POWERS);
        for _ in 0..POWERS {
            out.push(std::array::from_fn(|k| {
                std::array::from_fn(|v| {
                    (0..4)
                        .filter(|i| v >> i & 1 == 1)
                        .fold(0, |r, i| r ^ cols[4 * k + i])
                })
            }));
            // Squared: M^(2^(j+1)) = M^(2^j)·M^(2^j).
            cols = cols.map(|c| by_columns(&cols, c));
        }
        out
    })
}

fn apply(t: &Table, x: u64) -> u64 {
    t.iter()
        .enumerate()
        .fold(0, |r, (k, row)| r ^ row[(x >> (4 * k)) as usize & 15])
}

/// `rng` advanced past `n` numbers, as `n` calls of [`Rand::next`] would leave it.
pub(super) fn skip(rng: &mut Rand, n: usize) {
    if n < STEP_BELOW {
        for _ in 0..n {
            rng.next();
        }
        return;
    }
    let p = powers();
    let mut x = rng.0;
    let mut n = n as u64;
    if let Some(top) = p.last() {
        // Beyond the powers kept (never met in practice): the largest, repeatedly.
        while n >> POWERS != 0 {
            x = apply(top, x);
            n -= 1 << (POWERS - 1);
        }
    }
    while n != 0 {
        if let Some(t) = p.get(n.trailing_zeros() as usize) {
            x = apply(t, x);
        }
        n &= n - 1;
    }
    rng.0 = x;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Skipping `n` leaves the generator where `n` draws would.
        #[test]
        fn a_skip_is_that_many_draws(seed in any::<u64>(), n in 0usize..20_000) {
            let (mut a, mut b) = (Rand::new(seed), Rand::new(seed));
            skip(&mut a, n);
            for _ in 0..n {
                b.next();
            }
            prop_assert_eq!(a.next(), b.next());
        }
    }

    #[test]
    fn skips_past_the_powers_kept_are_draws_too() {
        let n = (1usize << POWERS) + 12_345;
        let mut a = Rand::new(7);
        skip(&mut a, n);
        // Mⁿ by the bits of n over the 64 powers, made directly here.
        let mut cols: [u64; 64] = std::array::from_fn(|b| step(1 << b));
        let mut x = 7u64;
        for j in 0..64 {
            if n >> j & 1 == 1 {
                x = by_columns(&cols, x);
            }
            cols = cols.map(|c| by_columns(&cols, c));
        }
        assert_eq!(a.0, x);
    }
}
