//! LLM as judge (A4): ask a model whether φ₀ ≡ φ₁ for every sample with a parsed φ₁.

use super::store::{self, Appender, JUDGE};
use crate::llm::Client;
use crate::llm::judge::parse_answer;
use crate::prompt::PromptSet;
use crate::record::{JudgeRecord, SampleRecord, now_rfc3339};
use crate::syntax::parse;
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use tokio::task::JoinSet;

/// Judges every sample of the run in `dir` not yet judged by this model; returns
/// (judged now, skipped because already judged or without φ₁).
pub(crate) async fn judge_run(
    dir: &Path,
    client: Arc<Client>,
    prompts: Arc<PromptSet>,
    concurrency: usize,
    limit: Option<usize>,
    mut on_done: impl FnMut(&JudgeRecord),
) -> Result<(usize, usize), store::StoreError> {
    let samples = store::read_samples(dir)?.records;
    let model = client.info();
    let previous = store::read_jsonl::<JudgeRecord>(&dir.join(JUDGE))?;
    let judged: HashSet<String> = previous
        .records
        .into_iter()
        .filter(|r| r.model.name == model.name && r.model.provider == model.provider)
        .map(|r| r.id)
        .collect();
    let mut out = Appender::open(&dir.join(JUDGE))?;
    let todo: Vec<SampleRecord> = samples
        .into_iter()
        .filter(|s| s.rounds.first().is_some_and(|r| r.phi1.is_some()))
        .take(limit.unwrap_or(usize::MAX))
        .filter(|s| !judged.contains(&s.id))
        .collect();
    let skipped = judged.len();
    let mut queue = todo.into_iter();
    let mut set = JoinSet::new();
    let mut count = 0;
    loop {
        while set.len() < concurrency.max(1) {
            let Some(s) = queue.next() else { break };
            let (client, prompts, model) = (client.clone(), prompts.clone(), model.clone());
            set.spawn(async move {
                let phi1 = s
                    .rounds
                    .first()
                    .and_then(|r| r.phi1.clone())
                    .unwrap_or_default();
                let (a, b) = (parse(&s.phi0, s.syntax), parse(&phi1, s.syntax));
                let (Ok(a), Ok(b)) = (a, b) else { return None };
                let prompt = prompts.judge(&a, &b, s.syntax);
                let r = client.complete(&client.request(prompt.text.clone())).await;
                // Only the answer is judged; a truncated call answered nothing.
                let answer = match &r {
                    Ok(c) if !c.completion.truncated => parse_answer(&c.completion.text),
                    _ => crate::llm::judge::JudgeAnswer::Unparseable,
                };
                let call = super::job::call_record(&prompt, &r);
                Some(JudgeRecord {
                    id: s.id.clone(),
                    model,
                    answer,
                    call,
                    verifier: s.verdict.name().to_string(),
                    time: now_rfc3339(),
                })
            });
        }
        let Some(joined) = set.join_next().await else {
            break;
        };
        if let Ok(Some(rec)) = joined {
            out.append(&rec)?;
            on_done(&rec);
            count += 1;
        }
    }
    out.sync()?;
    Ok((count, skipped))
}
