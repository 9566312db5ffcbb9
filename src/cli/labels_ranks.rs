//! The rankings part of `autoeval labels stats`: reads `ranks.jsonl` of the given runs,
//! finds each ranked answer's run (among the given runs, then their sibling folders) and
//! its closeness metrics, and prints Kendall's τ, the consensus and each metric's RMSE.

use crate::labels::ranks::{self, Candidate, RANKS, RankRecord};
use crate::report::ranks::{RankStats, rank_stats};
use anyhow::{Result, anyhow};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Run directories by run name: the given ones first, then run folders beside them.
fn run_dirs(dirs: &[PathBuf], wanted: &HashSet<&str>) -> HashMap<String, PathBuf> {
    let mut out: HashMap<String, PathBuf> = HashMap::new();
    let add = |d: &Path, out: &mut HashMap<String, PathBuf>| {
        if let Ok(m) = crate::run::store::read_manifest(d) {
            out.entry(m.id).or_insert_with(|| d.to_path_buf());
        }
    };
    for d in dirs {
        add(d, &mut out);
    }
    if wanted.iter().all(|w| out.contains_key(*w)) {
        return out;
    }
    let parents: std::collections::BTreeSet<PathBuf> = dirs
        .iter()
        .filter_map(|d| d.parent().map(Path::to_path_buf))
        .collect();
    for p in parents {
        let Ok(entries) = std::fs::read_dir(&p) else {
            continue;
        };
        for e in entries.flatten() {
            let d = e.path();
            if d.join(crate::run::store::MANIFEST).is_file() {
                add(&d, &mut out);
            }
        }
    }
    out
}

/// Each candidate's metrics: every numeric closeness field of its sample, and
/// `verdict` (1 when round 1 is equivalent, else 0).
fn scores(
    records: &[&RankRecord],
    dirs: &[PathBuf],
) -> Result<BTreeMap<Candidate, BTreeMap<String, f64>>> {
    let mut wanted: BTreeMap<&str, HashSet<&str>> = BTreeMap::new();
    for r in records {
        for c in &r.candidates {
            wanted
                .entry(c.run.as_str())
                .or_default()
                .insert(c.id.as_str());
        }
    }
    let names: HashSet<&str> = wanted.keys().copied().collect();
    let found = run_dirs(dirs, &names);
    let mut out = BTreeMap::new();
    for (run, ids) in &wanted {
        let Some(dir) = found.get(*run) else { continue };
        let warnings = crate::report::open::for_each_sample_where(
            dir,
            |id| ids.contains(id),
            |s| {
                let mut m: BTreeMap<String, f64> = s
                    .closeness
                    .as_ref()
                    .map(crate::report::ranks::named_metrics)
                    .unwrap_or_default()
                    .into_iter()
                    .collect();
                let verdict = s.rounds.first().map_or(&s.verdict, |r| &r.verdict);
                m.insert(
                    "verdict".into(),
                    if verdict.is_equivalent() { 1.0 } else { 0.0 },
                );
                out.insert(
                    Candidate {
                        run: (*run).to_string(),
                        id: s.id.clone(),
                    },
                    m,
                );
                Ok(())
            },
        )
        .map_err(|e| anyhow!("{e}"))?;
        for w in warnings.iter().take(5) {
            eprintln!("warning: {}", crate::base::sanitize::one_line(w));
        }
    }
    Ok(out)
}

/// The ranking statistics of `dirs`, when any of them has a `ranks.jsonl`.
pub fn load(dirs: &[PathBuf]) -> Result<Option<RankStats>> {
    if !dirs.iter().any(|d| d.join(RANKS).exists()) {
        return Ok(None);
    }
    let mut all = Vec::new();
    for d in dirs {
        let loaded = ranks::read(d).map_err(|e| anyhow!("{e}"))?;
        for w in loaded.warnings.iter().take(5) {
            eprintln!("warning: {}", crate::base::sanitize::one_line(w));
        }
        if loaded.warnings.len() > 5 {
            eprintln!(
                "warning: {}: {} more bad lines",
                d.join(RANKS).display(),
                loaded.warnings.len() - 5
            );
        }
        all.extend(loaded.records);
    }
    let latest = ranks::latest(&all);
    let recs: Vec<&RankRecord> = latest.values().collect();
    let scores = scores(&recs, dirs)?;
    Ok(Some(rank_stats(&latest, &scores)))
}

fn show(x: Option<f64>) -> String {
    x.map_or_else(|| "–".into(), |v| format!("{v:.3}"))
}

/// Prints the rankings section of `labels stats`.
pub fn print(st: &RankStats) -> Result<()> {
    let one = crate::base::sanitize::one_line;
    outln!(
        "\nrankings (ranks.jsonl): {} ranking(s) of {} φ₀ by {} annotator(s): {}",
        st.rankings,
        st.phi0s,
        st.annotators.len(),
        one(&st.annotators.join(", "))
    );
    if st.kendall.is_empty() {
        outln!("  Kendall's τ-b between annotators: needs two annotators");
    } else {
        outln!("  Kendall's τ-b between annotators (answer pairs within each shared φ₀, pooled):");
        for p in &st.kendall {
            let v = p.tau.map_or_else(
                || format!("– ({})", p.reason.as_deref().unwrap_or("undefined")),
                |t| format!("{t:.3}"),
            );
            outln!(
                "    {} vs {}: {v} over {} φ₀, {} pairs",
                one(&p.a),
                one(&p.b),
                p.shared,
                p.pairs
            );
        }
        outln!("    mean over pairs: {}", show(st.kendall_mean));
    }
    outln!("  consensus rank by pairwise majority (1 = best, ties equal):");
    for c in &st.consensus {
        let parts: Vec<String> = c
            .candidates
            .iter()
            .zip(&c.ranks)
            .map(|(k, r)| format!("{}/{} {r}", one(&k.run), one(&k.id)))
            .collect();
        outln!(
            "    {}: {} ({} annotator(s))",
            one(&if crate::base::text_width::width(&c.phi0) > 60 {
                crate::base::text_width::clip(&c.phi0, 60)
            } else {
                c.phi0.clone()
            }),
            parts.join(", "),
            c.annotators.len()
        );
    }
    if !st.unresolved.is_empty() {
        outln!(
            "  not found (give their runs to labels stats, or keep them beside this run): {}",
            one(&st.unresolved.join(", "))
        );
    }
    if st.rmse.is_empty() {
        outln!("  metric alignment: no ranked answer's run was found");
        return Ok(());
    }
    outln!(
        "  RMSE of each metric's rank vector against the consensus (lower is better; ties equal; pairs: per-answer mean):"
    );
    outln!(
        "    {:<32} {:>6} {:>6} {:>9}",
        "metric",
        "RMSE",
        "φ₀",
        "positions"
    );
    for m in &st.rmse {
        outln!(
            "    {:<32} {:>6} {:>6} {:>9}",
            one(&m.metric),
            show(m.rmse),
            m.rankings,
            m.positions
        );
    }
    Ok(())
}
