//! What a resume checks beyond the settings: the dataset by its content (a SHA-256 of
//! the file, so a moved copy is the same dataset and an edited file is not), and the
//! endpoints a run was sent to over its sessions.

use super::events::{Event, RunError};
use crate::record::Manifest;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;

/// `run.json` key of the endpoint history: every base URL the run was sent to, with
/// when its first session against it started.
pub(crate) const ENDPOINTS_KEY: &str = "endpoints";

/// The SHA-256 (hex) of a dataset file, streamed; `None` when it cannot be read (the
/// dataset was already loaded from it, so that is a race, not a user error).
pub(crate) fn dataset_sha256(path: &Path) -> Option<String> {
    let mut f = crate::base::fsread::open(path, crate::base::fsread::STREAM).ok()?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The dataset of a resumed run against the one it started with, as (field, old, new):
/// by content when both runs know it, else (runs from before the hash) by path.
pub(crate) fn dataset_difference(
    old: &Manifest,
    new: &Manifest,
) -> Option<(&'static str, String, String)> {
    let (o, n) = (&old.dataset, &new.dataset);
    match (&o.sha256, &n.sha256) {
        (Some(a), Some(b)) => (a != b).then(|| {
            (
                "dataset content (SHA-256; the file was edited, or is another dataset)",
                format!("{a} ({})", o.path.as_deref().unwrap_or("-")),
                format!("{b} ({})", n.path.as_deref().unwrap_or("-")),
            )
        }),
        _ => (o.path != n.path).then(|| {
            (
                "dataset file",
                format!("{:?}", o.path),
                format!("{:?}", n.path),
            )
        }),
    }
}

/// Carries the endpoint history into the resumed manifest `new`, adding its base URL
/// when it differs from the last one; returns a note for the user when it does.
pub(crate) fn record_endpoints(old: &Manifest, new: &mut Manifest) -> Option<String> {
    let url = |m: &Manifest| m.model.base_url.clone().unwrap_or_default();
    let mut history: Vec<serde_json::Value> = match old.extra.get(ENDPOINTS_KEY) {
        Some(serde_json::Value::Array(a)) => a.clone(),
        _ => vec![serde_json::json!({"base_url": url(old), "since": old.created})],
    };
    let last = history
        .last()
        .and_then(|e| e["base_url"].as_str())
        .map(str::to_string);
    let (was, now) = (last.unwrap_or_else(|| url(old)), url(new));
    let changed = was != now;
    if changed {
        history.push(serde_json::json!({"base_url": now, "since": crate::record::now_rfc3339()}));
    }
    if changed || old.extra.contains_key(ENDPOINTS_KEY) {
        new.extra
            .insert(ENDPOINTS_KEY.into(), serde_json::Value::Array(history));
    }
    changed.then(|| {
        format!(
            "resumed against another --base-url: was {}, now {}; both are recorded in run.json's \"{ENDPOINTS_KEY}\"",
            crate::base::sanitize::one_line(&was),
            crate::base::sanitize::one_line(&now)
        )
    })
}

/// The command that continues a run stopped by refused or unreadable replies: the
/// command line as given, with `--resume` (and `--force` when samples finished under
/// the old settings, which corrected request settings then need).
pub(crate) fn resume_command(argv: &[String], nothing_finished: bool) -> String {
    let quote = |a: &String| {
        if !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+".contains(c))
        {
            a.clone()
        } else {
            crate::base::sanitize::shell_quote(a)
        }
    };
    let mut parts: Vec<String> = argv.iter().map(quote).collect();
    if !argv.iter().any(|a| a == "--resume") {
        parts.push("--resume".into());
    }
    if !nothing_finished && !argv.iter().any(|a| a == "--force") {
        parts.push("--force".into());
    }
    format!(
        "{}   (with the refused setting corrected)",
        crate::base::sanitize::one_line(&parts.join(" "))
    )
}

/// Differences that only shape the request: corrected after a refused run (exit 75)
/// before any sample finished, they mix nothing.
const REQUEST_ONLY: [&str; 3] = [
    "temperature",
    "reasoning settings (effort, thinking, budget, extra body)",
    "max tokens",
];

/// Whether any sample of the run at `dir` finished (a record that is not a model error).
fn any_finished(dir: &Path) -> Result<bool, RunError> {
    let loaded = super::store::read_samples(dir)?;
    Ok(loaded
        .records
        .iter()
        .any(|r| r.verdict.kind() != crate::verify::VerdictKind::ModelError))
}

/// Refuses a resume whose settings differ, unless the flag for that kind of difference
/// is given: request settings need `--force` once a sample finished under the old ones
/// (none before), anything else `--force-experiment`.
pub(crate) fn check_differences(
    dir: &Path,
    diffs: &[(&'static str, String, String)],
    force: bool,
    force_experiment: bool,
    events: &tokio::sync::mpsc::UnboundedSender<Event>,
) -> Result<(), RunError> {
    if diffs.is_empty() {
        return Ok(());
    }
    let list = |d: &[&(&'static str, String, String)]| {
        d.iter()
            .map(|(k, a, b)| format!("  {k}: was {a}, now {b}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (request, experiment): (Vec<_>, Vec<_>) =
        diffs.iter().partition(|(k, _, _)| REQUEST_ONLY.contains(k));
    if !experiment.is_empty() && !force_experiment {
        return Err(RunError::Refused(format!(
            "{} was run with other settings; resuming would mix two experiments:\n{}\n\
             resume with the same settings, choose another --out, or add --force-experiment",
            dir.display(),
            list(&experiment)
        )));
    }
    if request.is_empty() || force {
        return Ok(());
    }
    if !any_finished(dir)? {
        let _ = events.send(Event::Warning(format!(
            "no sample finished under the old request settings, so the corrected ones are used:\n{}",
            list(&request)
        )));
        return Ok(());
    }
    Err(RunError::Refused(format!(
        "{} was run with other request settings and samples finished under them; resuming \
         would mix two experiments:\n{}\n\
         resume with the same settings, choose another --out, or add --force",
        dir.display(),
        list(&request)
    )))
}
