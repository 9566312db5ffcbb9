//! BERT's uncased WordPiece tokeniser, as the Python `BertTokenizer` (the slow one
//! bert-score loads) runs it: clean, space CJK, lowercase, strip accents, split off
//! punctuation, then greedy longest-match WordPiece with `##` continuations.

use std::collections::HashMap;
use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

/// Words longer than this many characters become `[UNK]` (BERT's `max_input_chars_per_word`).
const MAX_WORD_CHARS: usize = 100;
/// Longest vocabulary accepted (entries); BERT's has 30,522.
pub(crate) const MAX_VOCAB: usize = 1 << 20;

/// BERT's special tokens: written literally (case-sensitive) in the input, each is one
/// id, as the Python tokenizer matches them before normalising.
const SPECIALS: [&str; 5] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

/// A WordPiece vocabulary with the ids of the special tokens.
#[derive(Debug)]
pub(crate) struct WordPiece {
    ids: HashMap<String, u32>,
    specials: Vec<(&'static str, u32)>,
    pub(crate) unk: u32,
    pub(crate) cls: u32,
    pub(crate) sep: u32,
}

impl WordPiece {
    /// Reads `vocab.txt` text: one token a line, the id is the line number.
    pub(crate) fn from_vocab(text: &str) -> Result<Self, String> {
        let mut ids = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            if n >= MAX_VOCAB {
                return Err(format!("more than {MAX_VOCAB} entries"));
            }
            // `vocab.txt` may end lines with `\r\n`; the token itself never holds one.
            let tok = line.trim_end_matches('\r');
            // A later duplicate replaces the earlier id, as Python's `load_vocab` does.
            ids.insert(tok.to_string(), n as u32);
        }
        Self::from_ids(ids)
    }

    /// Reads the `model.vocab` map of a `tokenizer.json` (a WordPiece model with `##`
    /// continuations), the only vocabulary the pip package ships.
    pub(crate) fn from_tokenizer_json(text: &str) -> Result<Self, String> {
        #[derive(serde::Deserialize)]
        struct File {
            model: Model,
        }
        #[derive(serde::Deserialize)]
        struct Model {
            #[serde(rename = "type")]
            kind: Option<String>,
            continuing_subword_prefix: Option<String>,
            vocab: HashMap<String, u32>,
        }
        let f: File =
            serde_json::from_str(text).map_err(|e| format!("not a tokenizer.json: {e}"))?;
        if let Some(k) = f.model.kind.as_deref()
            && k != "WordPiece"
        {
            return Err(format!(
                "model type is {:?}, expected \"WordPiece\"",
                crate::base::sanitize::one_line(k)
            ));
        }
        if let Some(p) = f.model.continuing_subword_prefix.as_deref()
            && p != "##"
        {
            return Err(format!(
                "continuing_subword_prefix is {:?}, expected \"##\"",
                crate::base::sanitize::one_line(p)
            ));
        }
        if f.model.vocab.len() > MAX_VOCAB {
            return Err(format!("more than {MAX_VOCAB} entries"));
        }
        Self::from_ids(f.model.vocab)
    }

    fn from_ids(ids: HashMap<String, u32>) -> Result<Self, String> {
        let get = |t: &str| {
            ids.get(t)
                .copied()
                .ok_or_else(|| format!("no `{t}` entry (not a BERT vocabulary)"))
        };
        let specials = SPECIALS
            .iter()
            .filter_map(|&t| ids.get(t).map(|&id| (t, id)))
            .collect();
        Ok(Self {
            specials,
            unk: get("[UNK]")?,
            cls: get("[CLS]")?,
            sep: get("[SEP]")?,
            ids,
        })
    }

    /// One more than the largest id (the embedding rows the model needs).
    pub(crate) fn id_bound(&self) -> usize {
        self.ids.values().max().map_or(0, |&m| m as usize + 1)
    }

    /// `[CLS] pieces… [SEP]`, at most `max_len` ids (truncated before `[SEP]` as the
    /// Python tokenizer's `truncation=True` does).
    pub(crate) fn encode(&self, text: &str, max_len: usize) -> Vec<u32> {
        let mut out = vec![self.cls];
        let mut rest = text;
        loop {
            // The earliest literal special token, the longest if two start together.
            let next = self
                .specials
                .iter()
                .filter_map(|&(t, id)| rest.find(t).map(|at| (at, std::cmp::Reverse(t.len()), id)))
                .min();
            let plain = next.map_or(rest, |(at, ..)| &rest[..at]);
            for word in basic_tokens(plain) {
                self.word_pieces(&word, &mut out);
            }
            match next {
                Some((at, std::cmp::Reverse(len), id)) => {
                    out.push(id);
                    rest = &rest[at + len..];
                }
                None => break,
            }
        }
        out.truncate(max_len.saturating_sub(1).max(1));
        out.push(self.sep);
        out
    }

    /// Greedy longest-match pieces of one basic token.
    fn word_pieces(&self, word: &str, out: &mut Vec<u32>) {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > MAX_WORD_CHARS {
            out.push(self.unk);
            return;
        }
        let mark = out.len();
        let mut start = 0;
        let mut piece = String::new();
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while start < end {
                let from = chars[start].0;
                let to = chars.get(end).map_or(word.len(), |c| c.0);
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[from..to]);
                if let Some(&id) = self.ids.get(&piece) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            let Some(id) = found else {
                out.truncate(mark);
                out.push(self.unk);
                return;
            };
            out.push(id);
            start = end;
        }
    }
}

/// BERT's basic tokenisation with `do_lower_case` (the uncased models).
pub(crate) fn basic_tokens(text: &str) -> Vec<String> {
    let mut cleaned = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{FFFD}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            cleaned.push(' ');
        } else if is_cjk(c) {
            cleaned.push(' ');
            cleaned.push(c);
            cleaned.push(' ');
        } else {
            cleaned.push(c);
        }
    }
    let mut out = Vec::new();
    for tok in cleaned.split(is_whitespace).filter(|t| !t.is_empty()) {
        // Character by character, as the Python tokenizer (HF `tokenizers`) lowercases:
        // no final-sigma rule, so `Σ` is always `σ` (`str::to_lowercase` would give `ς`).
        let lowered: String = tok
            .chars()
            .flat_map(char::to_lowercase)
            .nfd()
            .filter(|&c| get_general_category(c) != GeneralCategory::NonspacingMark)
            .collect();
        let mut cur = String::new();
        for c in lowered.chars() {
            if is_punctuation(c) {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                out.push(c.to_string());
            } else {
                cur.push(c);
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    // Python splits the joined result on whitespace again; accent stripping can leave
    // nothing or expose whitespace only through characters already removed above.
    out.retain(|t| !t.trim_matches(is_whitespace).is_empty());
    out
}

/// Python's `_is_whitespace`: space, tab, newline, carriage return, or category Zs.
fn is_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
        || get_general_category(c) == GeneralCategory::SpaceSeparator
}

/// Python's `_is_control`: categories C* except tab, newline and carriage return.
fn is_control(c: char) -> bool {
    if matches!(c, '\t' | '\n' | '\r') {
        return false;
    }
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::Unassigned
            | GeneralCategory::PrivateUse
            | GeneralCategory::Surrogate
    )
}

/// Python's `_is_punctuation`: every non-alphanumeric ASCII printable, or category P*.
fn is_punctuation(c: char) -> bool {
    let cp = c as u32;
    if (33..=47).contains(&cp)
        || (58..=64).contains(&cp)
        || (91..=96).contains(&cp)
        || (123..=126).contains(&cp)
    {
        return true;
    }
    matches!(
        get_general_category(c),
        GeneralCategory::ConnectorPunctuation
            | GeneralCategory::DashPunctuation
            | GeneralCategory::OpenPunctuation
            | GeneralCategory::ClosePunctuation
            | GeneralCategory::InitialPunctuation
            | GeneralCategory::FinalPunctuation
            | GeneralCategory::OtherPunctuation
    )
}

/// Python's `_is_chinese_char`: the CJK Unified Ideograph blocks BERT spaces out.
fn is_cjk(c: char) -> bool {
    let cp = c as u32;
    (0x4E00..=0x9FFF).contains(&cp)
        || (0x3400..=0x4DBF).contains(&cp)
        || (0x20000..=0x2A6DF).contains(&cp)
        || (0x2A700..=0x2B73F).contains(&cp)
        || (0x2B740..=0x2B81F).contains(&cp)
        || (0x2B820..=0x2CEAF).contains(&cp)
        || (0xF900..=0xFAFF).contains(&cp)
        || (0x2F800..=0x2FA1F).contains(&cp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> WordPiece {
        let v = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nun\n##aff\n##able\nhello\n,\n!\nx\n∀\n##x\ncafe\n";
        WordPiece::from_vocab(v).unwrap()
    }

    #[test]
    fn basic_splits_punctuation_lowercases_and_strips_accents() {
        assert_eq!(
            basic_tokens("Hello, CAFÉ!\tx\u{200B}y 中文"),
            ["hello", ",", "cafe", "!", "xy", "中", "文"]
        );
        // Math symbols are not punctuation (category Sm): they stay inside words.
        assert_eq!(
            basic_tokens("∀x (P(x))"),
            ["∀x", "(", "p", "(", "x", ")", ")"]
        );
    }

    #[test]
    fn wordpiece_is_greedy_longest_match_and_unk_on_failure() {
        let v = vocab();
        assert_eq!(v.encode("unaffable", 512), [2, 4, 5, 6, 3]);
        assert_eq!(v.encode("∀x", 512), [2, 11, 12, 3]);
        // One unmatched piece makes the whole word `[UNK]`.
        assert_eq!(v.encode("unaffablez hello", 512), [2, 1, 7, 3]);
        assert_eq!(v.encode(&"x".repeat(101), 512), [2, 1, 3]);
        assert_eq!(v.encode("hello hello hello", 3), [2, 7, 3]);
        assert_eq!(v.encode("", 512), [2, 3]);
        // Literal special tokens are single ids; a lowercase spelling is not special.
        assert_eq!(v.encode("[UNK]x [SEP]", 512), [2, 1, 10, 3, 3]);
        assert_eq!(v.encode("[unk]", 512), [2, 1, 1, 1, 3]);
    }

    #[test]
    fn vocab_without_specials_is_refused() {
        let e = WordPiece::from_vocab("a\nb\n").unwrap_err();
        assert!(e.contains("[UNK]"), "{e}");
    }
}
