//! The status of each formula a reply writes (issue 47): asserted, rejected
//! ("a tempting but wrong alternative would be X", "X, not Y", "instead of Y", a code
//! line commented `# first attempt`), superseded (a code line before one commented
//! `# corrected`), or chosen by reference ("I choose candidate 2", "option B", "the
//! second one"). Rejected and superseded text is cut out of the reply by byte ranges,
//! so no candidate inside it wins; a chosen candidate's line is read first.

use super::offset_in;
use super::regions::word_at;

/// Words and phrases that reject the formula of their clause (whole words, any case).
const REJECT: [&str; 26] = [
    "wrong",
    "incorrect",
    "tempting",
    "first attempt",
    "initial attempt",
    "first try",
    "first draft",
    "mistake",
    "mistaken",
    "mistakenly",
    "erroneous",
    "invalid",
    "not correct",
    "not right",
    "isn't right",
    "isn't correct",
    "not the answer",
    "not quite",
    "doesn't work",
    "does not work",
    "won't work",
    "too weak",
    "too strong",
    "discard",
    "misread",
    "unlike",
];

/// Words that start a clause rejecting what follows them (`X, not Y`; `instead of Y`).
const REJECT_LEAD: [&str; 5] = ["instead of", "rather than", "not", "but not", "unlike"];

/// Phrases that take back the formula before them without rejecting their own clause
/// ("Scratch that: the formula is X").
const RETRACT: [&str; 4] = [
    "scratch that",
    "never mind",
    "i misread it",
    "that was wrong",
];

/// How a clause without a formula rejects the one before it ("That is wrong.").
const ANAPHORS: [&str; 13] = [
    "that is",
    "that's",
    "that was",
    "this is",
    "this was",
    "it is",
    "it's",
    "that would be",
    "this would be",
    "that seems",
    "this seems",
    "that looks",
    "the above is",
];

/// Words of a code comment that mark its line as the correction of the lines before it.
const CODE_CORRECTION: [&str; 9] = [
    "right",
    "corrected",
    "correction",
    "correct",
    "fixed",
    "final",
    "revised",
    "actually",
    "answer",
];

/// Byte ranges of `raw` whose formulas are rejected or superseded.
pub(super) fn rejected_ranges(raw: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut in_code = false;
    // Formula lines of the current code block, and the status a comment-only line set.
    let mut code_lines: Vec<(usize, usize)> = Vec::new();
    let mut comment_rejects = false;
    // The last clause that may hold a formula (for "That is wrong.").
    let mut last_formula: Option<(usize, usize)> = None;
    for line in raw.split_inclusive('\n') {
        let at = offset_in(raw, line);
        let body = line.trim_end_matches(['\n', '\r']);
        if body.trim_start().starts_with("```") {
            in_code = !in_code;
            code_lines.clear();
            comment_rejects = false;
            continue;
        }
        if in_code {
            code_line(body, at, &mut code_lines, &mut comment_rejects, &mut out);
            continue;
        }
        let clauses = clauses(body);
        for (k, &(s, e, lead)) in clauses.iter().enumerate() {
            let text = &body[s..e];
            let lower = text.to_lowercase();
            let formula_like = text
                .chars()
                .any(|c| c.is_ascii_digit() || "¬∧∨→↔⊕∀∃()*|+&~".contains(c));
            let next_is_but = clauses.get(k + 1).is_some_and(|&(s2, e2, _)| {
                body[s2..e2].trim_start().to_lowercase().starts_with("but ")
            });
            let starts = |w: &str| {
                lower.trim_start().starts_with(w) && lower.trim_start()[w.len()..].starts_with(' ')
            };
            let leads = REJECT_LEAD
                .iter()
                .any(|w| starts(w) && (*w != "not" || lead || next_is_but));
            let rejects = leads || REJECT.iter().any(|w| !word_at(&lower, w).is_empty());
            if RETRACT.iter().any(|w| !word_at(&lower, w).is_empty()) {
                out.extend(last_formula.take());
                continue;
            }
            if !rejects {
                if formula_like {
                    last_formula = Some((at + s, at + e));
                }
                continue;
            }
            if formula_like {
                out.push((at + s, at + e));
            } else if ANAPHORS.iter().any(|w| !word_at(&lower, w).is_empty())
                && let Some(r) = last_formula.take()
            {
                out.push(r);
            }
        }
    }
    out
}

/// One line of a fenced code block: its comment rejects it (`# first attempt`), a
/// comment-only line rejects the lines after it, and a correction comment supersedes
/// every formula line of the block before it.
fn code_line(
    body: &str,
    at: usize,
    code_lines: &mut Vec<(usize, usize)>,
    comment_rejects: &mut bool,
    out: &mut Vec<(usize, usize)>,
) {
    let t = body.trim_start();
    let (code, comment) = split_comment(body);
    if t.is_empty() {
        return;
    }
    let lower = comment.to_lowercase();
    let rejects = REJECT.iter().any(|w| !word_at(&lower, w).is_empty());
    let corrects = !rejects
        && CODE_CORRECTION
            .iter()
            .any(|w| !word_at(&lower, w).is_empty());
    if corrects {
        out.append(code_lines);
    }
    if code.trim().is_empty() {
        // A comment on its own line speaks of the lines after it, unless it holds the
        // formula itself (`# first attempt: X`).
        let own = comment
            .split_once(':')
            .is_some_and(|(_, x)| !x.trim().is_empty());
        if rejects && own {
            out.push((at, at + body.len()));
        } else {
            *comment_rejects = rejects;
        }
        return;
    }
    let range = (at, at + body.len());
    if rejects || *comment_rejects {
        out.push(range);
    } else {
        code_lines.push(range);
    }
}

/// A code line's code and its comment (`#`, `//`, `--` or `%` after a space or at the
/// line's start).
fn split_comment(body: &str) -> (&str, &str) {
    let t = body.trim_start();
    for m in ["#", "//", "--", "%"] {
        if t.starts_with(m) {
            return ("", t);
        }
        if let Some(i) = body.find(&format!(" {m}")) {
            return (&body[..i], &body[i + 1..]);
        }
    }
    (body, "")
}

/// The clauses of one line as byte ranges, with whether each follows a comma (a
/// leading `not` rejects only there: `X, not Y`). Cuts: sentence ends (not the dot
/// of a quantifier, `∀x1. P(x1)`), `; `, `, ` outside parentheses, and before ` but `,
/// ` instead of `, ` rather than `, ` whereas `, ` while `, ` because `.
fn clauses(line: &str) -> Vec<(usize, usize, bool)> {
    const CUT_BEFORE: [&str; 6] = [
        " but ",
        " instead of ",
        " rather than ",
        " whereas ",
        " while ",
        " because ",
    ];
    let lower = line.to_lowercase();
    let same_len = lower.len() == line.len();
    let mut cuts: Vec<(usize, usize, bool)> = Vec::new();
    let mut depth = 0i32;
    let bytes = line.as_bytes();
    for (i, c) in line.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        let next_space = bytes.get(i + 1).is_some_and(|b| *b == b' ');
        if !next_space {
            continue;
        }
        match c {
            ';' | '!' => cuts.push((i, i + 2, false)),
            '?' | '.' if !quantifier_dot(&line[..i]) => cuts.push((i, i + 2, false)),
            ',' if depth <= 0 => cuts.push((i, i + 2, true)),
            _ => {}
        }
    }
    if same_len {
        for w in CUT_BEFORE {
            for (i, _) in lower.match_indices(w) {
                cuts.push((i, i + 1, false));
            }
        }
    }
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut from = 0;
    let mut lead = false;
    for (s, e, comma) in cuts {
        if s < from {
            continue;
        }
        out.push((from, s, lead));
        from = e.min(line.len());
        lead = comma;
    }
    out.push((from, line.len(), lead));
    out.retain(|&(s, e, _)| !line[s..e].trim().is_empty());
    out
}

/// Whether a `.` ending `before` closes a quantifier's variable (`∀x1.`, `forall x.`).
fn quantifier_dot(before: &str) -> bool {
    let rest = before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
    if rest.len() == before.len() {
        return false;
    }
    let lower = rest.to_lowercase();
    rest.ends_with(['∀', '∃'])
        || [
            "forall ",
            "exists ",
            "\\forall ",
            "\\exists ",
            "all ",
            "some ",
        ]
        .iter()
        .any(|q| lower.ends_with(q))
}

/// Labels that name a candidate (`Candidate 2:`, `Option B)`, `Version 1 -`).
const CANDIDATE_WORDS: [&str; 8] = [
    "candidate",
    "option",
    "version",
    "attempt",
    "alternative",
    "choice",
    "formula",
    "regex",
];

/// Verbs and phrases that name a choice.
const CHOOSE: [&str; 16] = [
    "the right one",
    "the correct one",
    "choose",
    "chose",
    "pick",
    "picked",
    "select",
    "selected",
    "go with",
    "going with",
    "prefer",
    "is correct",
    "is the correct",
    "is right",
    "is the answer",
    "answer is",
];

const ORDINALS: [(&str, usize); 6] = [
    ("first", 1),
    ("second", 2),
    ("third", 3),
    ("fourth", 4),
    ("fifth", 5),
    ("last", 0),
];

/// The region of the candidate the reply names as its choice ("I choose candidate 2",
/// "Option B is correct", "the second one"), read before every other marked region.
pub(super) fn chosen(raw: &str) -> Option<&str> {
    let lines: Vec<&str> = raw.split_inclusive('\n').collect();
    let labelled: Vec<(String, &str)> = lines.iter().filter_map(|l| candidate_label(l)).collect();
    if labelled.len() < 2 {
        return None;
    }
    for line in lines.iter().rev() {
        let lower = line.to_lowercase();
        if lower.len() != line.len() || !CHOOSE.iter().any(|w| !word_at(&lower, w).is_empty()) {
            continue;
        }
        if candidate_label(line).is_some() {
            continue;
        }
        // A reference by label: `candidate 2`, `option b`.
        for w in CANDIDATE_WORDS {
            for i in word_at(&lower, w) {
                let id: String = lower[i + w.len()..]
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_alphanumeric())
                    .collect();
                if id.is_empty() {
                    continue;
                }
                if let Some((_, body)) = labelled.iter().find(|(l, _)| *l == format!("{w} {id}")) {
                    return Some(body);
                }
            }
        }
        // A reference by position: `the second one`, `the last option`.
        for (w, k) in ORDINALS {
            for i in word_at(&lower, w) {
                let next = lower[i + w.len()..].split_whitespace().next().unwrap_or("");
                let next = next.trim_matches(|c: char| !c.is_alphanumeric());
                if next == "one" || CANDIDATE_WORDS.contains(&next) {
                    let pick = if k == 0 { labelled.len() } else { k };
                    return labelled.get(pick.checked_sub(1)?).map(|(_, b)| *b);
                }
            }
        }
    }
    None
}

/// A line that labels a candidate: `Candidate 2: X`, `**Option B:** X`, `2) X`, `(b) X`;
/// the label (lower case, `option b`, or `#2` for a bare number) and the text after it.
fn candidate_label(line: &str) -> Option<(String, &str)> {
    let t = line.trim_start().trim_start_matches(['*', '#', '-', ' ']);
    let lower = t.to_lowercase();
    if lower.len() != t.len() {
        return None;
    }
    for w in CANDIDATE_WORDS {
        let Some(rest) = lower.strip_prefix(w) else {
            continue;
        };
        let rest_t = rest.trim_start();
        let id: String = rest_t.chars().take_while(|c| c.is_alphanumeric()).collect();
        if id.is_empty() || id.len() > 2 {
            continue;
        }
        let after = rest_t[id.len()..].trim_start_matches(['*', ' ']);
        let Some(body) = after
            .strip_prefix(':')
            .or_else(|| after.strip_prefix(')'))
            .or_else(|| after.strip_prefix(" -"))
        else {
            continue;
        };
        let start = t.len() - body.len();
        let body = t[start..].trim_start_matches(['*', ' ']);
        if body.trim().is_empty() {
            return None;
        }
        return Some((format!("{w} {id}"), body));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(raw: &str) -> Vec<&str> {
        rejected_ranges(raw)
            .into_iter()
            .map(|(s, e)| raw[s..e].trim())
            .collect()
    }

    #[test]
    fn rejected_clauses() {
        assert_eq!(
            rejected(
                "The regular expression is (01)*1. A tempting but wrong alternative would be (01)+1 here."
            ),
            vec!["but wrong alternative would be (01)+1 here."]
        );
        assert_eq!(
            rejected("It is p1 ∧ p2, not p1 ∨ p2."),
            vec!["not p1 ∨ p2."]
        );
        assert_eq!(
            rejected("Use p1 instead of p2 ∧ p3"),
            vec!["instead of p2 ∧ p3"]
        );
        assert!(rejected("∀x1. P(x1), which is right").is_empty());
        assert_eq!(
            rejected("Answer: p1 ∧ p2\nThat is wrong."),
            vec!["Answer: p1 ∧ p2"]
        );
    }

    #[test]
    fn code_comments() {
        let raw = "```\n(01)+1   # first attempt\n(01)*1   # corrected\n```";
        assert_eq!(rejected(raw), vec!["(01)+1   # first attempt"]);
        let raw = "```\n(01)+1\n(01)*1  // fixed\n```";
        assert_eq!(rejected(raw), vec!["(01)+1"]);
    }

    #[test]
    fn choices() {
        let raw = "Candidate 1: (01)+1\nCandidate 2: (01)*1\nI choose candidate 2, i.e. (01)*1.";
        assert_eq!(chosen(raw).map(str::trim), Some("(01)*1"));
        let raw = "Option A: p1\nOption B: p1 ∧ p2\nThe second one is correct.";
        assert_eq!(chosen(raw).map(str::trim), Some("p1 ∧ p2"));
        assert_eq!(chosen("Formula: p1\nI choose it."), None);
    }

    /// The whole-word search as it was written first: `str::match_indices`.
    fn word_at_plain(lower: &str, m: &str) -> Vec<usize> {
        lower
            .match_indices(m)
            .filter(|(i, _)| {
                let before = lower[..*i].chars().next_back();
                let after = lower[i + m.len()..].chars().next();
                before.is_none_or(|c| !c.is_alphanumeric())
                    && after.is_none_or(|c| !c.is_alphanumeric())
            })
            .map(|(i, _)| i)
            .collect()
    }

    proptest::proptest! {
        /// The byte search finds the same whole words as `match_indices`, overlapping
        /// and repeated needles and non-ASCII neighbours included.
        #[test]
        fn word_at_as_match_indices(
            lower in "(no|not|nono|ä|∧| |x1|\\.|é){0,12}",
            m in "(no|not|nono|ä|∧| |o){1,3}",
        ) {
            proptest::prop_assert_eq!(word_at(&lower, &m), word_at_plain(&lower, &m));
        }
    }

    #[test]
    fn word_at_known_cases() {
        assert_eq!(word_at("nonono no", "nono"), Vec::<usize>::new());
        assert_eq!(word_at("no, no", "no"), vec![0, 4]);
        assert_eq!(word_at("änot not", "not"), vec![6]);
        assert_eq!(word_at("ab", ""), word_at_plain("ab", ""));
    }
}
