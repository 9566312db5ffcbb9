//! Cheap content hashes for the row index: of the indexed prefix of `samples.jsonl`
//! (kept incrementally, so an append hashes only the new bytes) and of each stored
//! text. They catch edits and damage, not adversaries.

use std::path::Path;

const K: u64 = 0x9E37_79B9_7F4A_7C15;

fn mix(h: u64, w: u64) -> u64 {
    let h = (h ^ w).wrapping_mul(K);
    h ^ (h >> 29)
}

fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(w)
}

/// Hash of a stored text.
pub(crate) fn text_sum(b: &[u8]) -> u32 {
    let mut it = b.chunks_exact(8);
    let mut h = mix(0, b.len() as u64);
    for c in &mut it {
        h = mix(h, word(c));
    }
    h = mix(h, word(it.remainder()));
    (h ^ (h >> 32)) as u32
}

/// [`text_sum`] of each text, several hash chains interleaved: each chain waits on
/// its multiplications, so eight at once keep the core busy (a search checks every
/// text it reads the first time).
pub(crate) fn text_sums(texts: &[&[u8]]) -> Vec<u32> {
    const LANES: usize = 8;
    let mut out = vec![0u32; texts.len()];
    if texts.len() < LANES {
        for (o, t) in out.iter_mut().zip(texts) {
            *o = text_sum(t);
        }
        return out;
    }
    // Per lane: which text, how far, the hash so far.
    let mut text = [0usize; LANES];
    let mut pos = [0usize; LANES];
    let mut h = [0u64; LANES];
    for l in 0..LANES {
        text[l] = l;
        h[l] = mix(0, texts[l].len() as u64);
    }
    let mut next = LANES;
    loop {
        // Whole words every lane still has: a branch-free stretch.
        let steps = (0..LANES)
            .map(|l| (texts[text[l]].len() - pos[l]) / 8)
            .min()
            .unwrap_or(0);
        for _ in 0..steps {
            for l in 0..LANES {
                h[l] = mix(h[l], word(&texts[text[l]][pos[l]..pos[l] + 8]));
                pos[l] += 8;
            }
        }
        // Lanes at their last partial word finish; the next texts take their place.
        let mut ended = false;
        for l in 0..LANES {
            let b = texts[text[l]];
            if b.len() - pos[l] < 8 {
                let f = mix(h[l], word(&b[pos[l]..]));
                out[text[l]] = (f ^ (f >> 32)) as u32;
                if next < texts.len() {
                    text[l] = next;
                    pos[l] = 0;
                    h[l] = mix(0, texts[next].len() as u64);
                    next += 1;
                } else {
                    ended = true;
                    text[l] = usize::MAX;
                }
            }
        }
        if ended {
            break;
        }
    }
    // No texts left to start: the lanes still going finish one by one.
    for l in 0..LANES {
        if let Some(b) = texts.get(text[l]) {
            let mut it = b[pos[l]..].chunks_exact(8);
            let mut f = h[l];
            for c in &mut it {
                f = mix(f, word(c));
            }
            f = mix(f, word(it.remainder()));
            out[text[l]] = (f ^ (f >> 32)) as u32;
        }
    }
    out
}

/// A running hash of a file's first `end` bytes (`end` a multiple of 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prefix {
    /// The 8-byte words folded in so far.
    pub h: u64,
    /// Bytes covered.
    pub end: u64,
}

impl Prefix {
    /// Folds in the words of `path` up to `upto` (reading only the bytes after
    /// `self.end`); returns the advanced state and the hash of exactly `[0, upto)`.
    pub fn extend(self, path: &Path, upto: u64) -> Option<(Prefix, u64)> {
        use std::os::unix::fs::FileExt;
        if upto < self.end {
            return None;
        }
        let f = crate::base::fsread::open(path, crate::base::fsread::STREAM).ok()?;
        let mut st = self;
        let mut buf = vec![0u8; 1 << 20];
        let mut tail = 0u64;
        while st.end < upto {
            let n = (upto - st.end).min(buf.len() as u64) as usize;
            f.read_exact_at(&mut buf[..n], st.end).ok()?;
            let mut it = buf[..n].chunks_exact(8);
            for c in &mut it {
                st.h = mix(st.h, word(c));
            }
            st.end += (n - it.remainder().len()) as u64;
            if !it.remainder().is_empty() {
                // Only at the very end: a partial word is hashed, not folded in.
                tail = word(it.remainder());
                break;
            }
        }
        Some((st, mix(mix(st.h, tail), upto)))
    }
}

/// A [`Prefix`] advanced over a file's bytes as a reader passes them (its last
/// partial word held until the next bytes complete it), so a first read hashes the
/// file as it parses it instead of reading it again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Running {
    /// The whole words folded in.
    pub st: Prefix,
    carry: [u8; 8],
    n: usize,
}

impl Running {
    /// Continues `st` from byte `at` of `path` (the words up to there folded in now).
    pub(crate) fn at(st: Prefix, path: &Path, at: u64) -> Option<Running> {
        use std::os::unix::fs::FileExt;
        let (st, _) = st.extend(path, at)?;
        let mut carry = [0u8; 8];
        let n = (at - st.end) as usize;
        if n > 0 {
            let f = crate::base::fsread::open(path, crate::base::fsread::STREAM).ok()?;
            f.read_exact_at(&mut carry[..n], st.end).ok()?;
        }
        Some(Running { st, carry, n })
    }

    /// Folds in the next bytes of the file.
    pub(crate) fn feed(&mut self, mut b: &[u8]) {
        if self.n > 0 {
            let k = (8 - self.n).min(b.len());
            self.carry[self.n..self.n + k].copy_from_slice(&b[..k]);
            self.n += k;
            b = &b[k..];
            if self.n < 8 {
                return;
            }
            self.st.h = mix(self.st.h, u64::from_le_bytes(self.carry));
            self.st.end += 8;
            self.n = 0;
        }
        let mut it = b.chunks_exact(8);
        let mut h = self.st.h;
        for c in &mut it {
            h = mix(h, word(c));
        }
        self.st.h = h;
        self.st.end += (b.len() - it.remainder().len()) as u64;
        let r = it.remainder();
        self.carry[..r.len()].copy_from_slice(r);
        self.n = r.len();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn interleaved_text_sums_equal_one_at_a_time() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 31 % 253) as u8).collect();
        // Lengths around word boundaries, empty ones, and more texts than lanes.
        let texts: Vec<&[u8]> = (0..60)
            .map(|i| &data[i * 7..i * 7 + (i * 13) % 90])
            .collect();
        for n in [0, 1, 3, 8, 9, 60] {
            let want: Vec<u32> = texts[..n].iter().map(|t| text_sum(t)).collect();
            assert_eq!(text_sums(&texts[..n]), want, "{n} texts");
        }
    }

    #[test]
    fn an_extended_prefix_hash_equals_one_computed_at_once_and_sees_every_byte() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("x");
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&f, &data).unwrap();
        let (_, whole) = Prefix::default().extend(&f, 2_999_995).unwrap();
        let (st, part) = Prefix::default().extend(&f, 1_000_003).unwrap();
        let (_, again) = st.extend(&f, 2_999_995).unwrap();
        assert_eq!(whole, again);
        assert_ne!(part, whole);
        let mut edited = data.clone();
        edited[17] ^= 1;
        std::fs::write(&f, &edited).unwrap();
        assert_ne!(Prefix::default().extend(&f, 2_999_995).unwrap().1, whole);
        assert_ne!(text_sum(b"abc"), text_sum(b"abd"));
        assert_ne!(text_sum(b""), text_sum(b"\0"));
    }

    /// Fed in pieces of any size from any start, the running hash is the one read at
    /// once from the file.
    #[test]
    fn a_running_hash_equals_the_prefix_read_from_the_file() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("x");
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 13 % 251) as u8).collect();
        std::fs::write(&f, &data).unwrap();
        for (start, piece) in [(0, 1), (0, 7), (3, 5), (13, 8), (800, 13), (9_999, 4096)] {
            let (st, _) = Prefix::default().extend(&f, start as u64).unwrap();
            let mut run = Running::at(st, &f, start as u64).unwrap();
            for c in data[start..].chunks(piece) {
                run.feed(c);
            }
            let (want, sum) = Prefix::default().extend(&f, data.len() as u64).unwrap();
            assert_eq!(run.st, want, "from {start} by {piece}");
            assert_eq!(run.st.extend(&f, data.len() as u64).unwrap().1, sum);
        }
    }
}
