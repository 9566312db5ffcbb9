//! One compact row per sample of `samples.jsonl` (offset, verdict, category, failure
//! kinds, searchable text) and the scanner that reads them: what the viewer lists and
//! what `report` counts, so a large run never has to be held as full records.

use crate::verify::VerdictKind;
use serde::Deserialize;
use std::borrow::Cow;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Longest sample line the viewer reads (longer lines are skipped with a warning).
pub const MAX_LINE: u64 = 16 << 20;

/// Field separator inside [`Row::text`].
pub const SEP: char = '\u{1f}';

/// One sample as the lists need it.
#[derive(Clone, Debug)]
pub struct Row {
    /// Byte offset of the line in `samples.jsonl`.
    pub offset: u64,
    /// Line length without the newline.
    pub len: u32,
    /// Sample id.
    pub id: Box<str>,
    /// The final verdict's kind.
    pub verdict: VerdictKind,
    /// Automatic failure kinds (a [`crate::report::kinds::mask`]).
    pub fails: u32,
    /// Dataset batch (0 when the dataset has one).
    pub batch: u16,
    /// BLEU of φ₁ against φ₀ in percent (None when φ₁ did not parse).
    pub bleu: Option<u8>,
    /// Operator count.
    pub ops: Option<u16>,
    /// Generation depth.
    pub depth: Option<u16>,
    /// φ₀, ψ and φ₁ joined by [`SEP`] (what search looks at).
    pub text: Box<str>,
}

impl Row {
    /// φ₀.
    pub fn phi0(&self) -> &str {
        self.text.split(SEP).next().unwrap_or("")
    }
    /// The verdict's name.
    pub fn verdict_name(&self) -> &'static str {
        self.verdict.name()
    }

    /// The final verdict's kind.
    pub fn kind(&self) -> VerdictKind {
        self.verdict
    }
}

#[derive(Deserialize)]
struct LightVerdict<'a> {
    #[serde(borrow)]
    verdict: Cow<'a, str>,
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct LightRound<'a> {
    #[serde(borrow, default)]
    input: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    psi: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    phi1: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct LightCloseness {
    bleu: f64,
    #[serde(default)]
    rouge_l: f64,
    #[serde(default)]
    tree: f64,
}

#[derive(Deserialize)]
struct LightSample<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(default)]
    num_operators: Option<usize>,
    #[serde(default)]
    depth: Option<usize>,
    #[serde(default)]
    batch: Option<usize>,
    #[serde(default)]
    closeness: Option<LightCloseness>,
    #[serde(borrow)]
    phi0: Cow<'a, str>,
    #[serde(default)]
    syntax: Option<crate::syntax::SyntaxKind>,
    #[serde(borrow)]
    verdict: LightVerdict<'a>,
    #[serde(borrow, default)]
    rounds: Vec<LightRound<'a>>,
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cost_usd: Option<f64>,
}

fn verdict_kind(name: &str) -> VerdictKind {
    VerdictKind::from_name(name).unwrap_or(VerdictKind::Unknown)
}

/// Parses one complete line into a row and its report-only fields (None for blank
/// lines), or a warning naming the file and line.
pub fn parse_row(
    line: &[u8],
    offset: u64,
    path: &Path,
    lineno: usize,
) -> Result<Option<(Row, Extra)>, String> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let s = serde_json::from_slice::<LightSample>(line)
        .map_err(|e| format!("{}:{lineno}: skipped: {e}", path.display()))?;
    let r1 = s.rounds.first();
    // Text from files reaches the screen: bidi overrides, zero-width and control
    // characters are shown as `\u{…}`, never obeyed.
    let safe = crate::sanitize::for_terminal;
    let psi = safe(r1.and_then(|r| r.psi.as_deref()).unwrap_or(""));
    let phi1 = safe(r1.and_then(|r| r.phi1.as_deref()).unwrap_or(""));
    let verdict = verdict_kind(&s.verdict.verdict);
    let deciding = s.rounds.iter().rev().find(|r| r.phi1.is_some());
    let fails = match s.syntax {
        Some(syntax) => crate::report::kinds::mask(&crate::report::kinds::classify_parts(
            verdict,
            s.verdict.reason.as_deref(),
            syntax,
            deciding.and_then(|r| r.input.as_deref()),
            deciding.and_then(|r| r.phi1.as_deref()),
        )),
        None => 0,
    };
    let extra = Extra {
        closeness: s.closeness.as_ref().map(|c| [c.bleu, c.rouge_l, c.tree]),
        tokens_in: s.input_tokens,
        tokens_out: s.output_tokens,
        cost: s.cost_usd,
    };
    Ok(Some((
        Row {
            offset,
            len: line.len() as u32,
            id: crate::sanitize::one_line(&s.id).as_ref().into(),
            verdict,
            fails,
            batch: s.batch.unwrap_or(0).min(u16::MAX as usize) as u16,
            bleu: s
                .closeness
                .map(|c| (c.bleu.clamp(0.0, 1.0) * 100.0).round() as u8),
            ops: s.num_operators.map(|v| v.min(u16::MAX as usize) as u16),
            depth: s.depth.map(|v| v.min(u16::MAX as usize) as u16),
            text: format!("{}{SEP}{psi}{SEP}{phi1}", safe(&s.phi0)).into(),
        },
        extra,
    )))
}

/// The fields `report` needs beyond a [`Row`]; kept only while a run is read or
/// reported, never by the viewer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Extra {
    /// BLEU, ROUGE-L and tree overlap of φ₁ against φ₀, when φ₁ parsed.
    pub closeness: Option<[f64; 3]>,
    /// Prompt tokens of every call of the sample.
    pub tokens_in: u64,
    /// Answer tokens.
    pub tokens_out: u64,
    /// Cost in USD, when priced.
    pub cost: Option<f64>,
}

/// Rows read so far from one `samples.jsonl`, in file order.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// Rows in file order (a retried sample appears once per line).
    pub rows: Vec<Row>,
    /// Report-only fields, parallel to `rows` (empty when not kept).
    pub extras: Vec<Extra>,
    /// Bytes of the file consumed (complete lines only).
    pub consumed: u64,
    /// Complete lines read, for line numbers in warnings.
    pub lines: usize,
    /// Lines skipped and why.
    pub warnings: Vec<String>,
    /// Set when the file was found shorter than what was consumed and read again.
    pub restarted: bool,
}

impl Scan {
    /// Reads the complete lines appended to `path` since `self.consumed`; returns how
    /// many rows were added. `keep_extras` keeps [`Extra`] beside each row.
    ///
    /// The file is streamed through a small buffer: holding a large run in memory at
    /// once costs more in page faults than parsing it. A last line without its newline
    /// is a write in progress and is left for the next call. A file shorter than what
    /// was consumed was rewritten: it is read again from the start.
    pub fn extend_from(&mut self, path: &Path, keep_extras: bool) -> usize {
        // A FIFO or device named samples.jsonl would block or never end: only read files.
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => {
                let w = format!("{} is not a regular file; skipped", path.display());
                if !self.warnings.contains(&w) {
                    self.warnings.push(w);
                }
                return 0;
            }
            Err(_) => return 0,
        }
        let Ok(mut f) = std::fs::File::open(path) else {
            return 0;
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        if len < self.consumed {
            self.warnings
                .push(format!("{} shrank; reloading it", path.display()));
            self.rows.clear();
            self.extras.clear();
            self.consumed = 0;
            self.lines = 0;
            self.restarted = true;
        }
        if len == self.consumed || f.seek(SeekFrom::Start(self.consumed)).is_err() {
            return 0;
        }
        let mut reader = BufReader::with_capacity(1 << 20, f);
        let mut line = Vec::with_capacity(8192);
        let before = self.rows.len();
        loop {
            line.clear();
            let n = match (&mut reader)
                .take(MAX_LINE + 1)
                .read_until(b'\n', &mut line)
            {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if line.last() != Some(&b'\n') {
                if n as u64 <= MAX_LINE {
                    break;
                }
                // Longer than any sample we write: skip to its end without holding it.
                let mut skipped = n as u64;
                loop {
                    line.clear();
                    match (&mut reader).take(1 << 20).read_until(b'\n', &mut line) {
                        Ok(0) | Err(_) => return self.rows.len() - before,
                        Ok(k) => skipped += k as u64,
                    }
                    if line.last() == Some(&b'\n') {
                        break;
                    }
                }
                self.lines += 1;
                self.warnings.push(format!(
                    "{}:{}: a line of {skipped} bytes was skipped (limit {MAX_LINE})",
                    path.display(),
                    self.lines
                ));
                self.consumed += skipped;
                continue;
            }
            self.lines += 1;
            match parse_row(&line[..n - 1], self.consumed, path, self.lines) {
                Ok(Some((row, extra))) => {
                    self.rows.push(row);
                    if keep_extras {
                        self.extras.push(extra);
                    }
                }
                Ok(None) => {}
                Err(w) => self.warnings.push(w),
            }
            self.consumed += n as u64;
        }
        self.rows.len() - before
    }
}

/// Positions of the rows that hold each sample's record: ordered by sample index
/// (numeric ids first, then by id), and for a sample written several times (a retried
/// sample) only its latest line.
pub fn latest_per_id(rows: &[Row]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    // Lines of one id must end up adjacent (latest last), whatever the id looks like.
    let key = |r: &Row| (r.id.parse::<u64>().unwrap_or(u64::MAX), r.offset);
    order.sort_by(|&a, &b| {
        let (x, y) = (&rows[a], &rows[b]);
        let (kx, ky) = (key(x), key(y));
        kx.0.cmp(&ky.0)
            .then_with(|| x.id.cmp(&y.id))
            .then(kx.1.cmp(&ky.1))
    });
    let mut out: Vec<usize> = Vec::with_capacity(order.len());
    for i in order {
        match out.last_mut() {
            Some(last) if rows[*last].id == rows[i].id => *last = i,
            _ => out.push(i),
        }
    }
    out
}
