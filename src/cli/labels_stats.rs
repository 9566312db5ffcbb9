//! `autoeval labels stats`: the runs' labels pooled, and the statistics printed.

use crate::labels::ADJUDICATED;
use crate::labels::agreement::Estimate;
use crate::record::LabelRecord;
use crate::report::By;
use crate::report::labels::{LabelStats, StatsOptions, stats_with};
use crate::run::store::read_labels;
use anyhow::{Result, anyhow};
use std::path::{Path, PathBuf};

/// Runs `autoeval labels stats` over `runs` (pooled when several).
pub(crate) fn stats(
    runs: &[PathBuf],
    by: By,
    json: bool,
    pair: Option<&str>,
    bootstrap: u32,
) -> Result<i32> {
    let dirs = crate::cli::report::expand_runs(runs)?;
    let (data, records) = pooled(&dirs)?;
    let pair = parse_pair(pair, &records)?;
    let opts = StatsOptions {
        pair,
        bootstrap: bootstrap as usize,
    };
    let st = stats_with(&data, &records, by == By::Depth, &opts);
    let ranking = super::labels_ranks::load(&dirs)?;
    if json {
        let mut v = serde_json::to_value(&st)?;
        if let (Some(r), Some(m)) = (&ranking, v.as_object_mut()) {
            m.insert("ranking".into(), serde_json::to_value(r)?);
        }
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    outln!(
        "{} labelled samples by {} annotator(s): {}{}",
        st.labelled,
        st.annotators.len(),
        crate::base::sanitize::one_line(&st.annotators.join(", ")),
        if st.blind > 0 {
            format!(" ({} label(s) made blind)", st.blind)
        } else {
            String::new()
        }
    );
    print_counts(&st, by)?;
    print_agreement(&st)?;
    print_lucky_and_metrics(&st)?;
    print_automatic(&st)?;
    if let Some(r) = &ranking {
        super::labels_ranks::print(r)?;
    }
    Ok(0)
}

/// The labelled samples of `dirs` and their labels, pooled; with several runs the ids
/// become RUN/ID (ids are unique within a run only).
fn pooled(dirs: &[PathBuf]) -> Result<(crate::report::RunData, Vec<LabelRecord>)> {
    let several = dirs.len() > 1;
    let mut pooled: Option<crate::report::RunData> = None;
    let mut records = Vec::new();
    for dir in dirs {
        let mut labels = read_labels(dir).map_err(|e| anyhow!("{e}"))?.records;
        let mut data = load_labelled(dir, &labels)?;
        if several {
            // Ids are unique within a run only.
            let name = data.manifest.id.clone();
            for s in &mut data.samples {
                s.id = format!("{name}/{}", s.id);
            }
            for l in &mut labels {
                l.id = format!("{name}/{}", l.id);
            }
        }
        records.extend(labels);
        match pooled.as_mut() {
            None => pooled = Some(data),
            Some(p) => p.samples.extend(data.samples),
        }
    }
    let Some(data) = pooled else {
        return Err(anyhow!("no run directories given"));
    };
    Ok((data, records))
}

/// The table of label counts by category × complexity bucket.
fn print_counts(st: &LabelStats, by: By) -> Result<()> {
    let buckets: std::collections::BTreeSet<usize> =
        st.counts.values().flat_map(|m| m.keys().copied()).collect();
    if st.counts.is_empty() {
        return Ok(());
    }
    outln!(
        "\ncounts by category × {}",
        if by == By::Depth {
            "depth"
        } else {
            "operators"
        }
    );
    let w = st
        .counts
        .keys()
        .map(std::string::String::len)
        .max()
        .unwrap_or(8);
    out!("{:w$}", "");
    for b in &buckets {
        out!(" {b:>3}");
    }
    outln!("  total");
    for (c, m) in &st.counts {
        out!("{:w$}", crate::base::sanitize::one_line(c));
        for b in &buckets {
            out!(" {:>3}", m.get(b).copied().unwrap_or(0));
        }
        outln!("  {:>5}", m.values().sum::<usize>());
    }
    Ok(())
}

/// Lucky passes and each metric's rank correlation with the human judgement.
fn print_lucky_and_metrics(st: &LabelStats) -> Result<()> {
    if let Some((k, n, p, lo, hi)) = st.lucky {
        outln!(
            "\nlucky passes: {k} of {n} labelled passing samples = {:.1}% (95% Wilson interval {:.1}%–{:.1}%)",
            100.0 * p,
            100.0 * lo,
            100.0 * hi
        );
    } else {
        outln!("\nlucky passes: no passing sample is labelled yet");
    }
    outln!(
        "\nagreement of each metric with the human judgement (Spearman ρ; human: no failure category = good):"
    );
    for (m, r) in &st.rank_correlation {
        let v = r.map_or_else(
            || {
                format!(
                    "– ({})",
                    st.rank_correlation_reason
                        .get(m)
                        .map_or("undefined", String::as_str)
                )
            },
            |v| format!("{v:.3}"),
        );
        outln!("  {m:<20} {v}");
    }
    Ok(())
}

/// The automatic failure kinds against the hand labels, per category.
fn print_automatic(st: &LabelStats) -> Result<()> {
    if st.automatic.is_empty() {
        return Ok(());
    }
    outln!("\nautomatic failure kinds (from the diff) against the hand labels, per category:");
    outln!(
        "  {:<24} {:>4} {:>4} {:>4} {:>9} {:>7}",
        "category",
        "both",
        "auto",
        "hand",
        "precision",
        "recall"
    );
    for (c, a) in &st.automatic {
        let f = |x: Option<f64>| x.map_or_else(|| "–".into(), |v| format!("{v:.3}"));
        outln!(
            "  {:<24} {:>4} {:>4} {:>4} {:>9} {:>7}",
            crate::base::sanitize::one_line(c),
            a.tp,
            a.fp,
            a.fn_,
            f(a.precision()),
            f(a.recall())
        );
    }
    outln!("  (– precision: the diff never named the category; – recall: no annotator did)");
    Ok(())
}

/// A run with only its labelled samples (statistics need no others), read through the
/// row index so a large run is not loaded whole.
fn load_labelled(dir: &Path, labels: &[LabelRecord]) -> Result<crate::report::RunData> {
    let manifest = crate::run::store::read_manifest(dir).map_err(|e| anyhow!("{e}"))?;
    let ids: std::collections::HashSet<&str> = labels.iter().map(|l| l.id.as_str()).collect();
    let mut samples = Vec::new();
    let warnings = crate::report::open::for_each_sample_where(
        dir,
        |id| ids.contains(id),
        |s| {
            samples.push(s);
            Ok(())
        },
    )
    .map_err(|e| anyhow!("{e}"))?;
    for w in warnings.iter().take(5) {
        eprintln!("warning: {}", crate::base::sanitize::one_line(w));
    }
    Ok(crate::report::RunData {
        dir: dir.to_path_buf(),
        manifest,
        samples,
        judge: vec![],
        warnings,
    })
}

/// `--pair a,b`: two distinct annotators who have labels.
fn parse_pair(pair: Option<&str>, records: &[LabelRecord]) -> Result<Option<(String, String)>> {
    let Some(p) = pair else { return Ok(None) };
    let names: Vec<&str> = p.split(',').map(str::trim).collect();
    let [a, b] = names[..] else {
        return Err(anyhow!(
            "--pair takes two annotators separated by a comma (--pair alice,bob), not '{}'",
            crate::base::sanitize::one_line(p)
        ));
    };
    if a == b {
        return Err(anyhow!(
            "--pair needs two different annotators, not '{a}' twice"
        ));
    }
    let known: std::collections::BTreeSet<&str> = records
        .iter()
        .map(|r| r.annotator.as_str())
        .filter(|a| *a != ADJUDICATED)
        .collect();
    for n in [a, b] {
        if !known.contains(n) {
            return Err(anyhow!(
                "--pair: '{}' has no labels here; annotators: {}",
                crate::base::sanitize::one_line(n),
                crate::base::sanitize::one_line(&known.into_iter().collect::<Vec<_>>().join(", "))
            ));
        }
    }
    Ok(Some((a.to_string(), b.to_string())))
}

/// Agreement among annotators, Cohen's κ for a pair, and adjudication.
fn print_agreement(st: &LabelStats) -> Result<()> {
    let one = crate::base::sanitize::one_line;
    let ag = &st.agreement;
    if st.annotators.len() < 2 {
        outln!(
            "\nagreement: needs two annotators (labels so far by: {})",
            one(&st.annotators.join(", "))
        );
    } else {
        outln!(
            "\nagreement among {} annotators over {} samples labelled by two or more ({} disagree):",
            ag.annotators.len(),
            ag.shared,
            ag.disagreements
        );
        outln!(
            "  {:<24} {:<34} Fleiss' κ",
            "category",
            "Krippendorff's α [95% bootstrap]"
        );
        for (c, a) in &ag.alpha {
            let f = ag.fleiss.get(c).map(Estimate::show).unwrap_or_default();
            outln!("  {:<24} {:<34} {f}", one(c), a.show());
        }
        outln!(
            "  {:<24} {:<34} {}",
            "overall",
            ag.alpha_overall.show(),
            ag.fleiss_overall.show()
        );
    }
    if let Some(c) = &st.cohen {
        outln!(
            "\nCohen's κ between {} and {} over {} samples both labelled:",
            one(&c.a),
            one(&c.b),
            c.shared
        );
        for (cat, k) in &c.kappa {
            outln!("  {:<24} {}", one(cat), k.show());
        }
        outln!("  {:<24} {}", "overall", c.overall.show());
    }
    if let Some(adj) = &st.adjudication {
        let who: Vec<String> = adj
            .adjudicators
            .iter()
            .map(|(w, n)| format!("{} ({n})", one(w)))
            .collect();
        outln!(
            "\nadjudication: {} sample(s) settled by {}; disagreements {} before, {} after",
            adj.samples,
            who.join(", "),
            adj.disagreements_before,
            adj.disagreements_after
        );
        outln!(
            "  α overall before {}, after {}",
            st.agreement.alpha_overall.show(),
            adj.after.alpha_overall.show()
        );
        outln!(
            "  Fleiss' κ overall before {}, after {}",
            st.agreement.fleiss_overall.show(),
            adj.after.fleiss_overall.show()
        );
        for (a, e) in &adj.annotator_vs_adjudicated {
            outln!("  {:<22} vs adjudicated: κ {}", one(a), e.show());
        }
    }
    Ok(())
}
