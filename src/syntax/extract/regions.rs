//! Where a reply marks its answer: prompt headers, fenced blocks, tags, JSON keys,
//! labels, answer phrases and bold text (rules 1 and 2 of [`super`]).

use super::{is_header, offset_in};

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

/// Every non-empty fenced code block, in order.
fn fenced_regions(raw: &str) -> Vec<&str> {
    let mut best = Vec::new();
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
            best.push(content);
        }
        rest = &body[close + 3..];
    }
    best
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

/// How far the formula spans of a marked region count (the span rule of [`super`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reach {
    /// Any span of the region: it is marked as the answer.
    Any,
    /// Only a span that ends the region's sentence: `so`, `therefore`, `hence` sum up
    /// with what ends the sentence (`So ¬p2 is the negated part` names no answer).
    /// `quiet`: prose after the word names no parse error (all but `therefore` and
    /// `thus`, whose errors were always named).
    Tail {
        /// Whether a parse error in the region is not the one to name.
        quiet: bool,
    },
    /// Any span, after a word that marks an answer only when one follows (`finally`,
    /// `actually`): prose after it names no parse error.
    Quiet,
}

/// Summary words after which only a formula ending the sentence is the answer.
const TAIL_PHRASES: [&str; 9] = [
    "therefore",
    "thus",
    "hence",
    "so",
    "which gives",
    "this gives",
    "we get",
    "giving",
    "yields",
];

/// Answer phrases that mark what follows them on the line (or the next line) as the
/// answer, with or without a colon; matched in any case, as whole words.
const PHRASES: [&str; 30] = [
    "the final answer is",
    "the answer is",
    "the final formula is",
    "the formula is",
    "the regular expression is",
    "the regex is",
    "the expression is",
    "formal expression is",
    "the resulting formula is",
    "the resulting expression is",
    "the resulting regex is",
    "resulting formula",
    "so we get",
    "φ₁ :=",
    "φ1 :=",
    "φ :=",
    "phi1 :=",
    "φ₁ =",
    "φ1 =",
    "φ =",
    "phi1 =",
    "therefore",
    "thus",
    "hence",
    "which gives",
    "this gives",
    "we get",
    "giving",
    "yields",
    "so",
];

/// Words that mark a line as correcting or summing up what came before: the answer
/// after the last of them supersedes every earlier one (a retracted answer never wins).
const FINAL_MARKERS: [&str; 31] = [
    "wait",
    "correct expression",
    "correct regular expression",
    "corrected",
    "correction",
    "revised",
    "final",
    "finally",
    "actually",
    "on second thought",
    "update",
    "fixed",
    "putting it together",
    "putting it all together",
    "putting everything together",
    "combining",
    "final formula",
    "final answer",
    "final regex",
    "final expression",
    "in summary",
    "complete formula",
    "complete regex",
    "complete expression",
    "full formula",
    "full regex",
    "full expression",
    "should be",
    "correct formula",
    "correct answer",
    "correct regex",
];

/// Markers that mark an answer only when a formula follows: a reply describing a
/// formula says `finally` too, and the parse error of its prose is not the one to name.
const QUIET_MARKERS: [&str; 7] = [
    "wait",
    "final",
    "finally",
    "actually",
    "on second thought",
    "update",
    "fixed",
];

/// Keys of a JSON object whose string value is the answer.
const JSON_KEYS: [&str; 5] = ["formula", "answer", "fol", "regex", "expression"];

/// Tags whose content is the answer.
const TAGS: [&str; 2] = ["formula", "answer"];

/// How prompt headers cut a reply.
pub(super) struct HeaderScopes<'a> {
    /// The text before the first header, when not blank: the model's own answer, with
    /// the template it went on to continue ignored.
    pub(super) before: Option<&'a str>,
    /// The text after the last header when that header introduces an answer
    /// (`[FORMULA]`), from the header's own line when the answer follows it there
    /// (`[FORMULA] p1 ∧ p2`).
    pub(super) answer: Option<&'a str>,
    /// The last header.
    pub(super) last: &'a str,
}

/// An answer header at the start of a line with the answer after it on the same line.
fn inline_answer_header(line: &str) -> Option<usize> {
    let t = line.trim_start();
    let inner_end = t.strip_prefix('[')?.find(']')? + 1;
    let name = &t[1..inner_end];
    let rest = &t[inner_end + 1..];
    (ANSWER_HEADERS.contains(&name) && !rest.trim().is_empty())
        .then(|| line.len() - t.len() + inner_end + 1)
}

pub(super) fn header_scopes(raw: &str) -> Option<HeaderScopes<'_>> {
    let mut first = None;
    // The last header: its line, and where an answer after it starts (None: not an
    // answer header).
    let mut last: Option<(&str, Option<usize>)> = None;
    let mut at = 0;
    for line in raw.split_inclusive('\n') {
        let inline = inline_answer_header(line);
        if is_header(line) || inline.is_some() {
            first.get_or_insert(at);
            let name = line.trim().trim_matches(['*', '#', ' ']);
            let name = name
                .strip_prefix('[')
                .and_then(|x| x.split(']').next())
                .unwrap_or("");
            let answer = match inline {
                Some(k) => Some(at + k),
                None => ANSWER_HEADERS.contains(&name).then_some(at + line.len()),
            };
            last = Some((line.trim(), answer));
        }
        at += line.len();
    }
    let first = first?;
    let (last, answer) = last?;
    Some(HeaderScopes {
        before: Some(&raw[..first]).filter(|b| !b.trim().is_empty()),
        answer: answer.map(|s| &raw[s..]),
        last,
    })
}

/// Regions a reply marks as its answer, by class in order of trust: what follows a
/// correction or summary marker; fenced blocks; tags and JSON answer keys; labels and
/// answer phrases; bold text.
pub(super) fn marked_regions(scope: &str) -> [Vec<(&str, Reach)>; 5] {
    let fences = fenced_regions(scope);
    let mut containers = tag_regions(scope);
    containers.extend(json_regions(scope));
    containers.sort_by_key(|r| offset_in(scope, r));
    [
        final_regions(scope),
        any(fences),
        any(containers),
        label_regions(scope),
        any(bold_regions(scope)),
    ]
}

/// Regions whose every formula span counts.
fn any(v: Vec<&str>) -> Vec<(&str, Reach)> {
    v.into_iter().map(|r| (r, Reach::Any)).collect()
}

/// Where a whole-word `m` occurs in `lower` (not inside `uncorrected`, `finalize`, `also`).
pub(super) fn word_at(lower: &str, m: &str) -> Vec<usize> {
    let whole = |i: &usize| {
        let before = lower.get(..*i).and_then(|s| s.chars().next_back());
        let after = lower.get(i + m.len()..).and_then(|s| s.chars().next());
        before.is_none_or(|c| !c.is_alphanumeric()) && after.is_none_or(|c| !c.is_alphanumeric())
    };
    if m.is_empty() {
        return lower
            .match_indices(m)
            .map(|(i, _)| i)
            .filter(whole)
            .collect();
    }
    // Most markers are absent from most lines: ruled out by a scan for their first
    // byte, before a searcher is built.
    let (h, n) = (lower.as_bytes(), m.as_bytes());
    let occurs = n.split_first().is_some_and(|(first, tail)| {
        memchr::memchr_iter(*first, h).any(|i| h.get(i + 1..i + n.len()) == Some(tail))
    });
    if !occurs {
        return Vec::new();
    }
    // The same non-overlapping matches as `match_indices`, found without building a
    // two-way searcher per call (every reply line is searched for dozens of markers).
    memchr::memmem::find_iter(lower.as_bytes(), m.as_bytes())
        .filter(whole)
        .collect()
}

/// The text after each correction or summary marker (rule 2), the last marker's first
/// in the caller's order: the rest of the marker's line after its colon (or after the
/// marker), and the following lines up to the next blank line, each a region. When the
/// last marker marks no formula, the one before it is read, and so on.
fn final_regions(scope: &str) -> Vec<(&str, Reach)> {
    let lines: Vec<&str> = scope.split_inclusive('\n').collect();
    let mut out: Vec<(&str, Reach)> = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let lower = line.to_lowercase();
        let found: Vec<(usize, &str)> = FINAL_MARKERS
            .iter()
            .filter_map(|m| word_at(&lower, m).last().map(|i| (i + m.len(), *m)))
            .collect();
        let Some(cut) = found.iter().map(|f| f.0).max() else {
            continue;
        };
        let reach = if found.iter().all(|f| QUIET_MARKERS.contains(&f.1)) {
            Reach::Quiet
        } else {
            Reach::Any
        };
        let mut rest = if lower.len() == line.len() && line.is_char_boundary(cut) {
            &line[cut..]
        } else {
            line
        };
        if let Some(i) = rest.find(':') {
            rest = &rest[i + 1..];
        }
        // `**Final formula:** X`, `In summary, X`.
        rest = rest.trim_start_matches(['*', ' ', ',', ':']);
        let mut mine: Vec<&str> = Vec::new();
        if !rest.trim().trim_matches(['*', ' ', ')', '(']).is_empty() {
            mine.push(rest);
        }
        for l in &lines[k + 1..] {
            if l.trim().is_empty() {
                if mine.is_empty() {
                    continue;
                }
                break;
            }
            mine.push(l);
        }
        // The caller tries the last region first: the first line after the marker is
        // the answer when it parses, so it goes last, and a later marker's after it.
        mine.reverse();
        out.extend(mine.into_iter().map(|r| (r, reach)));
    }
    out
}

fn tag_regions(scope: &str) -> Vec<&str> {
    let lower = scope.to_ascii_lowercase();
    let mut out = Vec::new();
    for tag in TAGS {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        let mut from = 0;
        while let Some(i) = lower[from..].find(&open) {
            let s = from + i + open.len();
            let Some(j) = lower[s..].find(&close) else {
                break;
            };
            out.push(&scope[s..s + j]);
            from = s + j + close.len();
        }
    }
    out
}

fn json_regions(scope: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (i, _) in scope.match_indices('{') {
        let mut de =
            serde_json::Deserializer::from_str(&scope[i..]).into_iter::<serde_json::Value>();
        let Some(Ok(serde_json::Value::Object(o))) = de.next() else {
            continue;
        };
        for (k, v) in &o {
            if !JSON_KEYS.contains(&k.to_ascii_lowercase().as_str()) {
                continue;
            }
            // The value as written in the reply (escaped JSON strings are not read).
            if let Some(v) = v.as_str()
                && !v.trim().is_empty()
                && let Some(j) = scope[i..].find(v)
            {
                out.push(&scope[i + j..i + j + v.len()]);
            }
        }
    }
    out
}

/// Text after a label at a line's start (`Formula:`) or an answer phrase anywhere in a
/// line (`So the formula is`), to the end of the line or on the next non-empty line.
fn label_regions(scope: &str) -> Vec<(&str, Reach)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = scope.split_inclusive('\n').collect();
    let next_line = |k: usize| {
        lines[k + 1..]
            .iter()
            .find(|l| !l.trim().is_empty())
            .copied()
    };
    for (k, line) in lines.iter().enumerate() {
        let t = line.trim_start().trim_start_matches(['*', '#', '-', ' ']);
        let lower = t.to_lowercase();
        let mut body: Option<(&str, Reach)> = None;
        for label in LABELS {
            if lower.starts_with(label) && lower.is_char_boundary(label.len()) {
                let after = t[label.len()..].trim_start_matches(['*', ' ']);
                if let Some(b) = after.strip_prefix(':') {
                    body = Some((b, Reach::Any));
                    break;
                }
            }
        }
        if body.is_none() {
            for phrase in PHRASES {
                // Byte offsets of `lower` match `t` for these phrases: lower-casing
                // keeps the length of the ASCII and Greek letters they hold. A phrase
                // ending in a symbol (`φ₁ :=`) needs no word boundary after it.
                let at = if phrase.ends_with(|c: char| c.is_alphanumeric()) {
                    word_at(&lower, phrase).last().copied()
                } else {
                    lower.rfind(phrase)
                };
                if let Some(i) = at
                    && lower.len() == t.len()
                    && t.is_char_boundary(i + phrase.len())
                {
                    let after = t[i + phrase.len()..].trim_start_matches(['*', ' ', ',']);
                    let reach = if TAIL_PHRASES.contains(&phrase) {
                        Reach::Tail {
                            quiet: !matches!(phrase, "therefore" | "thus"),
                        }
                    } else {
                        Reach::Any
                    };
                    body = Some((after.strip_prefix(':').unwrap_or(after), reach));
                    break;
                }
            }
        }
        if let Some((b, reach)) = body {
            let b = b.trim_start_matches(['*', ' ']);
            if b.trim().is_empty() {
                out.extend(next_line(k).map(|l| (l, reach)));
            } else {
                out.push((b, reach));
            }
        }
    }
    out
}

/// `**X**` spans on one line. The markers stand at word boundaries (an opening one after
/// a space or the line's start, a closing one before a space, punctuation or the end),
/// so a regex's `1**0**` is not bold.
fn bold_regions(scope: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in scope.lines() {
        let mut from = 0;
        while let Some(i) = line[from..].find("**") {
            let open = from + i;
            let s = open + 2;
            let opens = line[..open]
                .chars()
                .next_back()
                .is_none_or(|c| c.is_whitespace() || "([{:".contains(c));
            if !opens {
                from = s;
                continue;
            }
            let closing = line[s..]
                .match_indices("**")
                .map(|(j, _)| s + j)
                .find(|&e| {
                    line[e + 2..]
                        .chars()
                        .next()
                        .is_none_or(|c| c.is_whitespace() || ".,;:!?)]}".contains(c))
                });
            let Some(e) = closing else { break };
            let inner = &line[s..e];
            if !inner.trim().is_empty() {
                out.push(inner);
            }
            from = e + 2;
        }
    }
    out
}
