//! Collecting a batch: downloading its results within their cap, storing them (with
//! their spend-ledger lines first), cancelling open batches, and the ids used in file names.

use super::{
    BatchApi, BatchInfo, Event, HashSet, LlmError, MAX_PLAUSIBLE_TOKENS, Open, Path, Provider,
    Replay, RunError, STATUS_PREFIX, State, StoredResult, event, ingest_file, io_err, mpsc, state,
};

/// Asks the provider to cancel every open batch (what they answered is collected on
/// `--resume`).
pub(super) async fn cancel_open(
    api: &BatchApi,
    st: &State,
    dir: &Path,
    provider: Provider,
    events: &mpsc::UnboundedSender<Event>,
) -> Result<(), RunError> {
    for (id, _) in &st.open {
        let note = match api.cancel(id).await {
            Ok(()) => format!("{STATUS_PREFIX}{id} cancel requested at the provider"),
            Err(e) => format!("cancelling batch {id} at the provider failed: {e}"),
        };
        let _ = events.send(Event::Warning(note));
        state::log(dir, &event("cancel-requested", id, Some(provider), None))?;
    }
    Ok(())
}

/// Downloads a finished batch, stores its answers (and puts them in the response
/// cache), and turns requests without a result line into errors naming the state.
pub(super) async fn ingest(
    dir: &Path,
    api: &BatchApi,
    rp: &Replay,
    client: &crate::llm::Client,
    open: &Open,
    now: &BatchInfo,
    events: &mpsc::UnboundedSender<Event>,
) -> Result<Result<(), LlmError>, RunError> {
    let downloads = dir.join(state::DOWNLOADS);
    crate::base::fswrite::room::dir(&downloads).map_err(io_err(&downloads))?;
    let file = downloads.join(format!("{}.jsonl", sanitize_id(&now.id)));
    let expected: HashSet<String> = open.custom_ids.iter().cloned().collect();
    let max_reply = client.limits().max_reply_bytes;
    let cap = crate::llm::batch_download::result_cap(open.custom_ids.len(), max_reply);
    let line_cap = crate::llm::batch_download::line_cap(max_reply);
    let (mut results, warnings, twice) = match api.download(now, &file, cap, line_cap).await {
        Err(e) => return Ok(Err(e)),
        Ok(Ok(_)) => ingest_file(
            &file,
            &now.id,
            api.ep.key.as_deref(),
            Some(&expected),
            &client.params().tags(),
        )
        .map_err(io_err(&file))?,
        // Over its cap: its requests become errors, so the file is never fetched
        // again; --retry-errors asks them anew.
        Ok(Err(why)) => {
            let _ = events.send(Event::Warning(format!("batch {}: {why}", now.id)));
            (Vec::new(), Vec::new(), HashSet::new())
        }
    };
    for w in warnings {
        let _ = events.send(Event::Warning(w));
    }
    let why_missing = if file.exists() {
        format!("batch {}: no result for this request", now.status)
    } else {
        format!(
            "batch {}: result file over its cap of {}",
            now.id,
            crate::base::fsread::human_bytes(cap)
        )
    };
    cap_outputs(&mut results, client.limits().max_reply_bytes);
    let seen: HashSet<String> = results.iter().map(|r| r.custom_id.clone()).collect();
    for cid in &open.custom_ids {
        if !seen.contains(cid) {
            results.push(StoredResult::from_line(
                cid.clone(),
                &now.id,
                Err(why_missing.clone()),
            ));
        }
    }
    // Charged as the provider reported it, implausible or not; recorded before the
    // answers are stored, so a crash in between counts the batch twice, never not at all.
    let mut lines = spend_lines(rp, &results);
    let spent: f64 = lines.iter().filter_map(|s| s.cost_usd).sum();
    if let Some(b) = client.budget()
        && b.settle_checked(
            open.reserved_usd,
            spent,
            &format!("batch {}", crate::llm::ledger::safe_id(&now.id)),
        )
    {
        for s in &mut lines {
            s.overrun = true;
            s.reserved_usd = Some(open.reserved_usd);
        }
    }
    for s in &lines {
        client.record_spend(s);
    }
    // A provider answers each request once: two answers to one request leave no
    // way to tell which was meant, so neither is used (the first was billed above).
    for r in &mut results {
        if twice.contains(&r.custom_id) {
            r.output = None;
            r.error = Some(format!(
                "batch {}: the result file answers this request (custom id {}) more than once; no answer is used (--resume --retry-errors asks it again)",
                now.id, r.custom_id
            ));
        }
    }
    state::save_results(dir, &results)?;
    if let Ok(mut m) = rp.results.write() {
        for r in results {
            m.insert(r.custom_id.clone(), r);
        }
    }
    Ok(Ok(()))
}

/// The ledger lines of a batch's answers (errors are not billed).
pub(super) fn spend_lines(rp: &Replay, results: &[StoredResult]) -> Vec<crate::llm::ledger::Spend> {
    use crate::llm::ledger::{Spend, SpendKind, safe_id};
    results
        .iter()
        .filter(|r| r.output.is_some() && !r.cached)
        .map(|r| {
            let cost = rp
                .prices
                .batch_cost(&rp.model, r.input_tokens, r.output_tokens);
            let mut s = Spend::new(SpendKind::Batch, &r.custom_id, cost);
            s.batch_id = Some(safe_id(&r.batch_id));
            (s.input_tokens, s.output_tokens) = (r.input_tokens, r.output_tokens);
            s.implausible =
                r.input_tokens > MAX_PLAUSIBLE_TOKENS || r.output_tokens > MAX_PLAUSIBLE_TOKENS;
            s
        })
        .collect()
}

/// Answers longer than `--max-reply-bytes` become errors, as they do live.
pub(super) fn cap_outputs(results: &mut [StoredResult], cap: usize) {
    for r in results {
        if r.output.as_ref().is_some_and(|o| o.len() > cap) {
            r.output = None;
            r.error = Some(format!(
                "reply longer than the cap of {cap} bytes (raise it with --max-reply-bytes)"
            ));
        }
    }
}

/// A batch id as a file name.
pub(super) fn sanitize_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect()
}
