//! Keeping a model's reasoning apart from its answer: inline `<think>…</think>` blocks
//! (split at the last closing tag, also when the opening tag is missing, as DeepSeek-R1
//! writes them), unclosed blocks (the reasoning ran out of tokens), and gpt-oss's
//! harmony channels when a server passes them through raw.

use memchr::memmem;

/// A reply split into reasoning and answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split<'a> {
    /// The reasoning, if the reply held any (trimmed; tags removed).
    pub reasoning: Option<&'a str>,
    /// What remains: the answer.
    pub answer: &'a str,
    /// A reasoning block was opened and never closed: there is no answer.
    pub unclosed: bool,
}

/// Closing tags that end an inline reasoning block, with their opening tags.
const TAGS: [(&str, &str); 2] = [("<think>", "</think>"), ("<thinking>", "</thinking>")];

/// Where harmony's final channel starts (gpt-oss without a reasoning parser).
const HARMONY_FINAL: &str = "<|channel|>final<|message|>";

/// Harmony markers stripped from a reasoning text.
const HARMONY_MARKS: [&str; 5] = [
    "<|start|>assistant",
    "<|channel|>analysis<|message|>",
    "<|end|>",
    "<|return|>",
    "<|channel|>commentary<|message|>",
];

/// Splits `text` into reasoning and answer. The answer is what follows the *last*
/// closing tag, so a draft formula inside the reasoning never reaches scoring; it is
/// always a slice of `text` (so callers can map its positions back).
pub fn split(text: &str) -> Split<'_> {
    let b = text.as_bytes();
    let closing = TAGS
        .iter()
        .filter_map(|(open, close)| {
            memmem::rfind(b, close.as_bytes()).map(|i| (i, *open, close.len()))
        })
        .max_by_key(|(i, _, _)| *i);
    if let Some((i, open, len)) = closing {
        let before = text[..i].trim();
        let reasoning = before
            .strip_prefix(open)
            .map_or(before, str::trim_start)
            .trim();
        return Split {
            reasoning: Some(reasoning),
            answer: &text[i + len..],
            unclosed: false,
        };
    }
    if let Some(i) = memmem::rfind(b, HARMONY_FINAL.as_bytes()) {
        let answer = &text[i + HARMONY_FINAL.len()..];
        let answer = answer
            .strip_suffix("<|return|>")
            .or_else(|| answer.strip_suffix("<|end|>"))
            .unwrap_or(answer);
        return Split {
            reasoning: Some(text[..i].trim()),
            answer,
            unclosed: false,
        };
    }
    let start = text.trim_start();
    for (open, _) in TAGS {
        if let Some(rest) = start.strip_prefix(open) {
            return Split {
                reasoning: Some(rest.trim()),
                answer: &text[text.len()..],
                unclosed: true,
            };
        }
    }
    if start.starts_with("<|channel|>analysis") {
        return Split {
            reasoning: Some(start),
            answer: &text[text.len()..],
            unclosed: true,
        };
    }
    Split {
        reasoning: None,
        answer: text,
        unclosed: false,
    }
}

/// A reasoning text with harmony's channel markers removed (they carry no content).
pub fn clean(reasoning: &str) -> String {
    if !reasoning.contains("<|") {
        return reasoning.to_string();
    }
    let mut s = reasoning.to_string();
    for m in HARMONY_MARKS {
        s = s.replace(m, "\n");
    }
    s.trim().to_string()
}

/// Joins the reasoning a provider returned apart from the answer with any found inline
/// in it (a server with a parser that also leaves tags behind).
pub fn join(separate: Option<String>, inline: Option<&str>) -> Option<String> {
    let inline = inline.map(clean).filter(|s| !s.is_empty());
    match (separate.filter(|s| !s.trim().is_empty()), inline) {
        (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_the_last_closing_tag() {
        let s = split("<think>draft: p ∧ q</think>\nAnswer: p ∨ q");
        assert_eq!(s.reasoning, Some("draft: p ∧ q"));
        assert_eq!(s.answer.trim(), "Answer: p ∨ q");
        assert!(!s.unclosed);
    }

    #[test]
    fn missing_opening_tag_deepseek_style() {
        let s = split("Let me restate p1 ∧ p2.\n</think>\n\np1 ∨ p2");
        assert_eq!(s.reasoning, Some("Let me restate p1 ∧ p2."));
        assert_eq!(s.answer.trim(), "p1 ∨ p2");
    }

    #[test]
    fn a_closing_tag_quoted_inside_reasoning_does_not_leak() {
        let s = split("<think>I will write </think> later</think>final");
        assert_eq!(s.answer, "final");
        assert!(s.reasoning.unwrap().contains("later"));
    }

    #[test]
    fn unclosed_block_is_all_reasoning() {
        let s = split("  <think>still going p ∧ q");
        assert_eq!(s.answer, "");
        assert!(s.unclosed);
        assert_eq!(s.reasoning, Some("still going p ∧ q"));
    }

    #[test]
    fn the_answer_is_always_a_slice_of_the_text() {
        for t in [
            "",
            "<think>",
            "  <think>open",
            "a</think>b",
            "<|channel|>analysis<|message|>x",
            "<|channel|>final<|message|>y<|return|>",
            "plain",
        ] {
            let a = split(t).answer;
            let start = a.as_ptr() as usize - t.as_ptr() as usize;
            assert!(start + a.len() <= t.len(), "{t:?}");
        }
    }

    #[test]
    fn plain_text_is_all_answer() {
        let s = split("p ∧ q");
        assert_eq!((s.reasoning, s.answer, s.unclosed), (None, "p ∧ q", false));
        // A tag in the middle of prose without a close is not a block.
        assert_eq!(split("use <think> tags").answer, "use <think> tags");
    }

    #[test]
    fn thinking_tags_and_harmony_channels() {
        let s = split("<thinking>hm</thinking>ok");
        assert_eq!((s.reasoning, s.answer), (Some("hm"), "ok"));
        let h = "<|channel|>analysis<|message|>draft p<|end|><|start|>assistant<|channel|>final<|message|>q ∨ r<|return|>";
        let s = split(h);
        assert_eq!(s.answer, "q ∨ r");
        assert_eq!(clean(s.reasoning.unwrap()), "draft p");
    }
}
