//! Tests of the search: the fast matcher and scorer against the plain scan, jobs in pieces, the worker.
use super::job::{LABEL_ONLY, PIECE, rank_order, run_job_until};
use super::*;
use crate::tui::data::TextStore;
use std::collections::HashSet;
use std::sync::mpsc;

#[test]
fn compact_fuzzy_matches() {
    let q = Query::new("p12");
    assert!(q.matches("(p12 ∧ p3)"));
    assert!(q.matches("p1_2"), "small gaps are fine");
    assert!(
        !q.matches("p3 ∧ (p4 ∨ p5) ∧ ¬p6 ∨ (p7 ∧ p8 ∧ p9) ∨ q1 ∧ ¬(q3 ∨ q4) ∧ q2"),
        "scattered letters are not"
    );
    assert!(
        !Query::new("EITHER").matches("x\u{1f}Either p1 or p2"),
        "uppercase respects case"
    );
    assert!(Query::new("either").matches("x\u{1f}Either p1 or p2"));
    assert!(Query::new("p1∧").matches("¬p1 ∧ p2"));
    assert!(!Query::new("zz").matches("p1"));
    assert!(!Query::new("p12").positions("(p12 ∧ p3)").is_empty());
}

#[test]
fn scores_rank_tight_matches_first_and_respect_char_boundaries() {
    let q = Query::new("p12");
    let exact = q.score("x\u{1f}(p12 ∧ p3)").unwrap();
    let gappy = q.score("x\u{1f}(p1_2 ∧ p3)").unwrap();
    assert!(exact > gappy, "{exact} vs {gappy}");
    assert_eq!(q.score("p3 ∧ p4"), None);
    // Windows that start or end next to multi-byte characters are cut on boundaries.
    let q = Query::new("∧¬");
    for t in ["¬∧¬p", "∧¬", "p∧∧¬¬", "∀x∃y(∧ ¬)"] {
        assert!(q.score(t).is_some(), "{t}");
    }
}

/// A row that matches a query matches every prefix of it (narrowing is sound).
#[test]
fn matches_are_closed_under_prefixes() {
    let mut rng = crate::base::rng::Rng::new(5);
    let alphabet = b"p12 x";
    for _ in 0..20_000 {
        let len = 1 + rng.below(40);
        let text: String = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())] as char)
            .collect();
        let qlen = 1 + rng.below(5);
        let q: String = (0..qlen).map(|_| alphabet[rng.below(3)] as char).collect();
        if Query::new(&q).matches(&text) {
            for k in 1..q.len() {
                assert!(
                    Query::new(&q[..k]).matches(&text),
                    "{q:?} matches {text:?} but {:?} does not",
                    &q[..k]
                );
            }
        }
    }
}

/// A job over two runs and many pieces, with label-only rows, gives what scoring
/// each row on its own and sorting gives; an overtaken job gives nothing.
#[test]
fn a_job_in_pieces_equals_row_by_row_scoring() {
    use std::sync::Arc;
    let mut rng = crate::base::rng::Rng::new(7);
    let atoms = ["p", "1", "2", " ", "∧", "P", "x"];
    let n = 2 * PIECE as u32 + 123;
    let texts: Vec<String> = (0..n)
        .map(|_| {
            let field = |rng: &mut crate::base::rng::Rng| -> String {
                (0..rng.below(14))
                    .map(|_| atoms[rng.below(atoms.len())])
                    .collect()
            };
            let (a, b, c) = (field(&mut rng), field(&mut rng), field(&mut rng));
            format!("{a}{SEP}{b}{SEP}{c}")
        })
        .collect();
    let store: TextStore = texts.iter().map(|t| t.as_str().into()).collect();
    let text_of: Vec<Arc<[u32]>> = vec![(0..n).collect(), (0..n).rev().collect()];
    let pool: Vec<(u32, u32)> = (0..2u32)
        .flat_map(|r| (0..n).map(move |i| (r, i)))
        .filter(|&(r, i)| (i + r) % 7 != 0)
        .collect();
    let by_label: HashSet<(u32, u32)> = pool.iter().copied().step_by(501).collect();
    for (query, ranked) in [("p12", true), ("p12", false), ("P", true), ("x∧", false)] {
        let job = Job {
            generation: 1,
            query: query.into(),
            pool: Arc::new(pool.clone()),
            text_of: text_of.clone(),
            stores: vec![store.clone(), store.clone()],
            by_label: by_label.clone(),
            ranked,
            reasoning: false,
            blind: false,
        };
        let q = Plain::new(query);
        let mut want: Vec<((u32, u32), i64)> = pool
            .iter()
            .filter_map(|&(r, i)| {
                let t = &texts[text_of[r as usize][i as usize] as usize];
                let s = if ranked {
                    q.score(t)
                } else {
                    q.matches(t).then_some(0)
                };
                s.or(by_label.contains(&(r, i)).then_some(LABEL_ONLY))
                    .map(|s| ((r, i), s))
            })
            .collect();
        if ranked {
            want.sort_by(rank_order);
        }
        let got = run_job(&job);
        assert!(
            got.rows.len() > 1000 && got.rows.len() < pool.len(),
            "{query}"
        );
        assert_eq!(
            got.rows,
            want.iter().map(|w| w.0).collect::<Vec<_>>(),
            "{query}"
        );
        let scores: Vec<i64> = if ranked {
            want.iter().map(|w| w.1).collect()
        } else {
            Vec::new()
        };
        assert_eq!(got.scores, scores, "{query}");
        assert_eq!(
            run_job_until(&job, &|| true),
            None,
            "an overtaken search stops"
        );
    }
}

/// The worker delivers the newest search only: an older one queued after it is
/// overtaken before it starts, whether or not both arrive together.
#[test]
fn the_worker_delivers_only_the_newest_search() {
    use std::sync::Arc;
    let texts = [
        "p12 ∧ p3\u{1f}x\u{1f}p12",
        "q\u{1f}p1_2\u{1f}q",
        "none\u{1f}\u{1f}",
    ];
    let store: TextStore = texts.iter().map(|&t| t.into()).collect();
    let job = |generation| Job {
        generation,
        query: "p12".into(),
        pool: Arc::new(vec![(0, 0), (0, 1), (0, 2)]),
        text_of: vec![Arc::from(vec![0, 1, 2])],
        stores: vec![store.clone()],
        by_label: HashSet::new(),
        ranked: true,
        reasoning: false,
        blind: false,
    };
    let (tx, rx) = mpsc::channel();
    let worker = Worker::start(move |g, found| tx.send((g, found)).is_ok());
    worker.submit(job(2));
    worker.submit(job(1));
    let (g, found) = rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
    assert_eq!(g, 2);
    assert_eq!(found.rows, vec![(0, 0), (0, 1)]);
    assert!(
        rx.recv_timeout(std::time::Duration::from_millis(300))
            .is_err(),
        "the overtaken search was delivered"
    );
}

/// The straightforward matcher and scorer the fast ones replaced: a byte-by-byte
/// scan from every start, every window of a field compared.
struct Plain {
    bytes: Vec<u8>,
    fold: bool,
    raw: String,
}

impl Plain {
    fn new(q: &str) -> Plain {
        let raw: String = q.split_whitespace().collect();
        let fold = !raw.chars().any(char::is_uppercase);
        let bytes = raw
            .bytes()
            .map(|b| if fold { b.to_ascii_lowercase() } else { b })
            .collect();
        Plain { bytes, fold, raw }
    }

    fn eq(&self, a: u8, q: u8) -> bool {
        a == q || (self.fold && a.to_ascii_lowercase() == q)
    }

    fn window_at(&self, field: &[u8], from: usize) -> Option<(usize, usize)> {
        let q = &self.bytes;
        let mut start = from;
        while start < field.len() {
            let k = field[start..].iter().position(|&b| self.eq(b, q[0]))?;
            let s = start + k;
            let mut qi = 1;
            let mut i = s + 1;
            while qi < q.len() {
                let deadline = (s + 3 * (qi + 1) + 6).min(field.len());
                while i < deadline && !self.eq(field[i], q[qi]) {
                    i += 1;
                }
                if i >= deadline {
                    break;
                }
                qi += 1;
                i += 1;
            }
            if qi == q.len() {
                return Some((s, i));
            }
            start = s + 1;
        }
        None
    }

    fn matches(&self, text: &str) -> bool {
        self.bytes.is_empty()
            || text
                .split(SEP)
                .any(|f| self.window_at(f.as_bytes(), 0).is_some())
    }

    fn score(&self, text: &str) -> Option<i64> {
        if self.bytes.is_empty() {
            return Some(0);
        }
        let skim = if self.fold {
            SkimMatcherV2::default().ignore_case()
        } else {
            SkimMatcherV2::default().respect_case()
        };
        let mut best = None;
        for f in text.split(SEP) {
            let bytes = f.as_bytes();
            let mut tightest: Option<(usize, usize)> = None;
            let mut from = 0;
            while let Some((a, b)) = self.window_at(bytes, from) {
                from = a + 1;
                if tightest.is_none_or(|(x, y)| b - a < y - x) {
                    tightest = Some((a, b));
                }
            }
            if let Some((a, b)) = tightest {
                let lo = floor_char(f, a.saturating_sub(2));
                let hi = ceil_char(f, (b + 2).min(f.len()));
                best = best.max(skim.fuzzy_match(&f[lo..hi], &self.raw));
            }
        }
        best
    }
}

/// Texts and queries over a small alphabet that collides often: capitals, digits,
/// multi-byte symbols (whose bytes share prefixes), spaces and the field separator.
fn pieces() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let atoms = [
        "p", "P", "1", "2", "x", "X", " ", "∧", "¬", "∨", "é", "É", "ß", "(", "_", "\u{1f}",
    ];
    proptest::collection::vec(proptest::sample::select(atoms.to_vec()), 0..60)
        .prop_map(|v| v.concat())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
    /// The fast matcher and scorer agree with the plain ones on every text and query,
    /// folded or not, ASCII or multi-byte.
    #[test]
    fn fast_matching_and_scoring_agree_with_the_plain_scan(
        text in pieces(),
        q in proptest::sample::select(vec![
            "p", "P", "p1", "p12", "P12", "p 1 2", "x∧", "∧¬", "¬p", "é", "É1", "ß", "px",
            "pX", "12", "(p", "p_2", "∨x", "1p2x", "p∧p∧p",
        ]),
    ) {
        let (fast, plain) = (Query::new(q).with_reasoning(true), Plain::new(q));
        proptest::prop_assert_eq!(fast.matches(&text), plain.matches(&text));
        proptest::prop_assert_eq!(fast.score(&text), plain.score(&text));
        // Without reasoning only φ₀, ψ and φ₁ count.
        let three = first_three(&text);
        proptest::prop_assert_eq!(Query::new(q).matches(&text), plain.matches(&three));
        proptest::prop_assert_eq!(Query::new(q).score(&text), plain.score(&three));
    }

    /// Scores remembered across rows are the scores; fields split as `str::split`.
    #[test]
    fn remembered_scores_and_fields_agree(
        texts in proptest::collection::vec(pieces(), 1..40),
        q in proptest::sample::select(vec!["p", "p12", "P1", "∧¬", "x p", "é"]),
    ) {
        let (fast, plain) = (Query::new(q).with_reasoning(true), Plain::new(q));
        let mut memo = Memo::default();
        for t in &texts {
            proptest::prop_assert_eq!(fast.score_with(t, &mut memo), plain.score(t));
            proptest::prop_assert_eq!(
                fields(t).collect::<Vec<_>>(),
                t.split(SEP).collect::<Vec<_>>()
            );
        }
    }

    /// The same with queries drawn from the texts' own alphabet.
    #[test]
    fn fast_scoring_agrees_on_random_queries(text in pieces(), q in pieces()) {
        let q: String = q.chars().filter(|&c| c != SEP).take(6).collect();
        let (fast, plain) = (Query::new(&q).with_reasoning(true), Plain::new(&q));
        proptest::prop_assert_eq!(fast.matches(&text), plain.matches(&text));
        proptest::prop_assert_eq!(fast.score(&text), plain.score(&text));
        let three = first_three(&text);
        proptest::prop_assert_eq!(Query::new(&q).score(&text), plain.score(&three));
    }
}

/// A row text's φ₀, ψ and φ₁ (what a search without reasoning looks at).
fn first_three(text: &str) -> String {
    text.split(SEP)
        .take(3)
        .collect::<Vec<_>>()
        .join(&SEP.to_string())
}

#[test]
fn reasoning_is_searched_only_when_asked() {
    let sep = super::SEP;
    let text = format!("p1 ∧ p2{sep}both hold{sep}p1 ∧ p2{sep}first draft: zebra");
    assert!(!Query::new("zebra").matches(&text));
    assert!(Query::new("zebra").with_reasoning(true).matches(&text));
    assert!(
        Query::new("zebra")
            .with_reasoning(true)
            .score(&text)
            .is_some()
    );
    assert!(Query::new("zebra").score(&text).is_none());
    // A row without reasoning has three fields: the toggle changes nothing.
    let plain = format!("p1{sep}one{sep}p1");
    assert!(Query::new("one").with_reasoning(true).matches(&plain));
}
