//! Keeping a sample's line readable: every reader skips a line over
//! [`MAX_RECORD`], so a sample written longer would be lost, reported as
//! missing and paid for again by `--resume`. A record that would pass the limit keeps
//! its verdict, tokens and cost; its longest texts are cut (reasoning first, then the
//! raw answers) with each cut text's whole length and SHA-256 recorded beside it.

use crate::record::{CallRecord, Cut, SampleRecord};
use sha2::{Digest, Sha256};

/// Room kept below the readers' limit for the cut markers and the newline.
pub(crate) const SLACK: usize = 64 << 10;

/// The longest line written: what every reader reads back, with room to spare.
/// Longest record line read from a run file (every reader's bound; `store` names it
/// too).
pub(crate) const MAX_RECORD: u64 = 64 << 20;

pub(crate) const MAX_LINE: usize = MAX_RECORD as usize - SLACK;

/// The most `--max-reply-bytes` may be: the longest line a run file holds. A larger
/// reply could not be stored whole, and each one costs its size in memory several times.
pub const MAX_REPLY_CEILING: usize = MAX_RECORD as usize;

/// Parses `--max-reply-bytes`: 1 to [`MAX_REPLY_CEILING`] bytes.
pub fn parse_max_reply_bytes(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number of bytes"))?;
    if n == 0 || n > MAX_REPLY_CEILING {
        return Err(format!(
            "{n}: give 1 to {MAX_REPLY_CEILING} bytes (64 MiB, the longest line a run file holds)"
        ));
    }
    Ok(n)
}

/// Bytes `c` takes inside a JSON string as serde_json writes it.
fn json_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// Bytes `s` takes as a JSON string (quotes included).
pub(crate) fn json_size(s: &str) -> usize {
    2 + s.chars().map(json_len).sum::<usize>()
}

/// Cuts `text` to its longest prefix of at most `room` bytes as JSON (quotes
/// included); returns what the whole text was.
pub(crate) fn cut(text: &mut String, room: usize) -> Cut {
    let sha: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let whole = Cut {
        bytes: text.len() as u64,
        sha256: sha,
    };
    let mut used = 2usize;
    let mut end = 0usize;
    for (i, c) in text.char_indices() {
        used += json_len(c);
        if used > room {
            break;
        }
        end = i + c.len_utf8();
    }
    text.truncate(end);
    text.shrink_to_fit();
    whole
}

/// Which texts of a call are cut in one pass.
#[derive(Clone, Copy)]
enum Part {
    Reasoning,
    Output,
}

fn slot(c: &mut CallRecord, part: Part) -> (Option<&mut String>, &mut Option<Cut>) {
    match part {
        Part::Reasoning => (c.reasoning.as_mut(), &mut c.reasoning_cut),
        Part::Output => (c.output.as_mut(), &mut c.output_cut),
    }
}

fn calls_mut(rec: &mut SampleRecord) -> impl Iterator<Item = &mut CallRecord> {
    rec.rounds
        .iter_mut()
        .flat_map(|r| std::iter::once(&mut r.informalize).chain(r.autoformalize.as_mut()))
}

/// Cuts the `part` texts of `rec` so that together they shrink by at least `excess`
/// bytes: the longest are cut to one common length (the shorter ones are kept whole).
fn shrink(rec: &mut SampleRecord, part: Part, excess: usize) {
    let mut sizes: Vec<usize> = calls_mut(rec)
        .filter_map(|c| slot(c, part).0.map(|t| json_size(t)))
        .collect();
    if sizes.is_empty() {
        return;
    }
    sizes.sort_unstable();
    // The largest common length `cap` with Σ min(size, cap) ≤ total − excess: the
    // texts at most `cap` long are kept whole, the others cut to `cap`.
    let keep = sizes.iter().sum::<usize>().saturating_sub(excess);
    let n = sizes.len();
    let (mut below, mut cap) = (0usize, usize::MAX);
    for (k, &s) in sizes.iter().enumerate() {
        let c = keep.saturating_sub(below) / (n - k);
        if c <= s {
            cap = c;
            break;
        }
        below += s;
    }
    for c in calls_mut(rec) {
        let (text, mark) = slot(c, part);
        if let Some(t) = text
            && json_size(t) > cap
        {
            let whole = cut(t, cap);
            // Cut again (a second pass): the first cut's record holds the whole text.
            if mark.is_none() {
                *mark = Some(whole);
            }
        }
    }
}

/// The line `rec` is written as (without its newline), its texts cut first if the whole
/// would pass [`MAX_LINE`]; None only if it passes even with every reasoning and raw
/// answer cut away.
pub(crate) fn line(rec: &SampleRecord) -> Option<Vec<u8>> {
    line_within(rec, MAX_LINE)
}

/// [`line`] with the limit `max`.
fn line_within(rec: &SampleRecord, max: usize) -> Option<Vec<u8>> {
    let first = serde_json::to_vec(rec).ok()?;
    if first.len() <= max {
        return Some(first);
    }
    let slack = (max / 32).min(SLACK);
    let mut rec = rec.clone();
    let mut len = first.len();
    drop(first);
    for part in [Part::Reasoning, Part::Output] {
        // Again while it shrinks: the markers a cut adds may leave it a little over.
        for _ in 0..8 {
            if len <= max {
                break;
            }
            shrink(&mut rec, part, len - max + slack);
            let now = serde_json::to_vec(&rec).ok()?.len();
            let stuck = now >= len;
            len = now;
            if stuck {
                break;
            }
        }
    }
    let out = serde_json::to_vec(&rec).ok()?;
    if out.len() <= max {
        return Some(out);
    }
    // The common-length passes can stall a little over (each cut adds its marker):
    // the floor is every reasoning and raw answer cut away, which fits or nothing does.
    let floor = cut_all(rec);
    let out = serde_json::to_vec(&floor).ok()?;
    (out.len() <= max).then_some(out)
}

/// `rec` with every reasoning and raw answer cut to nothing, each marked with what it was.
pub(crate) fn cut_all(mut rec: SampleRecord) -> SampleRecord {
    for part in [Part::Reasoning, Part::Output] {
        for c in calls_mut(&mut rec) {
            let (text, mark) = slot(c, part);
            if let Some(t) = text
                && !t.is_empty()
            {
                let whole = cut(t, 2);
                if mark.is_none() {
                    *mark = Some(whole);
                }
            }
        }
    }
    rec
}

#[cfg(test)]
#[path = "fit_tests.rs"]
mod tests;
