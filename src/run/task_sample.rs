//! One reference-task sample through the pipeline: one call, then the answer read
//! (reasoning tasks), the reply verified against FOLIO's premise-FOL (`folio-a`), or the
//! text scored against FOLIO's English premise (`folio-i`: BLEU, ROUGE-L, METEOR and,
//! with `--bertscore-model`, BERTScore-MiniLM F1).
//!
//! Verdicts keep their meaning for every reader: a right answer is `equivalent`, a wrong
//! one `not-equivalent` (the note says what was answered), a reply with no answer
//! `unknown` (counted wrong and listed), a failed call `model-error`. The call sits in the
//! round's `informalize` slot, except for `folio-a`, whose autoformalization sits in
//! `autoformalize` after FOLIO's English premise as ψ (so the viewer's diff and
//! countermodel work on it unchanged).

use super::job::{Caller, Job, Runs, Stage, call_record};
use super::task::{TaskSet, TaskUnit};
use crate::analysis::task_answer;
use crate::dataset::task_kind::TaskShape;
use crate::record::{CallRecord, RoundRecord, SampleRecord, TaskRecord, TextScores};
use crate::verify::{Countermodel, Verdict};

/// The verdict of an answer against the gold label.
fn answer_verdict(answer: Option<&str>, gold: Option<&str>) -> Verdict {
    match (answer, gold) {
        (None, _) => Verdict::Unknown {
            reason: "no final answer in the reply (counted wrong)".into(),
        },
        (Some(a), Some(g)) if a == g => Verdict::Equivalent { notes: Vec::new() },
        (Some(a), g) => Verdict::NotEquivalent {
            countermodel: Countermodel::Imported {
                note: format!(
                    "answered {a}; the gold label is {}",
                    g.unwrap_or("unreadable")
                ),
            },
            notes: Vec::new(),
        },
    }
}

/// `folio-i`'s text scores of `text` against `reference`.
pub(crate) fn text_scores(text: &str, reference: &str) -> TextScores {
    use crate::analysis::bleu_fol::{bleu_fol, rouge_l_fol};
    TextScores {
        bleu: bleu_fol(text, reference),
        rouge_l: rouge_l_fol(text, reference),
        meteor: crate::analysis::meteor::meteor(reference, text).unwrap_or(0.0),
        bertscore_minilm: None,
    }
}

/// Runs sample `job` of task `t`; `None` while its answer is pending (a batch).
pub(crate) async fn process<P: Runs + ?Sized, C: Caller + ?Sized>(
    p: &P,
    t: &TaskSet,
    job: Job,
    caller: &C,
) -> Option<SampleRecord> {
    let kind = t.kind;
    let unit = t.units.get(job.idx);
    let prompt = t.prompt(p.prompts(), job.idx);
    let (Some(unit), Some(prompt)) = (unit, prompt) else {
        let idx = job.idx;
        return Some(record(
            p,
            job,
            Vec::new(),
            Verdict::ModelError {
                message: format!("internal: {} has no item {idx}", kind.name()),
            },
            TaskRecord::new(kind),
        ));
    };
    let mut task = asked(t, unit);
    let stage = match kind.shape() {
        TaskShape::Autoformalize => Stage::Autoformalize,
        TaskShape::Reasoning | TaskShape::Informalize => Stage::Informalize,
    };
    let reply = caller.call(&job.id, 1, stage, p.request(&prompt)).await?;
    let call = call_record(&prompt, &reply);
    let input = job.phi0.to_unicode();
    let mut round = RoundRecord {
        round: 1,
        input: if unit.phi0.is_some() {
            input
        } else {
            String::new()
        },
        informalize: call.clone(),
        psi: None,
        autoformalize: None,
        phi1: None,
        phi1_span: None,
        verdict: Verdict::Unknown {
            reason: String::new(),
        },
        verify_ms: 0.0,
    };
    let text = match reply {
        Ok(c) if c.completion.truncated => Err(p.truncated("the task's answer")),
        Ok(c) => Ok(c.completion.text),
        Err(e) => Err(Verdict::ModelError {
            message: format!("{} failed: {}", kind.name(), e.error.message),
        }),
    };
    match (kind.shape(), text) {
        (TaskShape::Autoformalize, text) => {
            let said = Said {
                job: &job,
                prompt: &prompt.text,
                call,
                text,
            };
            autoformalized(p, caller, said, &mut task, &mut round).await;
        }
        (TaskShape::Reasoning | TaskShape::Informalize, Err(v)) => round.verdict = v,
        (TaskShape::Reasoning, Ok(raw)) => answered(&raw, &mut task, &mut round),
        (TaskShape::Informalize, Ok(raw)) => {
            informalized(p, &job, raw, &mut task, &mut round).await;
        }
    }
    Some(record(
        p,
        job,
        vec![round],
        Verdict::Unknown {
            reason: String::new(),
        },
        task,
    ))
}

/// What sample `unit` of task `t` asks: its item, premises, question or premise, gold
/// label and the reference a `folio-a`/`folio-i` reply is scored against.
fn asked(t: &TaskSet, unit: &TaskUnit) -> TaskRecord {
    let kind = t.kind;
    let mut task = TaskRecord::new(kind);
    task.item = unit.item_id();
    task.rule.clone_from(&unit.item.rule);
    if let Some(set) = kind.labels() {
        let (premises, conclusion) = t.question(unit);
        task.premises = premises.lines().map(str::to_string).collect();
        task.conclusion = conclusion;
        task.gold = task_answer::gold(&unit.item.gold, set).map(|l| l.name().to_string());
    } else if let Some(k) = unit.premise {
        task.premises = unit.item.premises.clone();
        task.conclusion = unit.item.premises.get(k).cloned().unwrap_or_default();
        task.reference = Some(match kind.shape() {
            TaskShape::Autoformalize => unit.item.premises_fol.get(k).cloned().unwrap_or_default(),
            TaskShape::Reasoning | TaskShape::Informalize => task.conclusion.clone(),
        });
    }
    task
}

/// A `folio-a` sample's call: the job, its prompt, the call's record and its text (or
/// the verdict of a call that gave none).
struct Said<'a> {
    job: &'a Job,
    prompt: &'a str,
    call: CallRecord,
    text: Result<String, Verdict>,
}

/// `folio-a`: FOLIO's English premise is ψ, the reply the autoformalization, verified
/// against the premise-FOL as a dataset's round is.
async fn autoformalized<P: Runs + ?Sized, C: Caller + ?Sized>(
    p: &P,
    caller: &C,
    said: Said<'_>,
    task: &mut TaskRecord,
    round: &mut RoundRecord,
) {
    let Said {
        job,
        prompt,
        call,
        text,
    } = said;
    // FOLIO's English premise is ψ; no model call made it.
    let psi = task.conclusion.clone();
    round.informalize = CallRecord {
        prompt_id: "folio-premise".into(),
        output: Some(psi.clone()),
        ..CallRecord::default()
    };
    round.psi = Some(psi.clone());
    round.autoformalize = Some(call);
    match text {
        Err(v) => round.verdict = v,
        Ok(raw) => {
            let scored = if let Some(s) = caller.known_score(&job.id, 1) {
                s
            } else {
                let s = p
                    .score(&job.phi0, &job.phi0, &psi, raw, prompt.to_string())
                    .await;
                caller.keep_score(&job.id, 1, &s);
                s
            };
            scored.apply(round);
        }
    }
    task.correct = Some(round.verdict.is_equivalent());
}

/// A reasoning task: the answer read from the reply, against the gold label.
fn answered(raw: &str, task: &mut TaskRecord, round: &mut RoundRecord) {
    let Some(set) = task.kind.labels() else {
        return;
    };
    let read = task_answer::read(raw, set);
    task.answer = read.label.map(|l| l.name().to_string());
    task.read = Some(read.rule.to_string());
    task.correct = Some(task.answer.is_some() && task.answer == task.gold);
    round.verdict = answer_verdict(task.answer.as_deref(), task.gold.as_deref());
}

/// `folio-i`: the reply is ψ, which must not copy the formula; its text is scored
/// against FOLIO's English premise.
async fn informalized<P: Runs + ?Sized>(
    p: &P,
    job: &Job,
    raw: String,
    task: &mut TaskRecord,
    round: &mut RoundRecord,
) {
    let psi = raw.trim().to_string();
    round.psi = Some(psi.clone());
    round.verdict = if psi.is_empty() {
        // No text: A2 counts it as no usable reply, like a truncated one.
        Verdict::Unparseable {
            pos: 0,
            reason: "empty informalization: no text to score".into(),
        }
    } else {
        super::score::copied(&psi, &job.phi0).unwrap_or_else(|| Verdict::Unknown {
            reason: "folio-i is scored by BLEU, ROUGE-L and METEOR against \
                     FOLIO's premise, not verified"
                .into(),
        })
    };
    let reference = task.reference.clone().unwrap_or_default();
    let mut scores = text_scores(&psi, &reference);
    scores.bertscore_minilm = p.text_bertscore(&job.id, reference, psi).await;
    task.text_scores = Some(scores);
}

/// The sample record of a task sample (`verdict` is used when there is no round).
fn record<P: Runs + ?Sized>(
    p: &P,
    job: Job,
    rounds: Vec<RoundRecord>,
    verdict: Verdict,
    task: TaskRecord,
) -> SampleRecord {
    let verdict = rounds.last().map_or(verdict, |r| r.verdict.clone());
    let passed = usize::from(verdict.is_equivalent());
    let (mut tin, mut tout, mut cost) = (0u64, 0u64, Some(0.0));
    for c in rounds
        .iter()
        .flat_map(|r| std::iter::once(&r.informalize).chain(r.autoformalize.as_ref()))
    {
        tin = tin.saturating_add(c.input_tokens);
        tout = tout.saturating_add(c.output_tokens);
        cost = match (cost, c.cost_usd, c.error.is_some() || c.attempts == 0) {
            (Some(a), Some(b), _) => Some(a + b),
            (Some(a), None, true) => Some(a),
            _ => None,
        };
    }
    let phi0 = if job.original.is_empty() {
        String::new()
    } else {
        job.phi0.to_unicode()
    };
    SampleRecord {
        id: job.id,
        idx: job.idx,
        batch: job.batch,
        syntax: p.syntax(),
        phi0,
        phi0_original: job.original,
        num_operators: job.num_operators,
        depth: job.depth,
        rounds,
        verdict,
        rounds_passed: passed,
        closeness: None,
        input_tokens: tin,
        output_tokens: tout,
        cost_usd: cost,
        finished: crate::base::clock::now_rfc3339_ms(),
        task: Some(task),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_become_verdicts_and_text_scores_are_bounded() {
        assert!(answer_verdict(Some("True"), Some("True")).is_equivalent());
        assert_eq!(
            answer_verdict(Some("False"), Some("True")).name(),
            "not-equivalent"
        );
        assert_eq!(answer_verdict(None, Some("True")).name(), "unknown");
        let s = text_scores("All dogs bark.", "All dogs bark.");
        assert!((s.bleu - 1.0).abs() < 1e-9 && (s.meteor - 0.0).abs() > 0.5);
        let z = text_scores("", "All dogs bark.");
        assert_eq!((z.bleu, z.rouge_l, z.meteor), (0.0, 0.0, 0.0));
    }
}
