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
    let mut seen = std::collections::HashMap::new();
    let dup: Vec<usize> = names
        .iter()
        .map(|n| {
            let k = seen.entry(n.as_str()).or_insert(0usize);
            *k += 1;
            *k
        })
        .collect();
    let tags: Vec<String> = (0..names.len())
        .map(|i| {
            if names.iter().filter(|n| **n == names[i]).count() > 1 {
                format!("#{}", dup[i])
            } else {
                String::new()
            }
        })
        .collect();
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
    // The start shared with the closest other name; the end shared by all.
    let mut starts: Vec<usize> = names
        .iter()
        .map(|n| {
            uniq.iter()
                .filter(|o| **o != n.as_str())
                .map(|o| shared_start(n, o))
                .max()
                .unwrap_or(0)
        })
        .collect();
    // Cut at `start`, or less when that already fits: as much context as room allows.
    let label = |i: usize, most: usize| {
        let n = &names[i];
        let whole = format!("{n}{}", tags[i]);
        if whole.width() <= w {
            return whole;
        }
        let at = |start: usize| {
            let end = if n.len() > start + end { end } else { 0 };
            cut(n, start, end, &tags[i])
        };
        cuts(n)
            .into_iter()
            .filter(|&c| c <= most && c < n.len())
            .map(at)
            .find(|l| l.width() <= w)
            .unwrap_or_else(|| at(most))
    };
    fn cut(n: &str, start: usize, end: usize, tag: &str) -> String {
        let raw = &n[start..n.len() - end];
        let mid = match raw.trim_matches(is_sep) {
            "" => raw,
            m => m,
        };
        format!(
            "{}{mid}{}{tag}",
            if start > 0 { "…" } else { "" },
            if end > 0 { "…" } else { "" },
        )
    }
    // Two names may differ from their closest neighbours in the same way
    // (`fol-qwen-0.5b` and `pl-qwen-0.5b` both read `…0.5b`): those keep more of
    // their start, a word at a time, until every label is its own.
    let mut labels: Vec<String> = (0..names.len()).map(|i| label(i, starts[i])).collect();
    loop {
        let mut changed = false;
        for i in 0..names.len() {
            let clash = (0..names.len()).any(|j| j != i && labels[j] == labels[i]);
            if clash && starts[i] > 0 {
                starts[i] = cuts(&names[i])
                    .into_iter()
                    .filter(|&c| c < starts[i])
                    .max()
                    .unwrap_or(0);
                changed = true;
            }
        }
        if !changed {
            break;
        }
        labels = (0..names.len()).map(|i| label(i, starts[i])).collect();
    }
    // Still too wide: keep the end, where names usually differ (the model).
    labels
        .into_iter()
        .map(|l| {
            if l.width() <= w || w < 2 || uniq.len() < 2 {
                l
            } else {
                tail(&l, w)
            }
        })
        .collect()
}

/// `…` and the last `w - 1` columns of `s` (without its own leading `…`).
fn tail(s: &str, w: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let s = s.strip_prefix('…').unwrap_or(s);
    let mut keep = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let cw = c.width().unwrap_or(0);
        if used + cw > w - 1 {
            break;
        }
        used += cw;
        keep.push(c);
    }
    std::iter::once('…').chain(keep.into_iter().rev()).collect()
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
        assert_eq!(distinct(&n, 8), ["fol", "…english"]);
    }

    #[test]
    fn equal_names_are_numbered_and_one_name_is_kept() {
        assert_eq!(distinct(&v(&["pl", "pl"]), 10), ["pl#1", "pl#2"]);
        assert_eq!(distinct(&v(&["a-very-long-name"]), 4), ["a-very-long-name"]);
        assert_eq!(distinct(&v(&["é-x", "é-y"]), 2), ["…x", "…y"]);
    }

    #[test]
    fn names_that_differ_alike_from_their_neighbours_keep_more_of_their_start() {
        let n = v(&[
            "fol-qwen-0.5b",
            "fol-qwen-1.5b",
            "pl-qwen-0.5b",
            "pl-qwen-1.5b",
            "fol-english-gemma-3-270m",
            "fol-gemma-3-270m",
        ]);
        let got = distinct(&n, 22);
        assert_eq!(
            got,
            [
                "fol-qwen-0.5b",
                "fol-qwen-1.5b",
                "pl-qwen-0.5b",
                "pl-qwen-1.5b",
                "…english-gemma-3-270m",
                "fol-gemma-3-270m",
            ]
        );
        // Narrower: the ends stay, and stay apart.
        assert_eq!(distinct(&n, 9)[4], "…a-3-270m");
        assert_eq!(distinct(&n, 9)[0], "…qwen-0.5b".replace("…q", "…"));
    }
}
