#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::*;

fn run_dir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("run.json"), "{}").unwrap();
    d
}

/// What is saved reads back; a damaged cache or one of another version is ignored,
/// never half read; saving merges what another process saved meanwhile.
#[test]
fn the_kinds_cache_reads_back_and_ignores_damage_and_other_versions() {
    let d = run_dir();
    let mut c = KindsCache::default();
    for k in 1..=1000u64 {
        c.insert(k * 7919, (k as u32) & 0xFF);
    }
    assert_eq!(c.save(d.path()).unwrap(), Some(d.path().join(KINDS)));
    // Nothing new: nothing written.
    assert_eq!(c.save(d.path()).unwrap(), None);
    let back = KindsCache::load(d.path());
    assert_eq!(back.len(), 1000);
    assert_eq!(back.get(7919 * 5), Some(5));
    // Another process adds one; this one adds another: both survive.
    let mut other = KindsCache::load(d.path());
    other.insert(1, 1);
    other.save(d.path()).unwrap();
    let mut mine = back;
    mine.insert(2, 2);
    mine.save(d.path()).unwrap();
    let merged = KindsCache::load(d.path());
    assert_eq!(
        (merged.get(1), merged.get(2), merged.len()),
        (Some(1), Some(2), 1002)
    );
    let bytes = std::fs::read(d.path().join(KINDS)).unwrap();
    for (at, what) in [
        (30, "an entry"),
        (20, "the count"),
        (bytes.len() - 1, "the checksum"),
        (7, "the version"),
    ] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x40;
        std::fs::write(d.path().join(KINDS), &bad).unwrap();
        assert!(
            KindsCache::load(d.path()).is_empty(),
            "damaged {what} was read"
        );
    }
    // Written under another kinds list (two kinds swapped: each mask bit would name
    // the other), with a checksum that is right for it: never read.
    let mut ids: Vec<&str> = crate::analysis::failure_kind::FailureKind::ALL
        .iter()
        .map(|k| k.id())
        .collect();
    ids.swap(7, 8);
    assert_ne!(fingerprint(ids.iter().copied()), kinds_fingerprint());
    let mut other = bytes.clone();
    other[8..16].copy_from_slice(&fingerprint(ids.iter().copied()).to_le_bytes());
    let body_end = other.len() - 8;
    let sum = fnv(fnv(FNV0, &other[..HEAD]), &other[HEAD..body_end]);
    other[body_end..].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(d.path().join(KINDS), &other).unwrap();
    assert!(
        KindsCache::load(d.path()).is_empty(),
        "a cache of another kinds list was read"
    );
    std::fs::write(d.path().join(KINDS), &bytes[..bytes.len() - 5]).unwrap();
    assert!(
        KindsCache::load(d.path()).is_empty(),
        "a short cache was read"
    );
}

/// The key names the pair: notation, input, φ₁ and countermodel each change it, and
/// no part runs into the next.
#[test]
fn the_key_changes_with_every_part_of_the_pair() {
    use crate::syntax::SyntaxKind::{Fol, Pl};
    let k = row_kinds::key(Fol, Some("P(a)"), Some("P(b)"), Some("{}"));
    for other in [
        row_kinds::key(Pl, Some("P(a)"), Some("P(b)"), Some("{}")),
        row_kinds::key(Fol, Some("P(a) "), Some("P(b)"), Some("{}")),
        row_kinds::key(Fol, Some("P(a)"), Some("P(c)"), Some("{}")),
        row_kinds::key(Fol, Some("P(a)"), Some("P(b)"), None),
        row_kinds::key(Fol, Some("P(a)P(b)"), Some(""), Some("{}")),
        row_kinds::key(Fol, None, Some("P(b)"), Some("{}")),
    ] {
        assert_ne!(k, other);
    }
    assert_eq!(
        k,
        row_kinds::key(Fol, Some("P(a)"), Some("P(b)"), Some("{}"))
    );
    assert_ne!(k, 0);
}
