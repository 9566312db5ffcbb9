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
    labelled(names, w).0
}

/// Whether every name in `w` columns is told apart by its own text, without the
/// `#N` of its place (a view that can widen its columns widens them until so).
pub(crate) fn apart_by_text(names: &[String], w: usize) -> bool {
    !labelled(names, w).1
}

/// [`distinct`]'s labels, and whether some needed their place (`#N`) to stay apart.
fn labelled(names: &[String], w: usize) -> (Vec<String>, bool) {
    use unicode_width::UnicodeWidthStr;
    let tags = place_tags(names);
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
    let starts: Vec<usize> = names
        .iter()
        .map(|n| {
            uniq.iter()
                .filter(|o| **o != n.as_str())
                .map(|o| shared_start(n, o))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let labels = own_labels(names, &tags, end, w, starts);
    // Still too wide: the widest part of the name no other name has (its model, its
    // prompt condition) when one fits, else the end, where names usually differ.
    let wide = w >= 2 && uniq.len() > 1 && labels.iter().any(|l| l.width() > w);
    let windows = wide.then(|| Windows::of(&uniq));
    let labels: Vec<String> = labels
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            if l.width() <= w || w < 2 || uniq.len() < 2 {
                l
            } else if let (true, Some(ws)) = (tags[i].is_empty(), &windows) {
                ws.own(&names[i], w).unwrap_or_else(|| tail(&l, w))
            } else {
                tail(&l, w)
            }
        })
        .collect();
    if uniq.len() < 2 {
        return (labels, false);
    }
    apart(labels, w)
}

/// Each name's place among equal names (`#2`), empty for a name no other has.
fn place_tags(names: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashMap::new();
    let dup: Vec<usize> = names
        .iter()
        .map(|n| {
            let k = seen.entry(n.as_str()).or_insert(0usize);
            *k += 1;
            *k
        })
        .collect();
    (0..names.len())
        .map(|i| {
            if names.iter().filter(|n| **n == names[i]).count() > 1 {
                format!("#{}", dup[i])
            } else {
                String::new()
            }
        })
        .collect()
}

/// The labels cut after each name's shared start (`starts`) and before the `end` all
/// share. Two names may differ from their closest neighbours in the same way
/// (`fol-qwen-0.5b` and `pl-qwen-0.5b` both read `…0.5b`): those keep more of their
/// start, a word at a time, until every label is its own.
fn own_labels(
    names: &[String],
    tags: &[String],
    end: usize,
    w: usize,
    mut starts: Vec<usize>,
) -> Vec<String> {
    let of = |i: usize, most: usize| label(&names[i], &tags[i], end, w, most);
    let mut labels: Vec<String> = (0..names.len()).map(|i| of(i, starts[i])).collect();
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
            return labels;
        }
        labels = (0..names.len()).map(|i| of(i, starts[i])).collect();
    }
}

/// Name `n` (with its place `tag`) in `w` columns: whole when it fits, else cut at
/// `most` bytes from its start, or less when that already fits (as much context as
/// room allows), and `end` bytes before its end.
fn label(n: &str, tag: &str, end: usize, w: usize, most: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    let whole = format!("{n}{tag}");
    if whole.width() <= w {
        return whole;
    }
    let at = |start: usize| {
        let end = if n.len() > start + end { end } else { 0 };
        cut(n, start, end, tag)
    };
    cuts(n)
        .into_iter()
        .filter(|&c| c <= most && c < n.len())
        .map(at)
        .find(|l| l.width() <= w)
        .unwrap_or_else(|| at(most))
}

/// `n` without its first `start` and last `end` bytes, `…` where a part was dropped.
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

/// A part of a name, cut at separators, as a label shows it: `…` where something was
/// dropped before or after it.
fn window(n: &str, a: usize, b: usize) -> String {
    let raw = &n[a..b];
    let mid = match raw.trim_matches(is_sep) {
        "" => raw,
        m => m,
    };
    format!(
        "{}{mid}{}",
        if a > 0 { "…" } else { "" },
        if b < n.len() { "…" } else { "" },
    )
}

/// Most cut points of a name searched for its own part (longer names keep their end).
const MAX_CUTS: usize = 24;

/// Every part of every name as a label would show it, to find a part of one name no
/// other name shows the same way.
struct Windows<'a> {
    /// Label text → the names showing it.
    seen: std::collections::HashMap<String, std::collections::HashSet<&'a str>>,
}

impl<'a> Windows<'a> {
    /// The windows of `names`, each name's cut points capped at [`MAX_CUTS`].
    fn of(names: &[&'a str]) -> Self {
        let mut seen: std::collections::HashMap<String, std::collections::HashSet<&str>> =
            std::collections::HashMap::new();
        for n in names {
            for (a, b) in Self::spans(n) {
                seen.entry(window(n, a, b)).or_default().insert(n);
            }
        }
        Windows { seen }
    }

    /// The (start, end) of each part of `n` searched.
    fn spans(n: &str) -> Vec<(usize, usize)> {
        let c = cuts(n);
        let c = &c[c.len().saturating_sub(MAX_CUTS)..];
        let mut v = Vec::new();
        for (k, &a) in c.iter().enumerate() {
            for &b in &c[k + 1..] {
                v.push((a, b));
            }
        }
        // The whole name even when its start was beyond the cap.
        v.push((0, n.len()));
        v
    }

    /// The widest part of `n` within `w` columns that no other name shows the same way
    /// (ties: the later part, where the model usually is).
    fn own(&self, n: &str, w: usize) -> Option<String> {
        use unicode_width::UnicodeWidthStr;
        Self::spans(n)
            .into_iter()
            .map(|(a, b)| (b, window(n, a, b)))
            .filter(|(_, l)| l.width() <= w)
            .filter(|(_, l)| {
                self.seen
                    .get(l)
                    .is_none_or(|s| s.len() == 1 && s.contains(n))
            })
            .max_by_key(|(b, l)| (l.width(), *b))
            .map(|(_, l)| l)
    }
}

/// Labels still equal (cut to the same end, or names alike in ways no part within `w`
/// tells apart) get their place in the view, `#N`, kept whole at the end: two such
/// labels differ after their last `#`, so the result is pairwise different.
fn apart(mut labels: Vec<String>, w: usize) -> (Vec<String>, bool) {
    use unicode_width::UnicodeWidthStr;
    let mut tagged = vec![false; labels.len()];
    loop {
        let mut count: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for l in &labels {
            *count.entry(l.as_str()).or_insert(0) += 1;
        }
        let clash: Vec<usize> = (0..labels.len())
            .filter(|&i| !tagged[i] && count.get(labels[i].as_str()).copied().unwrap_or(0) > 1)
            .collect();
        if clash.is_empty() {
            return (labels, tagged.contains(&true));
        }
        for i in clash {
            let tag = format!("#{}", i + 1);
            let room = w.saturating_sub(tag.width());
            let l = &labels[i];
            let head = if l.width() <= room {
                l.clone()
            } else if room >= 2 {
                tail(l, room)
            } else {
                String::new()
            };
            labels[i] = format!("{head}{tag}");
            tagged[i] = true;
        }
    }
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
        // Narrower: what only that name has stays (`english`), else the end, apart.
        let got = distinct(&n, 9);
        assert_eq!(got[4], "…english…");
        // fol-qwen-0.5b and pl-qwen-0.5b both end `…wen-0.5b`: told apart by place.
        assert_eq!(got[0], "…n-0.5b#1");
        let set: std::collections::HashSet<&String> = got.iter().collect();
        assert_eq!(set.len(), n.len(), "{got:?}");
    }

    #[test]
    fn the_sample_runs_stay_apart_in_a_matrix_column() {
        let n = v(&[
            "pl-qwen-0.5b",
            "pl-qwen-1.5b",
            "pl-2shot-qwen-0.5b",
            "pl-2shot-qwen-1.5b",
            "fol-english-gemma-3-270m",
            "fol-gemma-3-270m",
            "pl-gemma-3-270m",
            "regex-gemma-3-270m",
        ]);
        for w in 4..30 {
            let got = distinct(&n, w);
            let set: std::collections::HashSet<&String> = got.iter().collect();
            assert_eq!(set.len(), n.len(), "{w}: {got:?}");
        }
        // The part that tells a 2-shot run from its 0-shot twin is kept.
        let got = distinct(&n, 16);
        assert!(
            got[2].contains("2shot") && got[2].contains("0.5b"),
            "{got:?}"
        );
    }

    use proptest::strategy::Strategy;

    proptest::proptest! {
        /// Whatever the names and however narrow the column (as narrow as any view
        /// draws one at 80 columns or more), the labels in view are pairwise different
        /// and fit.
        #[test]
        fn labels_in_view_are_pairwise_different(
            names in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::sample::select(vec![
                        "pl", "fol", "regex", "2shot", "english", "qwen", "0.5b", "1.5b",
                        "gemma", "3", "270m", "perturb", "seed1", "a", "ab", "x.y", "é",
                    ]),
                    1..7,
                )
                .prop_map(|t| t.join("-")),
                1..30,
            ),
            w in 4usize..40,
        ) {
            use unicode_width::UnicodeWidthStr;
            let got = distinct(&names, w);
            proptest::prop_assert_eq!(got.len(), names.len());
            let set: std::collections::HashSet<&String> = got.iter().collect();
            proptest::prop_assert_eq!(set.len(), names.len(), "{:?} → {:?}", names, got);
            let mut uniq = names.clone();
            uniq.sort();
            uniq.dedup();
            if uniq.len() > 1 {
                for l in &got {
                    proptest::prop_assert!(l.width() <= w, "{} wider than {}", l, w);
                }
            }
        }
    }
}
