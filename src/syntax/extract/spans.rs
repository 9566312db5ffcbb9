//! Formula spans inside a sentence: the structural rule under the labelled shapes.
//!
//! A line is cut into words (runs of letters, digits and `_`) and the symbols between
//! them. A word is English, and ends a span, unless it can stand in a formula: a
//! symbol of the prompt's vocabulary (up to case), an operator word (`and`, `not`,
//! `forall`, …), a variable (a letter and digits: `x1`, `y`), a LaTeX command
//! (`\land`) or, for regexes, a run of alphabet symbols. The maximal runs between
//! English words are the spans, each trimmed of sentence punctuation and of brackets
//! it does not close, so one pass over the line finds them all (linear in its length).

/// Words that stand for operators or constants in some notation we read.
const OPERATOR_WORDS: [&str; 12] = [
    "and", "or", "not", "implies", "iff", "xor", "forall", "exists", "true", "false", "land", "lor",
];

/// A word at a span's end that may be English rather than formula: one letter (`I`,
/// `a`) or an operator word (`and`).
pub(super) fn droppable(w: &str) -> bool {
    w.chars().all(|c| c.is_ascii_alphabetic())
        && (w.len() == 1 || OPERATOR_WORDS.contains(&w.to_ascii_lowercase().as_str()))
}

/// Sentence punctuation before a formula: never part of one (an arrow or `=>` that
/// introduces it, `: `, `, `, an emoji).
fn leading_junk(c: char) -> bool {
    c.is_whitespace() || ":;,.!?=>➜⟶→–—*•".contains(c) || pictograph(c)
}

/// A symbol no notation we read uses (arrows, check marks, emoji).
fn pictograph(c: char) -> bool {
    !c.is_ascii() && u32::from(c) >= 0x2190 && !"¬∧∨→↔⊕∀∃⊤⊥".contains(c)
}

/// Sentence punctuation after a formula. An operator at the end stays, so a formula
/// cut short (`p1 ∧`) fails to parse instead of losing its operator.
fn trailing_junk(c: char, regex_mode: bool) -> bool {
    c.is_whitespace() || ":;,.!".contains(c) || (c == '?' && !regex_mode) || pictograph(c)
}

/// Whether a word can stand in a formula over `vocabulary` (empty: any name with a
/// digit). `after_backslash`: a LaTeX command.
fn formula_word(
    word: &str,
    regex_mode: bool,
    vocabulary: &[String],
    after_backslash: bool,
) -> bool {
    if after_backslash {
        return true;
    }
    let plain: String = word.chars().filter(|&c| c != '_').collect();
    if regex_mode {
        return plain.chars().all(|c| {
            c == 'ε'
                || if vocabulary.is_empty() {
                    c.is_ascii_digit()
                } else {
                    vocabulary.iter().any(|v| v.chars().eq(std::iter::once(c)))
                }
        });
    }
    let lower = plain.to_lowercase();
    if OPERATOR_WORDS.contains(&lower.as_str()) {
        return true;
    }
    // A variable: one letter, then digits.
    let mut cs = plain.chars();
    if cs.next().is_some_and(|c| c.is_ascii_alphabetic()) && cs.all(|c| c.is_ascii_digit()) {
        return true;
    }
    if vocabulary.is_empty() {
        plain.chars().any(|c| c.is_ascii_digit())
    } else {
        vocabulary.iter().any(|v| v.to_lowercase() == lower)
    }
}

/// Trims sentence punctuation from both ends of a span, an opening parenthesis at its
/// end (`X (checked)` cut before `checked`) and a closing one it does not open
/// (`(Correction: X)`: opened before the span). An unclosed `(` at the start stays: the
/// formula is malformed.
fn trim(s: &str, regex_mode: bool, open_before: usize) -> &str {
    let junk = |c: char| trailing_junk(c, regex_mode);
    let mut s = s.trim_start_matches(leading_junk);
    let mut open_before = open_before;
    for _ in 0..3 {
        s = s.trim_end_matches(junk);
        if let Some(x) = s.strip_suffix('(') {
            s = x;
        } else if open_before > 0
            && s.ends_with(')')
            && s.matches(')').count() > s.matches('(').count()
        {
            // Only a parenthesis the sentence opened before the span: `(p1 ∧ p2))`
            // alone keeps its unbalanced `)` and its parse error.
            open_before -= 1;
            s = &s[..s.len() - 1];
        } else {
            break;
        }
    }
    s.trim_end_matches(junk)
}

/// Whether a span that is no formula names a vocabulary symbol: the text speaks about
/// the symbols in prose.
pub(super) fn mentions_symbol(span: &str, regex_mode: bool, vocabulary: &[String]) -> bool {
    span.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .any(|w| {
            if regex_mode {
                vocabulary.iter().any(|v| w.contains(v.as_str()))
            } else {
                vocabulary.iter().any(|v| v.eq_ignore_ascii_case(w))
            }
        })
}

/// Whether a span holds an operator: a lone name in a sentence is prose, not an answer.
pub(super) fn has_operator(s: &str, regex_mode: bool) -> bool {
    if regex_mode {
        s.contains(['*', '+', '?', '|', '(', '{'])
    } else {
        s.contains([
            '¬', '~', '!', '∧', '&', '∨', '|', '→', '↔', '⊕', '∀', '∃', '(', '^', '\\', '>', '=',
        ])
    }
}

/// The maximal spans of `line` made of formula words and symbols, trimmed, in order,
/// and whether the line holds an English word (a line without one is no sentence: rule
/// 4 judged it whole).
pub(super) fn formula_spans<'a>(
    line: &'a str,
    regex_mode: bool,
    vocabulary: &[String],
    open_before: usize,
) -> (Vec<&'a str>, bool) {
    let mut english = false;
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut word_start: Option<usize> = None;
    let push = |s: usize, e: usize, out: &mut Vec<&'a str>| {
        let before = &line[..s];
        let open =
            (open_before + before.matches('(').count()).saturating_sub(before.matches(')').count());
        let t = trim(&line[s..e], regex_mode, open);
        if !t.is_empty() {
            out.push(t);
        }
    };
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        if is_word(c) {
            word_start.get_or_insert(i);
        }
        let word_ends = is_word(c) && chars.get(k + 1).is_none_or(|&(_, d)| !is_word(d));
        if let (true, Some(ws)) = (word_ends, word_start) {
            let word = &line[ws..i + c.len_utf8()];
            let backslash = line[..ws].ends_with('\\');
            if formula_word(word, regex_mode, vocabulary, backslash) {
                start.get_or_insert(ws);
            } else {
                english = true;
                if let Some(s) = start.take() {
                    push(s, ws, &mut out);
                }
            }
            word_start = None;
        } else if !is_word(c) && !c.is_whitespace() {
            start.get_or_insert(i);
        }
    }
    if let Some(s) = start {
        push(s, line.len(), &mut out);
    }
    (out, english)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn spans_between_english_words() {
        let voc = v(&["p1", "p2", "p3"]);
        assert_eq!(
            formula_spans("I'd go with p1 ∧ ¬p2 here.", false, &voc, 0).0,
            vec!["I'd", "p1 ∧ ¬p2"]
        );
        assert_eq!(
            formula_spans(
                "Putting the pieces together yields (p1 ∨ p3) (checked).",
                false,
                &voc,
                0
            )
            .0,
            vec!["(p1 ∨ p3)"]
        );
        let fol = v(&["likes", "vera"]);
        assert_eq!(
            formula_spans(
                "so ∃x1.(likes(x1,vera) ∧ ¬likes(vera,x1)), as required",
                false,
                &fol,
                0
            )
            .0,
            vec!["∃x1.(likes(x1,vera) ∧ ¬likes(vera,x1))"]
        );
        let re = v(&["0", "1"]);
        assert_eq!(
            formula_spans(
                "We need the pattern (01)*1 to match; re.fullmatch(r\"(01)*1\", s)",
                true,
                &re,
                0
            )
            .0,
            vec!["(01)*1", "\"(01)*1\""]
        );
    }

    #[test]
    fn a_closing_parenthesis_goes_only_when_the_sentence_opened_it() {
        let voc = v(&["p1", "p2"]);
        assert_eq!(
            formula_spans(" (p1 ∧ p2))", false, &voc, 0).0,
            vec!["(p1 ∧ p2))"]
        );
        assert_eq!(
            formula_spans(" p1 ∧ p2)", false, &voc, 1).0,
            vec!["p1 ∧ p2"]
        );
    }

    #[test]
    fn a_long_line_is_one_pass() {
        let voc = v(&["p1"]);
        let line = "p1 ∧ ".repeat(20_000) + "p1";
        let (spans, english) = formula_spans(&line, false, &voc, 0);
        assert!(!english);
        assert_eq!(spans.len(), 1);
        assert_eq!(spans[0].len(), line.len());
    }
}
