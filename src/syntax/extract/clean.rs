//! Cleaning a candidate line before it is parsed: wrappers, list markers, regex
//! delimiters, LaTeX and Unicode subscripts, and telling prose and prompt headers apart.

pub(super) fn offset_in(raw: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(raw.as_ptr() as usize)
}

pub(super) fn clean(s: &str) -> &str {
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
        // `\boxed{X}`, the LaTeX habit of maths answers.
        if let Some(x) = s.strip_prefix("\\boxed{").and_then(|x| x.strip_suffix('}')) {
            s = x.trim();
        }
        // A raw-string prefix (`r"(01)*1"`, `r'…'`) and a Markdown quote (`> X`).
        for q in ["r\"", "r'"] {
            if s.len() > 3 && s.starts_with(q) && s.ends_with(&q[1..]) {
                s = s[2..s.len() - 1].trim();
            }
        }
        if let Some(x) = s.strip_prefix("> ") {
            s = x.trim_start();
        }
        s = strip_list_marker(s);
        if let Some(x) = s
            .strip_suffix('.')
            .or_else(|| s.strip_suffix(';'))
            .or_else(|| s.strip_suffix(','))
        {
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
pub(super) fn strip_regex_delimiters(s: &str) -> &str {
    let mut t = s;
    if let Some(x) = t.strip_prefix('/').and_then(|x| x.strip_suffix('/')) {
        t = x;
    }
    t = t.strip_prefix('^').unwrap_or(t);
    t.strip_suffix('$').unwrap_or(t)
}

/// LaTeX subscripts in names (`p_1`, `x_{2}`) written as the plain name (`p1`, `x2`),
/// only in LaTeX candidates, where `_` is a subscript and not part of a name.
pub(super) fn latex_subscripts(s: &str) -> Option<String> {
    if !s.contains('\\') {
        return None;
    }
    subscripts(s)
}

/// `p_1`, `x_{2}` written as `p1`, `x2`.
pub(super) fn subscripts(s: &str) -> Option<String> {
    if !s.contains('_') {
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
pub(super) fn ends_in_quantifier(prefix: &str) -> bool {
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

pub(super) fn is_prose(s: &str) -> bool {
    let words: Vec<&str> = s.split_whitespace().collect();
    words.len() >= 2
        && words
            .iter()
            .any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
}

/// Whether a trimmed line is a prompt header such as `[TASK]` or `[EXAMPLE 2]`.
pub(crate) fn is_header(line: &str) -> bool {
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

/// `\text{pred}` (and `\mathrm`, `\textit`, `\operatorname`, `\mathit`) written as `pred`.
pub(super) fn latex_text(s: &str) -> Option<String> {
    const CMDS: [&str; 6] = [
        "\\text{",
        "\\mathrm{",
        "\\textit{",
        "\\mathit{",
        "\\textrm{",
        "\\operatorname{",
    ];
    if !CMDS.iter().any(|c| s.contains(c)) {
        return None;
    }
    let mut out = s.to_string();
    for c in CMDS {
        while let Some(i) = out.find(c) {
            let body = i + c.len();
            let Some(j) = out[body..].find('}') else {
                break;
            };
            let inner = out[body..body + j].to_string();
            out.replace_range(i..=body + j, &inner);
        }
    }
    Some(out)
}
