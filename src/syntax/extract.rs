//! Pulling a formula out of model chatter.
//!
//! The rule, in order:
//! 1. **Region.** If the text has fenced code blocks (```` ``` ````), the region is the
//!    last non-empty fenced block. Otherwise, if a line starts with a label
//!    (`Formula:`, `Answer:`, `Final answer:`, `Output:`, `Result:`, `Regex:`,
//!    `FOL:`, `Expression:`; any case, optional `**` bold), the region is what
//!    follows the last such label (the rest of its line, or the next non-empty
//!    line when that is empty). Otherwise the region is the whole text.
//! 2. **Candidates**, tried in order; the first that parses and is accepted wins:
//!    the whole region; each non-empty line of it; each line cut before an
//!    explanation marker (` where `, ` which `, ` meaning `, `; `, ` -- `, ` — `,
//!    ` # `, ` //`, `, where`, ` (where`); each line after its last `: `.
//!    Every candidate is trimmed of surrounding backticks, `$`/`$$`, `\[ \]`,
//!    `\( \)`, quotes, and one trailing `.` or `;`.
//! 3. **Never a formula** (skipped, and named in the error if nothing else is found):
//!    prompt headers (`[TASK]`, `[VOCABULARY]`, `[FORMULA]`, `[NL DESCRIPTION]`,
//!    `[EXAMPLE n]`, any line that is a bracketed upper-case word), text echoed from
//!    the prompt (a candidate equal to a line of the prompt that is not part of the
//!    description), and candidates whose symbols share nothing with the prompt's
//!    vocabulary. Brackets are not parentheses in any notation we read.
//! 4. For regexes, a candidate that reads as prose (two or more
//!    whitespace-separated words, one of them with two or more letters) is
//!    skipped, because the regex syntax would otherwise accept English words.
//! 5. If nothing is accepted, the reply is `unparseable`: "off-format: …" when a
//!    candidate parsed but was refused by rule 3, else the first parse error, with
//!    its position in the original text.

use super::error::ParseError;

/// A value parsed out of raw text, with the byte span it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Extracted<T> {
    /// The parsed value.
    pub value: T,
    /// Byte offset of the span in the raw text.
    pub start: usize,
    /// Byte offset just past the span.
    pub end: usize,
}

const LABELS: [&str; 9] = [
    "final answer",
    "formula",
    "answer",
    "output",
    "result",
    "regex",
    "fol",
    "expression",
    "regular expression",
];

const MARKERS: [&str; 10] = [
    " where ",
    " which ",
    " meaning ",
    "; ",
    " -- ",
    " — ",
    " # ",
    " //",
    ", where",
    " (where",
];

fn offset_in(raw: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(raw.as_ptr() as usize)
}

fn fenced_region(raw: &str) -> Option<&str> {
    let mut best = None;
    let mut rest = raw;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        // Skip the info string (language tag) on the opening line.
        let body_start = after.find('\n').map(|i| i + 1).unwrap_or(0);
        let tag = &after[..body_start];
        let body_start = if tag
            .trim()
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            body_start
        } else {
            0
        };
        let body = &after[body_start..];
        let Some(close) = body.find("```") else { break };
        let content = &body[..close];
        if !content.trim().is_empty() {
            best = Some(content);
        }
        rest = &body[close + 3..];
    }
    best
}

fn label_region(raw: &str) -> Option<&str> {
    let mut best = None;
    let mut lines = raw.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start().trim_start_matches(['*', '#', '-', ' ']);
        let lower = t.to_ascii_lowercase();
        for label in LABELS {
            if lower.starts_with(label) {
                let after = &t[label.len()..];
                let after_trim = after.trim_start_matches(['*', ' ']);
                if let Some(body) = after_trim.strip_prefix(':') {
                    let body = body.trim_start_matches(['*', ' ']);
                    if body.trim().is_empty() {
                        best = lines.peek().copied().filter(|l| !l.trim().is_empty());
                    } else {
                        best = Some(body);
                    }
                    break;
                }
            }
        }
    }
    best
}

fn clean(s: &str) -> &str {
    let mut s = s.trim();
    loop {
        let before = s;
        for (l, r) in [
            ("$$", "$$"),
            ("\\[", "\\]"),
            ("\\(", "\\)"),
            ("`", "`"),
            ("$", "$"),
            ("\"", "\""),
            ("'", "'"),
            ("“", "”"),
        ] {
            if s.len() >= l.len() + r.len() && s.starts_with(l) && s.ends_with(r) {
                s = s[l.len()..s.len() - r.len()].trim();
            }
        }
        s = s.trim_start_matches('`').trim_end_matches('`').trim();
        if let Some(x) = s.strip_suffix('.').or_else(|| s.strip_suffix(';')) {
            s = x.trim_end();
        }
        if s == before {
            return s;
        }
    }
}

fn is_prose(s: &str) -> bool {
    let words: Vec<&str> = s.split_whitespace().collect();
    words.len() >= 2
        && words
            .iter()
            .any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
}

/// Whether a trimmed line is a prompt header such as `[TASK]` or `[EXAMPLE 2]`.
pub fn is_header(line: &str) -> bool {
    let t = line.trim().trim_matches(['*', '#', ' ']);
    let Some(inner) = t.strip_prefix('[').and_then(|x| x.strip_suffix(']')) else {
        return false;
    };
    !inner.is_empty()
        && inner.chars().any(|c| c.is_ascii_uppercase())
        && inner
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || " _-".contains(c))
}

/// What the prompt told the model, for refusing candidates that are not its answer.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// The symbols the prompt's vocabulary lists (empty: no vocabulary check).
    pub vocabulary: Vec<String>,
    /// Prompt lines (trimmed, without the description) that an answer must not echo.
    pub echo: Vec<String>,
}

impl Context {
    /// A context from the prompt text and the description ψ inside it.
    pub fn new(vocabulary: Vec<String>, prompt: &str, psi: &str) -> Context {
        let echo = prompt
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !psi.contains(*l))
            .map(str::to_string)
            .collect();
        Context { vocabulary, echo }
    }

    fn refuse(&self, cand: &str, names: &[String]) -> Option<String> {
        if self.echo.iter().any(|l| clean(l) == cand) {
            return Some(format!("off-format: '{}' echoes the prompt", short(cand)));
        }
        if !self.vocabulary.is_empty()
            && !names.is_empty()
            && !names.iter().any(|n| self.vocabulary.contains(n))
        {
            return Some(format!(
                "off-format: the symbols of '{}' share nothing with the prompt's vocabulary",
                short(cand)
            ));
        }
        None
    }
}

fn short(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// Finds and parses the formula in `raw` with `parse`, following the module's rule;
/// `names` lists a parsed value's symbols for the vocabulary check.
pub fn extract_with<T>(
    raw: &str,
    regex_mode: bool,
    parse: impl Fn(&str) -> Result<T, ParseError>,
) -> Result<Extracted<T>, ParseError> {
    extract_in(raw, regex_mode, &Context::default(), parse, |_| Vec::new())
}

/// [`extract_with`] under a prompt [`Context`].
pub fn extract_in<T>(
    raw: &str,
    regex_mode: bool,
    ctx: &Context,
    parse: impl Fn(&str) -> Result<T, ParseError>,
    names: impl Fn(&T) -> Vec<String>,
) -> Result<Extracted<T>, ParseError> {
    let region = fenced_region(raw)
        .or_else(|| label_region(raw))
        .unwrap_or(raw);
    let mut candidates: Vec<&str> = vec![region];
    let lines: Vec<&str> = region
        .lines()
        .filter(|l| !l.trim().is_empty() && !is_header(l))
        .collect();
    if lines.len() > 1 || region.lines().any(is_header) {
        candidates.extend(lines.iter().copied());
    }
    for line in &lines {
        for m in MARKERS {
            if let Some(i) = line.find(m) {
                candidates.push(&line[..i]);
            }
        }
    }
    for line in &lines {
        if let Some(i) = line.rfind(": ") {
            candidates.push(&line[i + 2..]);
        }
    }
    let mut first_err = None;
    let mut refused: Option<ParseError> = None;
    for cand in candidates {
        let c = clean(cand);
        if c.is_empty() || is_header(c) || (regex_mode && is_prose(c)) {
            continue;
        }
        match parse(c) {
            Ok(value) => {
                let start = offset_in(raw, c);
                if let Some(why) = ctx.refuse(c, &names(&value)) {
                    refused.get_or_insert(ParseError::new(start, why));
                    continue;
                }
                return Ok(Extracted {
                    value,
                    start,
                    end: start + c.len(),
                });
            }
            Err(e) => {
                if first_err.is_none() {
                    first_err = Some(e.shifted(offset_in(raw, c)));
                }
            }
        }
    }
    if let Some(r) = refused {
        return Err(r);
    }
    if let Some(h) = raw.lines().find(|l| is_header(l)) {
        let h = h.trim();
        return Err(ParseError::new(
            offset_in(raw, h),
            format!("off-format: the reply repeats the prompt's header {h} and holds no formula"),
        ));
    }
    Err(first_err.unwrap_or_else(|| {
        if raw.trim().is_empty() {
            ParseError::new(0, "empty output")
        } else {
            ParseError::new(offset_in(raw, region), "no formula found in the output")
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Notation, parse_formula, parse_regex, print_formula};

    fn logic(raw: &str) -> String {
        let e = extract_with(raw, false, parse_formula).expect("extracts");
        print_formula(&e.value, Notation::Unicode)
    }

    #[test]
    fn fences_labels_and_trailing_text() {
        assert_eq!(logic("Sure!\n```\np1 & p2\n```\nHope it helps."), "p1 ∧ p2");
        assert_eq!(logic("```logic\n(p1 | ~p2)\n```"), "p1 ∨ ¬p2");
        assert_eq!(logic("Formula: p1 ∧ p2"), "p1 ∧ p2");
        assert_eq!(logic("**Answer:** `¬p3`."), "¬p3");
        assert_eq!(logic("Final answer:\n\n$p1 \\lor p2$"), "p1 ∨ p2");
        assert_eq!(logic("p1 ∧ p2 where p1 means rain"), "p1 ∧ p2");
        assert_eq!(logic("Here is the formula: p1 -> p2"), "p1 → p2");
        assert_eq!(logic("p1 v p2\nThis says one of them holds."), "p1 ∨ p2");
    }

    #[test]
    fn positions_are_in_raw_text() {
        let raw = "Formula: (p1 ∧ p2))";
        let err = extract_with(raw, false, parse_formula).unwrap_err();
        assert_eq!(&raw[err.pos..err.pos + 1], ")");
        assert!(err.reason.contains("unbalanced"));
    }

    #[test]
    fn regex_prose_is_not_a_regex() {
        let r = extract_with("The answer is 0*1", true, parse_regex);
        assert!(r.is_err());
        let r = extract_with("Regex: (01)*0", true, parse_regex).expect("label");
        assert_eq!(crate::syntax::print_regex(&r.value, false), "(01)*0");
    }

    #[test]
    fn empty_output() {
        assert_eq!(
            extract_with("  ", false, parse_formula).unwrap_err().reason,
            "empty output"
        );
    }
}
