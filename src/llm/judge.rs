//! Parsing the LLM-as-judge answer.

/// The judge's decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JudgeAnswer {
    /// Equivalent.
    Yes,
    /// Not equivalent.
    No,
    /// No well-formed `[Answer]` found.
    Unparseable,
}

/// Reads the last `[Answer]` marker and the whole word after it (`yes` or `no`, any case,
/// optional `:` and trailing punctuation). Anything else is unparseable.
pub(crate) fn parse_answer(text: &str) -> JudgeAnswer {
    let lower = text.to_ascii_lowercase();
    let Some(i) = lower.rfind("[answer]") else {
        return JudgeAnswer::Unparseable;
    };
    let rest = lower[i + "[answer]".len()..]
        .trim_start()
        .trim_start_matches(':')
        .trim_start();
    let word: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
    let after = rest[word.len()..].chars().next();
    let clean_end = after.is_none_or(|c| !c.is_alphanumeric());
    match (word.as_str(), clean_end) {
        ("yes", true) => JudgeAnswer::Yes,
        ("no", true) => JudgeAnswer::No,
        _ => JudgeAnswer::Unparseable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_last_marker_whole_word() {
        assert_eq!(parse_answer("They match.\n[Answer] yes"), JudgeAnswer::Yes);
        assert_eq!(
            parse_answer("[Answer] no\n...\n[Answer]: YES."),
            JudgeAnswer::Yes
        );
        assert_eq!(
            parse_answer("[Answer] yes\nwait, [Answer] no"),
            JudgeAnswer::No
        );
        assert_eq!(parse_answer("[Answer] yesno"), JudgeAnswer::Unparseable);
        assert_eq!(parse_answer("[Answer] maybe"), JudgeAnswer::Unparseable);
        assert_eq!(parse_answer("yes"), JudgeAnswer::Unparseable);
        assert_eq!(parse_answer("[Answer]"), JudgeAnswer::Unparseable);
    }
}
