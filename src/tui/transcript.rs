//! The Raw tab's transcript: every model call of a sample as the conversation it was
//! (the prompt the model got, its answer), rebuilt from the run's prompt set.

use crate::prompt::PromptSet;
use crate::record::{CallRecord, Manifest, SampleRecord};
use crate::syntax::parse;

/// One message of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// `user` or `assistant` (the pipeline sends no system message).
    pub role: &'static str,
    /// What was said (safe to draw).
    pub text: String,
}

/// One model call: which, and its messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// Round number.
    pub round: usize,
    /// `informalize` or `autoformalize`.
    pub name: &'static str,
    /// The messages, prompt first.
    pub messages: Vec<Message>,
}

/// The prompt set a run used, when it can be had again: built-in, or its directory
/// (`None` for imported runs and directories that are gone).
pub(crate) fn prompts_of(m: &Manifest) -> Option<PromptSet> {
    match m.prompts.source.as_str() {
        "built-in" => PromptSet::builtin(m.prompts.shots).ok(),
        "original" => None,
        dir => PromptSet::load(std::path::Path::new(dir), m.prompts.shots).ok(),
    }
}

fn safe(s: &str) -> String {
    crate::base::sanitize::for_terminal(s).into_owned()
}

/// The prompt of a call, when the set renders exactly the template the call recorded
/// (same id and hash); else why it cannot be shown.
fn prompt(call: &CallRecord, rendered: Option<crate::prompt::Rendered>) -> String {
    match rendered {
        Some(r) if r.id == call.prompt_id => safe(&r.text),
        Some(r) => format!(
            "(prompt not shown: the run used {}, the prompt set here renders {}; it changed since the run)",
            safe(&call.prompt_id),
            safe(&r.id)
        ),
        None => format!(
            "(prompt not shown: the run's prompt set is not available here; template {})",
            safe(&call.prompt_id)
        ),
    }
}

/// Every call of a record as a conversation.
pub(crate) fn transcript(rec: &SampleRecord, prompts: Option<&PromptSet>) -> Vec<Call> {
    let mut out = Vec::new();
    for r in &rec.rounds {
        let input = parse(&r.input, rec.syntax).ok();
        let answer = |c: &CallRecord| Message {
            role: "assistant",
            text: match (&c.output, &c.error) {
                (Some(o), _) => safe(o),
                (None, Some(e)) => format!("(no answer: {})", safe(e)),
                (None, None) => "(no answer)".into(),
            },
        };
        let inf = prompts
            .zip(input.as_ref())
            .map(|(p, phi)| p.informalize(phi, rec.syntax));
        out.push(Call {
            round: r.round,
            name: "informalize",
            messages: vec![
                Message {
                    role: "user",
                    text: prompt(&r.informalize, inf),
                },
                answer(&r.informalize),
            ],
        });
        if let Some(c) = &r.autoformalize {
            let auto = prompts
                .zip(input.as_ref())
                .zip(r.psi.as_deref())
                .map(|((p, phi), psi)| p.autoformalize(psi, phi, rec.syntax));
            out.push(Call {
                round: r.round,
                name: "autoformalize",
                messages: vec![
                    Message {
                        role: "user",
                        text: prompt(c, auto),
                    },
                    answer(c),
                ],
            });
        }
    }
    out
}
