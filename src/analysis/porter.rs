//! The Porter stemmer exactly as nltk's `PorterStemmer()` computes it (its default
//! `NLTK_EXTENSIONS` mode, nltk 3.7): METEOR's stem stage.
//!
//! Words are sequences of Unicode scalar values, as Python indexes them; only the ASCII
//! letters `a e i o u` (and `y` after a consonant) are vowels. Checked against nltk on
//! every token of FOLIO v0.0 and of the metrics oracle (tests/data/meteor/stems.tsv).

/// nltk's irregular forms: word → stem, looked up before any rule.
const POOL: &[(&str, &str)] = &[
    ("sky", "sky"),
    ("skies", "sky"),
    ("dying", "die"),
    ("lying", "lie"),
    ("tying", "tie"),
    ("news", "news"),
    ("innings", "inning"),
    ("inning", "inning"),
    ("outings", "outing"),
    ("outing", "outing"),
    ("cannings", "canning"),
    ("canning", "canning"),
    ("howe", "howe"),
    ("proceed", "proceed"),
    ("exceed", "exceed"),
    ("succeed", "succeed"),
];

type Word = Vec<char>;

/// A rule's condition on the stem left after removing its suffix.
#[derive(Clone, Copy)]
enum Cond {
    None,
    /// m(stem) > 0.
    Positive,
    /// m(stem) > 1.
    Gt1,
    /// m(stem) > 1 and the stem ends in `s` or `t` (step 4's `ion`).
    Ion,
    /// m(word[:-3]) > 0 (nltk's `logi` rule looks at the word, not the stem).
    Logi,
    /// m(word[:-1]) > 1 (step 5b).
    Ll,
    /// m(stem) == 1 and the stem ends consonant-vowel-consonant (step 1b's last rule).
    Cvc1,
}

fn is_consonant(w: &[char], i: usize) -> bool {
    match w[i] {
        'a' | 'e' | 'i' | 'o' | 'u' => false,
        'y' => i == 0 || !is_consonant(w, i - 1),
        _ => true,
    }
}

/// m: the number of vowel→consonant transitions.
fn measure(w: &[char]) -> usize {
    let cv: Vec<bool> = (0..w.len()).map(|i| is_consonant(w, i)).collect();
    cv.windows(2).filter(|p| !p[0] && p[1]).count()
}

fn contains_vowel(w: &[char]) -> bool {
    (0..w.len()).any(|i| !is_consonant(w, i))
}

fn ends_double_consonant(w: &[char]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1)
}

fn ends_cvc(w: &[char]) -> bool {
    let n = w.len();
    (n >= 3
        && is_consonant(w, n - 3)
        && !is_consonant(w, n - 2)
        && is_consonant(w, n - 1)
        && !matches!(w[n - 1], 'w' | 'x' | 'y'))
        || (n == 2 && !is_consonant(w, 0) && is_consonant(w, 1))
}

fn ends_with(w: &[char], suffix: &str) -> bool {
    let s: Vec<char> = suffix.chars().collect();
    w.len() >= s.len() && w[w.len() - s.len()..] == s[..]
}

fn strip(w: &[char], suffix: &str) -> Word {
    w[..w.len() - suffix.chars().count()].to_vec()
}

fn with(mut stem: Word, tail: &str) -> Word {
    stem.extend(tail.chars());
    stem
}

fn holds(c: Cond, stem: &[char], word: &[char]) -> bool {
    match c {
        Cond::None => true,
        Cond::Positive => measure(stem) > 0,
        Cond::Gt1 => measure(stem) > 1,
        Cond::Ion => measure(stem) > 1 && matches!(stem.last(), Some('s' | 't')),
        Cond::Logi => measure(&word[..word.len() - 3]) > 0,
        Cond::Ll => measure(&word[..word.len() - 1]) > 1,
        Cond::Cvc1 => measure(stem) == 1 && ends_cvc(stem),
    }
}

/// nltk's `_apply_rule_list`: the first rule whose suffix matches decides, whether or
/// not its condition holds.
fn apply(word: &[char], rules: &[(&str, &str, Cond)]) -> Word {
    for &(suffix, replacement, cond) in rules {
        if ends_with(word, suffix) {
            let stem = strip(word, suffix);
            return if holds(cond, &stem, word) {
                with(stem, replacement)
            } else {
                word.to_vec()
            };
        }
    }
    word.to_vec()
}

fn step1a(w: &[char]) -> Word {
    if ends_with(w, "ies") && w.len() == 4 {
        return with(strip(w, "ies"), "ie");
    }
    apply(
        w,
        &[
            ("sses", "ss", Cond::None),
            ("ies", "i", Cond::None),
            ("ss", "ss", Cond::None),
            ("s", "", Cond::None),
        ],
    )
}

fn step1b(w: &[char]) -> Word {
    if ends_with(w, "ied") {
        let tail = if w.len() == 4 { "ie" } else { "i" };
        return with(strip(w, "ied"), tail);
    }
    if ends_with(w, "eed") {
        let stem = strip(w, "eed");
        return if measure(&stem) > 0 {
            with(stem, "ee")
        } else {
            w.to_vec()
        };
    }
    let Some(stem) = ["ed", "ing"]
        .iter()
        .find(|s| ends_with(w, s) && contains_vowel(&strip(w, s)))
        .map(|s| strip(w, s))
    else {
        return w.to_vec();
    };
    for (suffix, replacement) in [("at", "ate"), ("bl", "ble"), ("iz", "ize")] {
        if ends_with(&stem, suffix) {
            return with(strip(&stem, suffix), replacement);
        }
    }
    // nltk's "*d" rule: a double consonant other than l, s, z loses one letter. The
    // stem holds a vowel, so it is not empty.
    let last = stem[stem.len() - 1];
    if ends_double_consonant(&stem) {
        return if matches!(last, 'l' | 's' | 'z') {
            stem
        } else {
            let mut s = stem[..stem.len() - 2].to_vec();
            s.push(last);
            s
        };
    }
    // Its literal suffix "*d" (nltk tests `endswith("*d")` when the double-consonant
    // test fails); the tokenizer splits on `*`, but the stemmer stays exact.
    if ends_with(&stem, "*d") {
        let mut s = stem[..stem.len() - 2].to_vec();
        s.push(last);
        return s;
    }
    if holds(Cond::Cvc1, &stem, &stem) {
        with(stem, "e")
    } else {
        stem
    }
}

fn step1c(w: &[char]) -> Word {
    if ends_with(w, "y") {
        let stem = strip(w, "y");
        if stem.len() > 1 && is_consonant(&stem, stem.len() - 1) {
            return with(stem, "i");
        }
    }
    w.to_vec()
}

fn step2(w: &[char]) -> Word {
    if ends_with(w, "alli") && measure(&strip(w, "alli")) > 0 {
        return step2(&with(strip(w, "alli"), "al"));
    }
    use Cond::Positive as P;
    apply(
        w,
        &[
            ("ational", "ate", P),
            ("tional", "tion", P),
            ("enci", "ence", P),
            ("anci", "ance", P),
            ("izer", "ize", P),
            ("bli", "ble", P),
            ("alli", "al", P),
            ("entli", "ent", P),
            ("eli", "e", P),
            ("ousli", "ous", P),
            ("ization", "ize", P),
            ("ation", "ate", P),
            ("ator", "ate", P),
            ("alism", "al", P),
            ("iveness", "ive", P),
            ("fulness", "ful", P),
            ("ousness", "ous", P),
            ("aliti", "al", P),
            ("iviti", "ive", P),
            ("biliti", "ble", P),
            ("fulli", "ful", P),
            ("logi", "log", Cond::Logi),
        ],
    )
}

fn step3(w: &[char]) -> Word {
    use Cond::Positive as P;
    apply(
        w,
        &[
            ("icate", "ic", P),
            ("ative", "", P),
            ("alize", "al", P),
            ("iciti", "ic", P),
            ("ical", "ic", P),
            ("ful", "", P),
            ("ness", "", P),
        ],
    )
}

fn step4(w: &[char]) -> Word {
    use Cond::Gt1 as G;
    apply(
        w,
        &[
            ("al", "", G),
            ("ance", "", G),
            ("ence", "", G),
            ("er", "", G),
            ("ic", "", G),
            ("able", "", G),
            ("ible", "", G),
            ("ant", "", G),
            ("ement", "", G),
            ("ment", "", G),
            ("ent", "", G),
            ("ion", "", Cond::Ion),
            ("ou", "", G),
            ("ism", "", G),
            ("ate", "", G),
            ("iti", "", G),
            ("ous", "", G),
            ("ive", "", G),
            ("ize", "", G),
        ],
    )
}

fn step5a(w: &[char]) -> Word {
    if ends_with(w, "e") {
        let stem = strip(w, "e");
        let m = measure(&stem);
        if m > 1 || (m == 1 && !ends_cvc(&stem)) {
            return stem;
        }
    }
    w.to_vec()
}

fn step5b(w: &[char]) -> Word {
    apply(w, &[("ll", "l", Cond::Ll)])
}

/// nltk's `PorterStemmer().stem(word)` (lowercases first, as nltk does).
pub fn stem(word: &str) -> String {
    let lower = word.to_lowercase();
    if let Some((_, s)) = POOL.iter().find(|(w, _)| *w == word) {
        return (*s).to_string();
    }
    // nltk tests the length of the word as given, not of its lowercasing.
    if word.chars().count() <= 2 {
        return lower;
    }
    let w: Word = lower.chars().collect();
    let w = step1a(&w);
    let w = step1b(&w);
    let w = step1c(&w);
    let w = step2(&w);
    let w = step3(&w);
    let w = step4(&w);
    let w = step5a(&w);
    let w = step5b(&w);
    w.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn agrees_with_nltk_on_every_folio_and_oracle_token() {
        let data = include_str!("../../tests/data/meteor/stems.tsv");
        let mut n = 0;
        let mut wrong = Vec::new();
        for line in data.lines() {
            let (word, want) = line.split_once('\t').expect("word<TAB>stem");
            if stem(word) != want {
                wrong.push(format!("{word}: want {want}, have {}", stem(word)));
            }
            n += 1;
        }
        assert!(n > 6000, "{n} words");
        assert!(
            wrong.is_empty(),
            "{} of {n} differ:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }

    #[test]
    fn textbook_cases() {
        for (w, s) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "tie"),
            ("agreed", "agre"),
            ("hopping", "hop"),
            ("falling", "fall"),
            ("filing", "file"),
            ("relational", "relat"),
            ("generalization", "gener"),
            ("skies", "sky"),
            ("Running", "run"),
        ] {
            assert_eq!(stem(w), s, "{w}");
        }
    }
}
