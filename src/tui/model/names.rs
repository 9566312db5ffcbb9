//! Run names that can be told apart in a narrow column: what several names share at
//! their start and end is dropped (marked `…`), so `fol-english-gpt-4o` and
//! `fol-english-qwen-7b` read `…gpt-4o` and `…qwen-7b` instead of `fol-english…` twice.

/// Where a name may be cut: after one of these, so parts stay whole words.
fn is_sep(c: char) -> bool {
    matches!(c, '-' | '_' | '.' | '/' | ' ' | ':')
}

/// Byte offsets where a name may be cut (0 and its length included).
fn cuts(s: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(
        s.char_indices()
            .filter(|(_, c)| is_sep(*c))
            .map(|(i, c)| i + c.len_utf8()),
    );
    if v.last() != Some(&s.len()) {
        v.push(s.len());
    }
    v
}

/// The longest start of `a`, cut after a separator, that `b` shares (`b` may also be
/// that start without its separator: `fol` against `fol-english`), leaving `a`
/// something after it.
fn shared_start(a: &str, b: &str) -> usize {
    cuts(a)
        .into_iter()
        .rev()
        .find(|&c| {
            c < a.len() && {
                let head = &a[..c];
                b.starts_with(head) || (c > 0 && b == &head[..head.len() - 1])
            }
        })
        .unwrap_or(0)
}

/// The same for the end (a suffix that starts right after a separator).
fn common_end(names: &[&str], start: usize) -> usize {
    let Some(first) = names.first() else {
        return 0;
    };
    let shortest = names.iter().map(|n| n.len()).min().unwrap_or(0);
    cuts(first)
        .into_iter()
        .map(|c| first.len() - c)
        .filter(|&len| len < shortest.saturating_sub(start))
        .rev()
        .filter(|&len| len > 0)
        .filter(|&len| {
            let tail = &first[first.len() - len..];
            names.iter().all(|n| {
                let at = n.len() - len;
                n.is_char_boundary(at) && &n[at..] == tail && n[..at].ends_with(is_sep)
            })
        })
        .max()
        .unwrap_or(0)
}

/// Each name as it fits `w` columns: whole when it fits, else the part that differs
/// from the others with `…` where a shared start or end was dropped. Equal names get
/// their position (`#2`). Names of one run, or when all fit, come back unchanged.
pub fn distinct(names: &[String], w: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthStr;
    let fits = |s: &str| s.width() <= w;
    let mut seen = std::collections::HashMap::new();
    let dup: Vec<usize> = names
        .iter()
        .map(|n| {
            let k = seen.entry(n.as_str()).or_insert(0usize);
            *k += 1;
            *k
        })
        .collect();
    let repeated = |i: usize| names.iter().filter(|n| **n == names[i]).count() > 1;
    let uniq: Vec<&str> = {
        let mut u: Vec<&str> = names.iter().map(String::as_str).collect();
        u.sort_unstable();
        u.dedup();
        u
    };
    let end = if uniq.len() > 1 {
        common_end(&uniq, 0)
    } else {
        0
    };
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let tag = if repeated(i) {
                format!("#{}", dup[i])
            } else {
                String::new()
            };
            let whole = format!("{n}{tag}");
            if fits(&whole) {
                return whole;
            }
            // The start shared with the closest other name; the end shared by all.
            let start = uniq
                .iter()
                .filter(|o| **o != n.as_str())
                .map(|o| shared_start(n, o))
                .max()
                .unwrap_or(0);
            let end = if n.len() > start + end { end } else { 0 };
            let mid = n[start..n.len() - end].trim_matches(is_sep);
            let mid = if mid.is_empty() {
                &n[start..n.len() - end]
            } else {
                mid
            };
            let mut s = String::new();
            if start > 0 {
                s.push('…');
            }
            s.push_str(mid);
            if end > 0 {
                s.push('…');
            }
            s.push_str(&tag);
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn shared_start_and_end_are_dropped_when_names_do_not_fit() {
        let n = v(&[
            "fol-english-gpt-4o-seed1",
            "fol-english-qwen-7b-seed1",
            "fol-english-llama-3-seed1",
        ]);
        assert_eq!(distinct(&n, 12), ["…gpt-4o…", "…qwen-7b…", "…llama-3…"]);
        // Wide enough: whole names.
        assert_eq!(distinct(&n, 40), n);
    }

    #[test]
    fn a_name_that_is_the_others_start_keeps_something() {
        let n = v(&["fol", "fol-english"]);
        assert_eq!(distinct(&n, 5), ["fol", "…english"]);
    }

    #[test]
    fn equal_names_are_numbered_and_one_name_is_kept() {
        assert_eq!(distinct(&v(&["pl", "pl"]), 10), ["pl#1", "pl#2"]);
        assert_eq!(distinct(&v(&["a-very-long-name"]), 4), ["a-very-long-name"]);
        assert_eq!(distinct(&v(&["é-x", "é-y"]), 2), ["…x", "…y"]);
    }
}
