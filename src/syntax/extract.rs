//! Pulling a formula out of model chatter.
//!
//! The rule, in order:
//! 1. **Headers.** If the reply holds prompt headers (a line that is a bracketed
//!    upper-case word: `[TASK]`, `[VOCABULARY]`, `[EXAMPLE 3]`, `[NL DESCRIPTION]`,
//!    `[FORMULA]`), only the text after the last one counts, and only when that header
//!    introduces an answer (`[FORMULA]`, `[ANSWER]`, `[OUTPUT]`, `[RESULT]`,
//!    `[SOLUTION]`, `[REGEX]`, `[FOL]`). After any other header the model is
//!    continuing the prompt template: the reply is off-format.
//! 2. **Region.** If the text has fenced code blocks (```` ``` ````), the region is the
//!    last non-empty fenced block. Otherwise, if a line starts with a label
//!    (`Formula:`, `Answer:`, `Final answer:`, `Output:`, `Result:`, `Regex:`,
//!    `FOL:`, `Expression:`; any case, optional `**` bold), the region is what
//!    follows the last such label (the rest of its line, or the next non-empty
//!    line when that is empty). Otherwise the region is the whole text.
//! 3. **Candidates**, tried in order; the first that parses and is accepted wins:
//!    the whole region; each non-empty line of it; each line cut before an
//!    explanation marker (` where `, ` which `, ` meaning `, `; `, ` -- `, ` — `,
//!    ` # `, ` //`, `, where`, ` (where`); each line after its first and its last
//!    `: `, whole and cut before a marker. A colon that ends an English quantifier
//!    (`For all x1:`) is not a split point. For regexes, tokens of a line that hold
//!    a regex operator are candidates too, last first (`The answer is (01)*0`).
//!    Every candidate is trimmed of surrounding backticks, `$`/`$$`, `\[ \]`,
//!    `\( \)`, quotes, a Markdown list marker (`- `, `* `, `1. `: a bullet, not ¬)
//!    and one trailing `.` or `;`; regex candidates also of `^…$` anchors and `/…/`
//!    delimiters. In LaTeX candidates, subscripts belong to the name (`p_1`,
//!    `x_{2}` read as `p1`, `x2`).
//! 4. **Never a formula** (skipped, and named in the error if nothing else is
//!    accepted): a header line; text echoed from the prompt (a candidate with an
//!    operator that equals a prompt line outside the description, or what follows
//!    that line's `: `, as in a worked example's `Formula: …`); a candidate whose
//!    symbols share nothing with the prompt's vocabulary (`VOCABULARY`, `x ∧ y`,
//!    `True`). Brackets are not parentheses in any notation we read.
//! 5. For regexes, a candidate that reads as prose (two or more
//!    whitespace-separated words, one of them with two or more letters) is
//!    skipped, because the regex syntax would otherwise accept English words.
//! 6. If nothing is accepted, the reply is `unparseable`: "off-format: …" when a
//!    candidate parsed but was refused by rule 4 or a header made it off-format,
//!    else the first parse error, with its position in the original text.
//!
//! The span of the candidate taken is recorded (`phi1_span`), so a reviewer sees which
//! part of a reply with several candidates became φ₁.

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
        let body_start = after.find('\n').map_or(0, |i| i + 1);
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
        s = strip_list_marker(s);
        if let Some(x) = s.strip_suffix('.').or_else(|| s.strip_suffix(';')) {
            s = x.trim_end();
        }
        if s == before {
            return s;
        }
    }
}

/// A Markdown list marker at the start (`- `, `* `, `• `, `1. `, `2) `): a bullet, not ¬.
fn strip_list_marker(s: &str) -> &str {
    for m in ["- ", "* ", "• "] {
        if let Some(rest) = s.strip_prefix(m) {
            return rest.trim_start();
        }
    }
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=3).contains(&digits)
        && let Some(rest) = s[digits..]
            .strip_prefix(". ")
            .or_else(|| s[digits..].strip_prefix(") "))
    {
        return rest.trim_start();
    }
    s
}

/// Regex delimiters that mean "the whole string": `^…$` anchors and `/…/` slashes.
fn strip_regex_delimiters(s: &str) -> &str {
    let mut t = s;
    if let Some(x) = t.strip_prefix('/').and_then(|x| x.strip_suffix('/')) {
        t = x;
    }
    t = t.strip_prefix('^').unwrap_or(t);
    t.strip_suffix('$').unwrap_or(t)
}

/// LaTeX subscripts in names (`p_1`, `x_{2}`) written as the plain name (`p1`, `x2`),
/// only in LaTeX candidates, where `_` is a subscript and not part of a name.
fn latex_subscripts(s: &str) -> Option<String> {
    if !s.contains('\\') || !s.contains('_') {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('_') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (inner, skip) = if let Some(b) = after.strip_prefix('{') {
            match b.find('}') {
                Some(j) => (&b[..j], j + 2),
                None => ("", 0),
            }
        } else {
            let n = after.bytes().take_while(u8::is_ascii_digit).count();
            (&after[..n], n)
        };
        if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_alphanumeric()) {
            out.push_str(inner);
            rest = &after[skip..];
        } else {
            out.push('_');
            rest = after;
        }
    }
    out.push_str(rest);
    Some(out)
}

/// A colon that ends an English quantifier (`For all x1: …`) belongs to the formula:
/// the text after it is not a candidate on its own.
fn ends_in_quantifier(prefix: &str) -> bool {
    let words: Vec<String> = prefix
        .split_whitespace()
        .rev()
        .take(3)
        .map(str::to_lowercase)
        .collect();
    let w = |i: usize| words.get(i).map_or("", String::as_str);
    matches!(
        w(1),
        "all" | "every" | "each" | "some" | "forall" | "exists" | "any"
    ) || matches!(w(2), "there" | "for")
        || w(0).starts_with('∀')
        || w(0).starts_with('∃')
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

/// Headers after which a model's own answer may follow.
const ANSWER_HEADERS: [&str; 9] = [
    "FORMULA",
    "ANSWER",
    "FINAL ANSWER",
    "OUTPUT",
    "RESULT",
    "SOLUTION",
    "REGEX",
    "REGULAR EXPRESSION",
    "FOL",
];

/// When the reply holds prompt headers, the text after the last one if that header
/// introduces an answer (`[FORMULA]`), else the header that makes the reply off-format.
fn after_headers(raw: &str) -> Option<Result<&str, &str>> {
    let mut last = None;
    let mut at = 0;
    for line in raw.split_inclusive('\n') {
        if is_header(line) {
            last = Some((line.trim(), at + line.len()));
        }
        at += line.len();
    }
    let (h, end) = last?;
    let name = h.trim_matches(['*', '#', ' ', '[', ']']);
    Some(if ANSWER_HEADERS.contains(&name) {
        Ok(&raw[end..])
    } else {
        Err(h)
    })
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
        let mut echo = Vec::new();
        for l in prompt.lines().map(str::trim) {
            if l.is_empty() || psi.contains(l) {
                continue;
            }
            echo.push(clean(l).to_string());
            // `Formula: (p1 ∧ ¬p2) ∨ p3` in a worked example echoes as its formula.
            if let Some(i) = l.rfind(": ") {
                echo.push(clean(&l[i + 2..]).to_string());
            }
        }
        Context { vocabulary, echo }
    }

    /// Why `cand` (whose symbols are `names`) is not the model's answer, if it is not.
    /// Only candidates with an operator count as echoes: an atom such as `p8` is also
    /// listed in the vocabulary and may well be the right answer.
    fn refuse(&self, cand: &str, names: &[String]) -> Option<String> {
        let has_op = cand
            .chars()
            .any(|c| !c.is_alphanumeric() && c != '_' && c != '\'');
        if has_op && self.echo.iter().any(|l| l == cand) {
            return Some(format!("off-format: '{}' echoes the prompt", short(cand)));
        }
        if !self.vocabulary.is_empty()
            && !names.is_empty()
            && !names
                .iter()
                .any(|n| super::notation::in_vocabulary(n, &self.vocabulary))
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
pub fn extract_in<'a, T>(
    raw: &'a str,
    regex_mode: bool,
    ctx: &Context,
    parse: impl Fn(&str) -> Result<T, ParseError>,
    names: impl Fn(&T) -> Vec<String>,
) -> Result<Extracted<T>, ParseError> {
    let scope = match after_headers(raw) {
        Some(Ok(rest)) => rest,
        Some(Err(h)) => {
            return Err(ParseError::new(
                offset_in(raw, h),
                format!("off-format: the reply continues the prompt template (last header {h})"),
            ));
        }
        None => raw,
    };
    let region = fenced_region(scope)
        .or_else(|| label_region(scope))
        .unwrap_or(scope);
    let mut candidates: Vec<&str> = vec![region];
    let lines: Vec<&str> = region
        .lines()
        .filter(|l| !l.trim().is_empty() && !is_header(l))
        .collect();
    if lines.len() > 1 || region.lines().any(is_header) {
        candidates.extend(lines.iter().copied());
    }
    let cut = |line: &'a str, out: &mut Vec<&'a str>| {
        for m in MARKERS {
            if let Some(i) = line.find(m) {
                out.push(&line[..i]);
            }
        }
    };
    for line in &lines {
        cut(line, &mut candidates);
    }
    for line in &lines {
        let colons = [line.find(": "), line.rfind(": ")];
        for i in colons.into_iter().flatten() {
            if ends_in_quantifier(&line[..i]) {
                continue;
            }
            let after = &line[i + 2..];
            candidates.push(after);
            cut(after, &mut candidates);
        }
    }
    if regex_mode {
        // In prose ("The answer is (01)*0"), a token with a regex operator, last first.
        for line in &lines {
            for tok in line.split_whitespace().rev() {
                if tok.contains(['*', '+', '?', '|', '(']) {
                    candidates.push(tok);
                }
            }
        }
    }
    let mut first_err = None;
    let mut refused: Option<ParseError> = None;
    for cand in candidates {
        let mut c = clean(cand);
        if regex_mode {
            c = clean(strip_regex_delimiters(c));
        }
        if c.is_empty() || is_header(c) || (regex_mode && is_prose(c)) {
            continue;
        }
        let rewritten = latex_subscripts(c);
        match parse(rewritten.as_deref().unwrap_or(c)) {
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
        assert_eq!(&raw[err.pos..=err.pos], ")");
        assert!(err.reason.contains("unbalanced"));
    }

    #[test]
    fn regex_prose_is_not_a_regex() {
        assert!(extract_with("Zero or more 0s then a 1", true, parse_regex).is_err());
        let r = extract_with("The answer is 0*1", true, parse_regex).expect("token");
        assert_eq!(crate::syntax::print_regex(&r.value, false), "0*1");
        assert!(extract_with("The string 001.", true, parse_regex).is_err());
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
