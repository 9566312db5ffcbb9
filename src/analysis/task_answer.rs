//! Reading a reference task's answer from a reply (FOLIO: True / False / Uncertain;
//! Multi-LogiEval: yes / no), the way a person reads it: the answer the reply *marks as
//! final* counts, never the first label it mentions while reasoning.
//!
//! The rule, in order (inline `<think>` reasoning is split off first):
//! 1. **Marked answers.** A label right after an answer marker: `Answer:`, `Final
//!    answer:`, `Answer (corrected):`, `**Answer:** false`, `the (final) answer is`,
//!    `my answer is`, `\boxed{…}`. The **last** marked label wins (a correction comes after what it
//!    corrects). A marker followed by two different labels (`Answer: True/False/Uncertain`,
//!    the template echoed) marks nothing. A marker that ends its line (`**Final Answer:**`,
//!    then `- True`) points at the next line that says something.
//! 2. **A closing label.** Else, a reply whose last line is a label alone (`False.`,
//!    `**Yes**`).
//! 3. **FOLIO's phrasing.** Else, for FOLIO, the last `the conclusion is …` / `the
//!    statement is …` with a label; a conclusion quoted on the same line before it is judged
//!    (`the conclusion "Rock is cute" is False`) reads the same.
//! 4. **Nothing else.** Otherwise the answer is unknown: counted wrong and listed, never
//!    guessed from a label mentioned in passing.
//!
//! Gold labels are normalised the same way (`Unknown` → `Uncertain`, any case).

/// An answer label of a reference task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Label {
    /// FOLIO: the conclusion follows.
    True,
    /// FOLIO: its negation follows.
    False,
    /// FOLIO: neither follows (FOLIO's train split writes `Unknown`).
    Uncertain,
    /// Multi-LogiEval: yes.
    Yes,
    /// Multi-LogiEval: no.
    No,
}

impl Label {
    /// Every label, FOLIO's then Multi-LogiEval's.
    pub const ALL: [Label; 5] = [
        Label::True,
        Label::False,
        Label::Uncertain,
        Label::Yes,
        Label::No,
    ];

    /// The label a stored name (as [`Label::name`] writes it) stands for.
    pub fn from_name(s: &str) -> Option<Label> {
        Label::ALL.into_iter().find(|l| l.name() == s)
    }

    /// The label as the task writes it.
    pub fn name(self) -> &'static str {
        match self {
            Label::True => "True",
            Label::False => "False",
            Label::Uncertain => "Uncertain",
            Label::Yes => "yes",
            Label::No => "no",
        }
    }
}

/// Which labels a task answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelSet {
    /// True / False / Uncertain (FOLIO).
    Folio,
    /// yes / no (Multi-LogiEval).
    YesNo,
}

impl LabelSet {
    /// The labels of the set.
    pub fn labels(self) -> &'static [Label] {
        match self {
            LabelSet::Folio => &[Label::True, Label::False, Label::Uncertain],
            LabelSet::YesNo => &[Label::Yes, Label::No],
        }
    }

    /// A word read as a label of this set (case-insensitive; `unknown` is Uncertain).
    pub fn word(self, w: &str) -> Option<Label> {
        let w = w.to_ascii_lowercase();
        match (self, w.as_str()) {
            (LabelSet::Folio, "true") => Some(Label::True),
            (LabelSet::Folio, "false") => Some(Label::False),
            (LabelSet::Folio, "uncertain" | "unknown") => Some(Label::Uncertain),
            (LabelSet::YesNo, "yes") => Some(Label::Yes),
            (LabelSet::YesNo, "no") => Some(Label::No),
            _ => None,
        }
    }
}

/// A gold label as a dataset writes it (`Unknown` → Uncertain; any case, trimmed).
pub fn gold(s: &str, set: LabelSet) -> Option<Label> {
    set.word(s.trim())
}

/// What was read from a reply, and by which step of the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The answer, or None: unknown (counted wrong).
    pub label: Option<Label>,
    /// `marked`, `closing`, or `none`.
    pub rule: &'static str,
}

/// Longest reply read, in bytes (a longer one is read up to here, from its end).
const MAX_REPLY: usize = 1 << 20;

/// Markers after which the next label is the answer, lowercase. Longer ones first, so
/// `final answer:` is not read as `answer:` plus noise.
const MARKERS: [&str; 12] = [
    "final answer is",
    "final answer:",
    "the answer is",
    "my answer is",
    "answer would be",
    "answer (corrected):",
    "corrected answer:",
    "answer (final):",
    "answer is:",
    "answer:",
    "answer -",
    "\\boxed{",
];

/// FOLIO's own way of saying it: "the conclusion is False".
const FOLIO_MARKERS: [&str; 3] = [
    "the conclusion is",
    "the statement is",
    "the conclusion would be",
];

/// Reads the answer of `reply` for a task answering with `set`.
pub fn read(reply: &str, set: LabelSet) -> Reading {
    let mut cut = reply.len().saturating_sub(MAX_REPLY);
    while !reply.is_char_boundary(cut) {
        cut += 1;
    }
    let reply = &reply[cut..];
    let answer = crate::llm::reasoning::split(reply).answer;
    let answer = match set {
        LabelSet::Folio => unquote_conclusion(answer),
        LabelSet::YesNo => std::borrow::Cow::Borrowed(answer),
    };
    // Markdown emphasis and quotes around labels and markers are not part of them.
    let text: String = answer
        .chars()
        .map(|c| {
            if matches!(c, '*' | '`' | '"' | '“' | '”') {
                ' '
            } else {
                c
            }
        })
        .collect();
    let lower = text.to_lowercase();
    // Answer markers first; FOLIO's "the conclusion is …" only when the reply marks no
    // answer, since reasoning says it of premises along the way.
    let weak: &[&str] = match set {
        LabelSet::Folio => &FOLIO_MARKERS,
        LabelSet::YesNo => &[],
    };
    let closing = || {
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        set.word(last.trim().trim_matches(|c: char| !c.is_alphanumeric()))
    };
    for (k, markers) in [&MARKERS[..], weak].into_iter().enumerate() {
        // A label alone on the last line outranks "the conclusion would be false if…"
        // said along the way.
        if k == 1
            && let Some(l) = closing()
        {
            return Reading {
                label: Some(l),
                rule: "closing",
            };
        }
        let mut best: Option<(usize, Label)> = None;
        for m in markers {
            for (at, _) in lower.match_indices(m) {
                // `answer:` inside `final answer:` is the same mark; both read alike.
                if let Some(l) = label_after(&text[at + m.len()..], set)
                    && best.is_none_or(|(b, _)| at >= b)
                {
                    best = Some((at, l));
                }
            }
        }
        if let Some((_, label)) = best {
            return Reading {
                label: Some(label),
                rule: "marked",
            };
        }
    }
    if let Some(l) = closing() {
        return Reading {
            label: Some(l),
            rule: "closing",
        };
    }
    Reading {
        label: None,
        rule: "none",
    }
}

/// FOLIO replies name the conclusion before judging it (`the conclusion "Rock is cute" is
/// False`): the quoted conclusion is dropped, so the judgement reads as `the conclusion is
/// False`. Only a quote that closes on the same line within 1,000 bytes counts.
fn unquote_conclusion(answer: &str) -> std::borrow::Cow<'_, str> {
    const HEADS: [&str; 2] = ["the conclusion ", "the statement "];
    // ASCII lowercasing keeps every byte position.
    let lower = answer.to_ascii_lowercase();
    let mut out = String::new();
    // Every place a head starts, in order: one linear pass per head (searching again from
    // each place would be quadratic on a reply repeating "the conclusion").
    let mut places: Vec<(usize, usize)> = HEADS
        .iter()
        .flat_map(|h| lower.match_indices(h).map(|(i, m)| (i, m.len())))
        .collect();
    places.sort_unstable();
    let (mut from, mut at) = (0, 0);
    for (i, head) in places {
        if i < at {
            continue;
        }
        let open = i + head;
        at = open;
        let (close, body) = match answer[open..].chars().next() {
            Some('"') => ('"', open + 1),
            Some('“') => ('”', open + '“'.len_utf8()),
            _ => continue,
        };
        let mut limit = (body + 1000).min(answer.len());
        while !answer.is_char_boundary(limit) {
            limit -= 1;
        }
        let Some(len) = answer[body..limit].find(close) else {
            continue;
        };
        if answer[body..body + len].contains('\n') {
            continue;
        }
        out.push_str(&answer[from..open]);
        from = body + len + close.len_utf8();
        // `the conclusion "…" is` reads as `the conclusion is`: one space, not two.
        from += answer[from..].len() - answer[from..].trim_start_matches(' ').len();
        at = from;
    }
    if from == 0 {
        return std::borrow::Cow::Borrowed(answer);
    }
    out.push_str(&answer[from..]);
    std::borrow::Cow::Owned(out)
}

/// The label a marker points at: the first label word in the rest of its sentence, if
/// the sentence names no other label (`True/False/Uncertain` names three: no answer).
fn label_after(rest: &str, set: LabelSet) -> Option<Label> {
    // The sentence: up to a line break or a full stop followed by a space, looked for in
    // the first 200 bytes only (cut on a character boundary: a reply may be all `≡`), so
    // a reply of many markers and no full stop is not scanned to its end at each one.
    let mut cut = rest.len().min(200);
    while !rest.is_char_boundary(cut) {
        cut -= 1;
    }
    let end = rest[..cut]
        .char_indices()
        .find(|&(i, c)| c == '\n' || (c == '.' && rest[i + 1..].starts_with(char::is_whitespace)))
        .map_or(cut, |(i, _)| i);
    let sentence = &rest[..end];
    // A marker closing its line (`**Final Answer:**` then `- True` below) points at the
    // next line that says something.
    if sentence
        .trim_matches(|c: char| !c.is_alphanumeric())
        .is_empty()
        && rest[end..].starts_with('\n')
    {
        let next = rest[end..]
            .lines()
            .map(|l| {
                l.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '-' | '>' | '•'))
            })
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return label_after(next, set);
    }
    let mut found: Option<Label> = None;
    let mut words = 0;
    for w in sentence.split(|c: char| !c.is_alphanumeric()) {
        if w.is_empty() {
            continue;
        }
        words += 1;
        // A label right at the marker is the answer, whatever the sentence says next
        // (`Answer: Yes, because no other rule applies`), unless it is the template's
        // `True/False/Uncertain` list.
        if words == 1
            && let Some(l) = set.word(w)
        {
            let listed = sentence.trim_start().split_once(w).is_some_and(|(_, r)| {
                let r = r.trim_start().to_ascii_lowercase();
                r.starts_with('/') || r.starts_with("or ") || r.starts_with(", or")
            });
            if !listed {
                return Some(l);
            }
        }
        if let Some(l) = set.word(w) {
            match found {
                None => found = Some(l),
                Some(f) if f != l => return None,
                Some(_) => {}
            }
        } else if found.is_none() && words > 6 {
            // A marker whose label is not near it marks something else ("the answer is
            // that we cannot tell whether…" is not a label).
            return None;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marked_final_answer_wins_over_labels_in_passing() {
        let r = "Premise 2 says it is true that Bonnie attends.\nSo the conclusion is not \
                 supported.\nAnswer: Uncertain";
        assert_eq!(read(r, LabelSet::Folio).label, Some(Label::Uncertain));
        let r = "Answer: True\nWait, premise 3 rules that out.\nAnswer (corrected): False";
        assert_eq!(read(r, LabelSet::Folio).label, Some(Label::False));
        assert_eq!(
            read("Answer: True/False/Uncertain", LabelSet::Folio).label,
            None
        );
        assert_eq!(
            read("**Answer:** false", LabelSet::Folio).label,
            Some(Label::False)
        );
        assert_eq!(
            read("The answer is no.", LabelSet::YesNo).label,
            Some(Label::No)
        );
        assert_eq!(read("Yes", LabelSet::YesNo).rule, "closing");
        assert_eq!(read("It is hard to say.", LabelSet::YesNo).label, None);
        assert_eq!(gold("Unknown", LabelSet::Folio), Some(Label::Uncertain));
        assert_eq!(gold(" Yes ", LabelSet::YesNo), Some(Label::Yes));
    }

    #[test]
    fn a_long_marked_sentence_of_wide_characters_does_not_panic() {
        let r = format!("Answer: {}", "≡".repeat(300));
        assert_eq!(read(&r, LabelSet::Folio).label, None);
        let r = format!("the conclusion \"{}", "“".repeat(600));
        assert_eq!(read(&r, LabelSet::Folio).label, None);
    }

    #[test]
    fn a_reply_repeating_the_conclusion_is_read_in_one_pass() {
        // 60,000 unquoted heads, then the judged conclusion: every head is looked at once.
        let mut r = "the conclusion is open; ".repeat(60_000);
        r.push_str("so the conclusion \"Rock is cute\" is Uncertain.");
        assert_eq!(read(&r, LabelSet::Folio).label, Some(Label::Uncertain));
    }

    #[test]
    fn real_small_model_shapes_read_as_a_person_reads_them() {
        // qwen2.5-coder-0.5b on FOLIO (sample-runs/tasks): the marker closes its line.
        let r = "5. **Final Answer:**\n   - True\n\nJustification: Based on the given premises.";
        assert_eq!(read(r, LabelSet::Folio).label, Some(Label::True));
        // The conclusion quoted before it is judged.
        let r = "Therefore, the conclusion \"If Rock is not both a turtle and a squirrel, then \
                 Rock is either cute or skittish\" is False.";
        assert_eq!(read(r, LabelSet::Folio).label, Some(Label::False));
        let r = "So the statement “Butte and Pierre are in the same state” is true.";
        assert_eq!(read(r, LabelSet::Folio).label, Some(Label::True));
        // A quote that never closes on its line hides nothing.
        let r = "the conclusion \"is open\nso it is Uncertain";
        assert_eq!(read(r, LabelSet::Folio).label, None);
    }
}
