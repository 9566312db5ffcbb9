//! Pulling a formula out of model chatter.
//!
//! The rule, in order:
//! 1. **Headers.** If the reply holds prompt headers (a line that is a bracketed
//!    upper-case word: `[TASK]`, `[VOCABULARY]`, `[EXAMPLE 3]`, `[NL DESCRIPTION]`,
//!    `[FORMULA]`), the text before the first header is read first (an answer
//!    followed by a continued template: what follows the header is ignored); then,
//!    when the last header introduces an answer (`[FORMULA]`, `[ANSWER]`, `[OUTPUT]`,
//!    `[RESULT]`, `[SOLUTION]`, `[REGEX]`, `[FOL]`), the text after it, also on the
//!    header's own line (`[FORMULA] p1 ∧ p2`). Otherwise the model is continuing the
//!    prompt template: the reply is off-format.
//! 2. **Marked answers**, by class in this order, the last of a class first: what
//!    follows the last correction or summary marker (`corrected`, `correction`,
//!    `revised`, `final`, `finally`, `actually`, `on second thought`, `update`,
//!    `fixed`, `putting it together`, `combining`, `in summary`, …; whole words) that
//!    marks a formula: the rest of its line after a colon, else the lines after it up
//!    to a blank one, so a retracted answer never wins; fenced
//!    code blocks; `<formula>…</formula>`/`<answer>…</answer>` tags and JSON objects
//!    with a `formula`/`answer`/`fol`/`regex`/`expression` key; what follows a label
//!    at a line's start (`Formula:`, `Answer:`, `Final answer:`, `Output:`,
//!    `Result:`, `Regex:`, `FOL:`, `Expression:`; any case, optional `**`) or an
//!    answer phrase anywhere in a line (`the formula is`, `the answer is`,
//!    `so we get`, `therefore`, `thus`, `hence`, `so`, `we get`, `which gives`,
//!    `yields`, `the resulting formula is`, `φ₁ :=`, `φ =`,
//!    `φ₁ =`, …; any case, colon optional), on the rest of the
//!    line or the next non-empty line; bold text (`**X**`). The first marked region
//!    holding an accepted formula gives φ₁.
//! 3. **Unmarked text.** Otherwise the whole text, if it is one formula; else each
//!    line gives its first accepted candidate. When the lines hold candidates that
//!    are not equivalent to each other, the reply is `unparseable` with
//!    `off-format: several different answers`; equivalent duplicates (the same
//!    formula in two notations, a commuted rewrite) are one answer.
//! 4. **Candidates** of a region, tried in order: the whole region; each non-empty
//!    line; each line cut before an explanation marker (` where `, ` which `,
//!    ` meaning `, `; `, ` -- `, ` — `, ` # `, ` //`, `, where`, ` (where`); each line
//!    after its first and its last `: `, whole and cut before a marker. A colon that
//!    ends an English quantifier (`For all x1:`) is not a split point. For regexes,
//!    tokens of a line that hold a regex operator are candidates too, last first, and
//!    a candidate spans one line. Every candidate is trimmed of surrounding backticks,
//!    `$`/`$$`, `\[ \]`, `\( \)`, quotes, a Markdown list marker (`- `, `* `, `1. `:
//!    a bullet, not ¬) and one trailing `.`, `;` or `,`; regex candidates also of
//!    `^…$` anchors and `/…/` delimiters. In LaTeX candidates, `\text{pred}` (and
//!    `\mathrm`, `\textit`, `\operatorname`) is the name `pred`, and subscripts
//!    belong to the name (`p_1`, `x_{2}` read as `p1`, `x2`). Also candidates: each
//!    `$…$` span inside a line, what follows a line's last `:= `, and a quoted value
//!    after ` = ` (a code assignment `formula = "X"`); a Markdown quote `> ` and a
//!    raw-string `r"…"` are stripped.
//!
//!    **The span rule** underneath: when none of a marked region's candidates is
//!    accepted, the formula spans of its sentences are (the private `spans` module: maximal runs of
//!    vocabulary symbols, operator words, variables and operators between English
//!    words); the first that parses, holds an operator, uses only the vocabulary and
//!    echoes nothing is taken. After a summary word (`so`, `therefore`, `hence`, …)
//!    only a span that ends the sentence counts. Unmarked text whose lines hold no
//!    formula gives the spans of every sentence, one answer up to equivalence.
//!    Correction markers are read last first, so a retracted answer never wins.
//! 5. **Never a formula** (skipped, and named in the error if nothing else is
//!    accepted): a header line; text echoed from the prompt (a candidate with an
//!    operator that equals a prompt line outside the description, or what follows
//!    that line's `: `, as in a worked example's `Formula: …`); a candidate whose
//!    symbols share nothing with the prompt's vocabulary (`VOCABULARY`, `x ∧ y`,
//!    `True`). Brackets are not parentheses in any notation we read. For regexes, a
//!    candidate that reads as prose (two or more whitespace-separated words, one of
//!    them with two or more letters) is skipped, because the regex syntax would
//!    otherwise accept English words.
//! 6. If nothing is accepted, the reply is `unparseable`: "off-format: …" when a
//!    candidate parsed but was refused by rule 5 or a header made it off-format,
//!    else the first parse error (a marked answer's first), with its position in the
//!    original text.
//!
//! 0. **Status** (the private `status` module, issue 47), before all of the above: a
//!    clause that rejects its formula (`wrong`, `tempting`, `first attempt`, `X, not
//!    Y`, `instead of Y`, …), a clause a later `that is wrong` takes back, and a code
//!    line whose comment rejects it or that a later `# corrected` line supersedes are
//!    cut out (no candidate overlapping them is accepted; a span running into them ends
//!    before them); a line that chooses a labelled candidate (`I choose candidate 2`,
//!    `the second one`) gives that candidate's line, read first. `\boxed{X}` is `X`,
//!    and inline code spans are candidates like `$…$` spans.
//!
//! The span of the candidate taken is recorded (`phi1_span`), so a reviewer sees which
//! part of a reply with several candidates became φ₁.

use super::error::ParseError;
use regions::{Reach, header_scopes, marked_regions};

mod clean;
mod regions;
mod spans;
mod status;

pub(crate) use clean::is_header;
use clean::{
    clean, ends_in_quantifier, is_prose, latex_subscripts, latex_text, offset_in,
    strip_regex_delimiters, subscripts,
};

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

/// "…then the formula is false." states a truth value: a lone English truth word taken
/// from a longer reply is prose. A reply that is only `True`, the symbols ⊤ and ⊥, and
/// formulas of constants (`True ∧ p1`) stay formulas.
fn truth_word_in_prose(cand: &str, raw: &str) -> Option<String> {
    let word = cand.trim();
    let truth = word.eq_ignore_ascii_case("true") || word.eq_ignore_ascii_case("false");
    (truth && raw.trim() != word)
        .then(|| format!("off-format: '{word}' is a truth value in prose, not a formula"))
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
pub fn extract_with<T: PartialEq>(
    raw: &str,
    regex_mode: bool,
    parse: impl Fn(&str) -> Result<T, ParseError>,
) -> Result<Extracted<T>, ParseError> {
    extract_in(raw, regex_mode, &Context::default(), parse, |_| Vec::new())
}

/// [`extract_with`] under a prompt [`Context`]; candidates are the same answer when equal.
pub fn extract_in<T: PartialEq>(
    raw: &str,
    regex_mode: bool,
    ctx: &Context,
    parse: impl Fn(&str) -> Result<T, ParseError>,
    names: impl Fn(&T) -> Vec<String>,
) -> Result<Extracted<T>, ParseError> {
    extract_among(raw, regex_mode, ctx, parse, names, |a, b| a == b)
}

/// One extraction in progress: what was refused and the first parse error, for the
/// message when nothing is accepted.
struct Run<'a, 'c, T, P, N> {
    raw: &'a str,
    regex_mode: bool,
    ctx: &'c Context,
    parse: P,
    names: N,
    first_err: Option<ParseError>,
    refused: Option<ParseError>,
    /// Byte ranges whose formulas the reply rejects or supersedes ([`status`]).
    rejected: Vec<(usize, usize)>,
    _t: std::marker::PhantomData<T>,
}

impl<'a, T, P, N> Run<'a, '_, T, P, N>
where
    P: Fn(&str) -> Result<T, ParseError>,
    N: Fn(&T) -> Vec<String>,
{
    /// The first candidate of `region` that parses and is accepted (rule 4), else,
    /// when the region is marked, a formula span inside its sentences (the span rule).
    fn first_in(&mut self, region: &'a str, reach: Option<Reach>) -> Option<Extracted<T>> {
        // After a summary word a regex token inside the sentence is no answer either.
        let tail = matches!(reach, Some(Reach::Tail { .. }));
        if let Some(x) = self.first_candidate(region, !tail) {
            return Some(x);
        }
        match reach? {
            Reach::Any | Reach::Quiet => self.spans_in(region, true).into_iter().next(),
            Reach::Tail { .. } => {
                let line = region.lines().rev().find(|l| !l.trim().is_empty())?;
                let x = self.spans_in(line, true).pop()?;
                let after = &self.raw[x.end.min(self.raw.len())..];
                let after = after.split('\n').next().unwrap_or("");
                after
                    .trim_matches(|c: char| !c.is_alphanumeric())
                    .is_empty()
                    .then_some(x)
            }
        }
    }

    /// The accepted formula spans of `text`'s sentences, in order; none when the text
    /// describes formulas rather than giving one: a vocabulary symbol stands in prose
    /// outside every accepted span (`¬p6 states that p6 is false`), or it speaks of
    /// truth values (`X is true`). `marked`: the text follows a marker, so a line
    /// without English words is read for spans too (`(Correction: X)` leaves `X)`).
    fn spans_in(&mut self, text: &'a str, marked: bool) -> Vec<Extracted<T>> {
        let (regex_mode, ctx) = (self.regex_mode, self.ctx);
        let mut out = Vec::new();
        let lower = text.to_lowercase();
        if lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == "true" || w == "false")
        {
            return out;
        }
        for line in text.lines().filter(|l| !is_header(l)) {
            // Parentheses the reply's line opened before this text (`(Correction: X)`).
            let at = offset_in(self.raw, line).min(self.raw.len());
            let head = &self.raw[self.raw[..at].rfind('\n').map_or(0, |i| i + 1)..at];
            let open = head
                .matches('(')
                .count()
                .saturating_sub(head.matches(')').count());
            let (spans, english) = spans::formula_spans(line, regex_mode, &ctx.vocabulary, open);
            // A line without English words was judged whole by rule 4: its error stands.
            if !english && !marked {
                continue;
            }
            for s in spans {
                let at = offset_in(self.raw, s);
                // A span running into rejected text (`X, not Y`) ends where it starts.
                let s = match self
                    .rejected
                    .iter()
                    .map(|r| r.0)
                    .find(|&r| at < r && r < at + s.len())
                {
                    Some(r) => s[..r - at].trim_end_matches([',', ' ']),
                    None => s,
                };
                if s.trim().is_empty() {
                    continue;
                }
                match self.try_span(s) {
                    Some(x) => out.push(x),
                    // A rejected formula is no description: the text goes on to its answer.
                    None if self.is_rejected(at, at + s.len()) => {}
                    None if spans::mentions_symbol(s, regex_mode, &ctx.vocabulary) => {
                        return Vec::new();
                    }
                    None => {}
                }
            }
        }
        out
    }

    /// A formula span (the span rule), or the span without up to two one-letter or operator
    /// words at either end (`X and I am sure` holds `X`: `I` and `and` join a span). A
    /// name is never dropped, so a malformed `p1 ∧ p2 p3` is no `p1 ∧ p2`.
    fn try_span(&mut self, span: &'a str) -> Option<Extracted<T>> {
        let mut heads = vec![span];
        for _ in 0..2 {
            let h = *heads.last()?;
            match h.trim_start().split_once(char::is_whitespace) {
                Some((w, rest)) if spans::droppable(w) && !rest.trim().is_empty() => {
                    heads.push(rest.trim_start());
                }
                _ => break,
            }
        }
        for h in heads {
            let mut t = h;
            for _ in 0..3 {
                if let Some(x) = self.try_span_text(t) {
                    return Some(x);
                }
                match t.trim_end().rsplit_once(char::is_whitespace) {
                    Some((rest, w)) if spans::droppable(w) && !rest.trim().is_empty() => {
                        t = rest.trim_end();
                    }
                    _ => break,
                }
            }
        }
        None
    }

    /// A formula span as it stands: it holds an operator, every symbol is in the
    /// prompt's vocabulary, and it is no echo; a span that does not parse names no error.
    fn try_span_text(&mut self, span: &'a str) -> Option<Extracted<T>> {
        let mut c = clean(span);
        if self.regex_mode {
            c = clean(strip_regex_delimiters(c));
        }
        if c.is_empty() || !spans::has_operator(c, self.regex_mode) {
            return None;
        }
        let value = self.parse_text(c).ok()?;
        let names = (self.names)(&value);
        let voc = &self.ctx.vocabulary;
        let start = offset_in(self.raw, c);
        if (!voc.is_empty() && !names.iter().all(|n| super::notation::in_vocabulary(n, voc)))
            || self.ctx.refuse(c, &names).is_some()
        {
            return None;
        }
        if self.is_rejected(start, start + c.len()) {
            let why = format!("off-format: the reply rejects '{}'", short(c));
            self.refused.get_or_insert(ParseError::new(start, why));
            return None;
        }
        Some(Extracted {
            value,
            start,
            end: start + c.len(),
        })
    }

    /// Whether the candidate at `start..end` overlaps text the reply rejects.
    fn is_rejected(&self, start: usize, end: usize) -> bool {
        self.rejected.iter().any(|&(s, e)| start < e && s < end)
    }

    /// Parses cleaned text, LaTeX names and subscripts read as plain names.
    fn parse_text(&self, c: &str) -> Result<T, ParseError> {
        let text = latex_text(c);
        let src = text.as_deref().unwrap_or(c);
        let rewritten = if text.is_some() {
            subscripts(src)
        } else {
            latex_subscripts(src)
        };
        (self.parse)(rewritten.as_deref().unwrap_or(src))
    }

    /// The first candidate of `region` that parses and is accepted (rule 4).
    fn first_candidate(&mut self, region: &'a str, tokens: bool) -> Option<Extracted<T>> {
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
        for line in &lines {
            // Inline maths and code in a sentence: each `$…$` and `` `…` `` span.
            for delim in ['$', '`'] {
                let mut parts = line.split(delim);
                parts.next();
                for (i, part) in parts.enumerate() {
                    if i % 2 == 0 && !part.trim().is_empty() {
                        candidates.push(part);
                    }
                }
            }
            // `φ₁ := X`, or a code assignment of a quoted formula (`formula = "X"`).
            if let Some(i) = line.rfind(":= ") {
                candidates.push(&line[i + 3..]);
            }
            if let Some(i) = line.rfind(" = ") {
                let after = &line[i + 3..];
                if after.trim_start().starts_with(['"', '\'', 'r']) {
                    candidates.push(after);
                }
            }
        }
        if self.regex_mode && tokens {
            // In prose ("It is (01)*0"), a token with a regex operator, last first.
            for line in &lines {
                for tok in line.split_whitespace().rev() {
                    if tok.contains(['*', '+', '?', '|', '(']) {
                        candidates.push(tok);
                    }
                }
            }
        }
        candidates.into_iter().find_map(|c| self.try_candidate(c))
    }

    /// Parses one candidate after trimming (rule 3) and checks it (rules 4 and 5).
    fn try_candidate(&mut self, cand: &'a str) -> Option<Extracted<T>> {
        let mut c = clean(cand);
        if self.regex_mode {
            c = clean(strip_regex_delimiters(c));
        }
        if c.is_empty() || is_header(c) || (self.regex_mode && is_prose(c)) {
            return None;
        }
        // A regex is written on one line (the regex syntax ignores whitespace, so two
        // lines would read as one concatenation).
        if self.regex_mode && c.contains('\n') {
            return None;
        }
        match self.parse_text(c) {
            Ok(value) => {
                let start = offset_in(self.raw, c);
                if let Some(why) = truth_word_in_prose(c, self.raw)
                    .or_else(|| self.ctx.refuse(c, &(self.names)(&value)))
                    .or_else(|| {
                        self.is_rejected(start, start + c.len())
                            .then(|| format!("off-format: the reply rejects '{}'", short(c)))
                    })
                {
                    self.refused.get_or_insert(ParseError::new(start, why));
                    return None;
                }
                Some(Extracted {
                    value,
                    start,
                    end: start + c.len(),
                })
            }
            Err(e) => {
                if self.first_err.is_none() && latex_text(c).is_none() {
                    self.first_err = Some(e.shifted(offset_in(self.raw, c)));
                }
                None
            }
        }
    }

    /// The answer in one scope (the reply, or a part of it cut by headers): a marked
    /// region if one holds an accepted formula, else the unmarked text, where several
    /// different formulas are refused.
    fn in_scope(
        &mut self,
        scope: &'a str,
        marked_scope: bool,
        same: &impl Fn(&T, &T) -> bool,
    ) -> Result<Option<Extracted<T>>, ParseError> {
        let mut any_marked = false;
        for class in marked_regions(scope) {
            for (region, reach) in class.into_iter().rev() {
                // After a summary word only a formula counts: what fails to parse there
                // is prose, and the error names something else.
                let quiet = matches!(reach, Reach::Quiet | Reach::Tail { quiet: true });
                let errors = quiet.then(|| (self.first_err.clone(), self.refused.clone()));
                any_marked |= !quiet;
                if let Some(x) = self.first_in(region, Some(reach)) {
                    return Ok(Some(x));
                }
                if let Some((first_err, refused)) = errors {
                    self.first_err = first_err;
                    self.refused = refused;
                }
            }
        }
        if marked_scope {
            return Ok(self.first_in(scope, None));
        }
        // A marked answer that does not parse is what the error should name, even when
        // the unmarked text is read as a fallback.
        let marked_errors = any_marked.then(|| (self.first_err.take(), self.refused.take()));
        let found = self.unmarked(scope, same)?;
        if found.is_none()
            && let Some((first_err, refused)) = marked_errors
            && (first_err.is_some() || refused.is_some())
        {
            self.first_err = first_err;
            self.refused = refused;
        }
        Ok(found)
    }

    /// The answer in text that marks none: the whole text, else the one formula its
    /// lines hold (equivalent duplicates allowed).
    fn unmarked(
        &mut self,
        scope: &'a str,
        same: &impl Fn(&T, &T) -> bool,
    ) -> Result<Option<Extracted<T>>, ParseError> {
        // The whole text at once first: a formula written across lines.
        if let Some(x) = self.try_candidate(scope) {
            return Ok(Some(x));
        }
        let mut found: Vec<Extracted<T>> = Vec::new();
        for line in scope.lines() {
            if line.trim().is_empty() || is_header(line) {
                continue;
            }
            if let Some(x) = self.first_in(line, None) {
                found.push(x);
            }
        }
        if found.is_empty() {
            // No line is a formula: the formula spans inside its sentences (the span
            // rule), when they are one answer up to equivalence. Several different ones
            // in prose are a description, and the first parse error stands.
            let spans = self.spans_in(scope, false);
            if let Some(first) = spans.first()
                && spans.iter().all(|x| same(&first.value, &x.value))
            {
                found = spans;
            }
        }
        let mut found = found.into_iter();
        let Some(first) = found.next() else {
            return Ok(None);
        };
        if let Some(other) = found.find(|x| !same(&first.value, &x.value)) {
            return Err(ParseError::new(
                other.start,
                format!(
                    "off-format: several different answers ('{}' and '{}') and none marked as the answer",
                    short(&self.raw[first.start..first.end]),
                    short(&self.raw[other.start..other.end])
                ),
            ));
        }
        Ok(Some(first))
    }
}

/// Finds the formula in `raw` by the module's rule; `same` decides whether two
/// candidates are the same answer (equivalent duplicates are not "several answers").
pub(crate) fn extract_among<T>(
    raw: &str,
    regex_mode: bool,
    ctx: &Context,
    parse: impl Fn(&str) -> Result<T, ParseError>,
    names: impl Fn(&T) -> Vec<String>,
    same: impl Fn(&T, &T) -> bool,
) -> Result<Extracted<T>, ParseError> {
    let mut run = Run {
        raw,
        regex_mode,
        ctx,
        parse,
        names,
        first_err: None,
        refused: None,
        rejected: status::rejected_ranges(raw),
        _t: std::marker::PhantomData,
    };
    // A candidate the reply names as its choice ("I choose candidate 2") comes first.
    if let Some(region) = status::chosen(raw)
        && let Some(x) = run.first_in(region, Some(Reach::Any))
    {
        return Ok(x);
    }
    let headers = header_scopes(raw);
    let scopes: Vec<(&str, bool)> = match &headers {
        None => vec![(raw, false)],
        Some(h) => h
            .before
            .map(|b| (b, false))
            .into_iter()
            .chain(h.answer.map(|a| (a, true)))
            .collect(),
    };
    for (scope, marked) in scopes {
        if let Some(x) = run.in_scope(scope, marked, &same)? {
            return Ok(x);
        }
    }
    if let Some(h) = &headers
        && h.answer.is_none()
    {
        return Err(ParseError::new(
            offset_in(raw, h.last),
            format!(
                "off-format: the reply continues the prompt template (last header {})",
                h.last
            ),
        ));
    }
    if let Some(r) = run.refused {
        return Err(r);
    }
    if let Some(h) = raw.lines().find(|l| is_header(l)) {
        let h = h.trim();
        return Err(ParseError::new(
            offset_in(raw, h),
            format!("off-format: the reply repeats the prompt's header {h} and holds no formula"),
        ));
    }
    Err(run.first_err.unwrap_or_else(|| {
        if raw.trim().is_empty() {
            ParseError::new(0, "empty output")
        } else {
            ParseError::new(
                offset_in(raw, raw.trim_start()),
                "no formula found in the output",
            )
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
