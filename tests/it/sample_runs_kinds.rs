//! The shipped runs' failure kinds from proved edits against the structural diff's:
//! an equivalent sample has none, a not-equivalent one at least one, and the table
//! of kinds that changed (printed with `--nocapture`) is the one in
//! `sample-runs/README.md`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::analysis::kinds::{FailureKind, classify, classify_parts_proved, kinds_of_diff};
use autoeval::syntax::{diff::diff, parse};
use autoeval::verify::VerdictKind;
use std::collections::BTreeMap;
use std::path::Path;

#[test]
fn shipped_runs_kinds_come_from_proved_edits() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs");
    let mut runs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.join("samples.jsonl").is_file())
        .collect();
    runs.sort();
    let mut table: BTreeMap<(String, String), usize> = BTreeMap::new();
    let (mut failing, mut changed, mut unproved) = (0, 0, 0);
    for dir in &runs {
        let loaded = autoeval::run::store::read_samples(dir).unwrap();
        for rec in &loaded.records {
            let new = classify(rec);
            let kind = rec.verdict.kind();
            if kind == VerdictKind::Equivalent {
                assert!(new.is_empty(), "{}: equivalent with kinds {new:?}", rec.id);
                continue;
            }
            if kind != VerdictKind::NotEquivalent {
                continue;
            }
            failing += 1;
            assert!(!new.is_empty(), "{}: not equivalent without a kind", rec.id);
            let round = rec.rounds.iter().rev().find(|r| r.phi1.is_some()).unwrap();
            let (a, b) = (
                parse(&round.input, rec.syntax).unwrap(),
                parse(round.phi1.as_deref().unwrap(), rec.syntax).unwrap(),
            );
            let mut old = kinds_of_diff(&diff(&a, &b));
            if old.is_empty() {
                old.push(FailureKind::Other);
            }
            let (_, proved) = classify_parts_proved(
                kind,
                None,
                rec.syntax,
                Some(&round.input),
                round.phi1.as_deref(),
                match &round.verdict {
                    autoeval::verify::Verdict::NotEquivalent { countermodel, .. } => {
                        Some(countermodel)
                    }
                    _ => None,
                },
            );
            unproved += usize::from(!proved);
            if old != new {
                changed += 1;
                let ids =
                    |k: &[FailureKind]| k.iter().map(|k| k.id()).collect::<Vec<_>>().join(", ");
                *table.entry((ids(&old), ids(&new))).or_default() += 1;
            }
        }
    }
    println!("{changed} of {failing} not-equivalent samples changed kinds; {unproved} unproved");
    println!("| structural diff (before) | proved edits (after) | samples |\n|---|---|---|");
    let mut rows: Vec<_> = table.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for ((old, new), n) in rows {
        println!("| {old} | {new} | {n} |");
    }
    assert!(failing > 100, "only {failing} failing samples found");
}
