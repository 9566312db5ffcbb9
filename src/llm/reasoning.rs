//! Keeping a model's reasoning apart from its answer: inline `<think>…</think>` blocks
//! under any tag the profile names (split at the last closing tag, also when the opening
//! tag is missing, as DeepSeek-R1 writes them), unclosed blocks (the reasoning ran out of
//! tokens), and gpt-oss's harmony channels when a server passes them through raw.

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

/// Inline reasoning tags read when the profile names none: `<think>` (DeepSeek-R1,
/// Qwen3, QwQ), `<thinking>`, `<thought>` (Gemini's OpenAI-compatible endpoint with
/// `include_thoughts`) and `<reasoning>`.
pub const DEFAULT_TAGS: [&str; 4] = ["think", "thinking", "thought", "reasoning"];

/// Longest tag name accepted (a tag is data from the user's profiles or flags).
pub const MAX_TAG_LEN: usize = 40;

/// Checks a tag name: letters, digits, `_`, `-`, `:` and `.`, at most [`MAX_TAG_LEN`].
pub fn check_tag(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_TAG_LEN
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "reasoning tag {:?} is not a tag name: give the name alone (like thought for \
             <thought>…</thought>), letters, digits, '_', '-', ':' or '.', at most {MAX_TAG_LEN}",
            crate::base::sanitize::one_line(name)
        ))
    }
}

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

/// Splits `text` into reasoning and answer with the default tags ([`split_with`]).
pub fn split(text: &str) -> Split<'_> {
    split_with(text, &DEFAULT_TAGS)
}

/// Splits `text` into reasoning and answer, reading inline blocks under `tags` (names
/// without brackets). The answer is what follows the *last* closing tag, so a draft
/// formula inside the reasoning never reaches scoring; when nothing follows it, an
/// answer written before the block's opening tag is the answer. It is always a slice of
/// `text` (so callers can map its positions back).
pub fn split_with<'a, S: AsRef<str>>(text: &'a str, tags: &[S]) -> Split<'a> {
    let b = text.as_bytes();
    let pairs: Vec<(String, String)> = tags
        .iter()
        .map(|t| (format!("<{}>", t.as_ref()), format!("</{}>", t.as_ref())))
        .collect();
    let closing = pairs
        .iter()
        .filter_map(|(open, close)| {
            memmem::rfind(b, close.as_bytes()).map(|i| (i, open.as_str(), close.len()))
        })
        .max_by_key(|(i, _, _)| *i);
    if let Some((i, open, len)) = closing {
        let before = &text[..i];
        let after = &text[i + len..];
        // The block's opening tag, if written: text before it is not reasoning.
        let (prefix, inner) = match memmem::find(before.as_bytes(), open.as_bytes()) {
            Some(j) => (&text[..j], &before[j + open.len()..]),
            None => (&text[..0], before),
        };
        let answer = if after.trim().is_empty() && !prefix.trim().is_empty() {
            prefix
        } else {
            after
        };
        return Split {
            reasoning: Some(inner.trim()),
            answer,
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
    for (open, _) in &pairs {
        if let Some(rest) = start.strip_prefix(open.as_str()) {
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
    fn an_answer_before_the_block_is_kept() {
        let s = split("p ∨ q\n<think>check: p ∧ q?</think>");
        assert_eq!(s.answer.trim(), "p ∨ q");
        assert_eq!(s.reasoning, Some("check: p ∧ q?"));
        // With an answer after the block too, the later one is the answer.
        let s = split("draft\n<think>no</think>final");
        assert_eq!(s.answer, "final");
    }

    #[test]
    fn tags_are_data() {
        let s = split("<thought>Answer: p1 ∧ ¬p1</thought>p ∨ q");
        assert_eq!((s.reasoning, s.answer), (Some("Answer: p1 ∧ ¬p1"), "p ∨ q"));
        let s = split_with("<mind>x</mind>y", &["mind"]);
        assert_eq!((s.reasoning, s.answer), (Some("x"), "y"));
        assert_eq!(split("<mind>x</mind>y").answer, "<mind>x</mind>y");
        assert!(check_tag("thought").is_ok());
        for bad in ["", "<think>", "a b", &"x".repeat(41)] {
            assert!(check_tag(bad).is_err(), "{bad}");
        }
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
