//! One compact row per sample of `samples.jsonl` (offset, verdict, category, failure
//! kinds, searchable text) and the scanner that reads them: what the viewer lists and
//! what `report` counts, so a large run never has to be held as full records.

use crate::record::{Closeness, Metric};
use crate::verify::VerdictKind;
use serde::Deserialize;
use std::borrow::Cow;
use std::path::Path;

/// Longest sample line read (longer lines are skipped with a warning): the one limit
/// of every reader, so a line `--resume` counts as done is one `report` and `view` show.
pub const MAX_LINE: u64 = super::store::MAX_RECORD;

/// Field separator inside a row's text (φ₀, ψ, φ₁).
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
    /// Automatic failure kinds (a [`crate::analysis::kinds::mask`]); a not-equivalent
    /// sample's are [`super::row_kinds::PENDING`] until the kinds pass proves them.
    pub fails: u32,
    /// What a not-equivalent sample's kinds are computed from, hashed: its key in the
    /// kinds cache ([`super::kinds_cache`]); 0 for any other sample.
    pub kinds_key: u64,
    /// Dataset batch (0 when the dataset has one).
    pub batch: u16,
    /// Every stored closeness metric of φ₁ against φ₀, compactly (all absent when the
    /// sample has no `closeness` record, e.g. φ₁ did not parse).
    pub scores: Scores,
    /// Operator count.
    pub ops: Option<u16>,
    /// Generation depth.
    pub depth: Option<u16>,
    /// A hash of φ₀ as shown, to find the same formula in other runs without its text.
    pub phi0_hash: u64,
    /// Some call stopped at the token limit before answering (the "truncated" filter).
    pub truncated: bool,
    /// A reference-task sample's gold label, answer and correctness (the viewer's
    /// gold / answer / correct filters); empty for a dataset sample.
    pub task: super::task_mark::TaskMark,
    /// Where the row's text (φ₀, ψ, φ₁ and the calls' reasoning joined by [`SEP`],
    /// what search looks at)
    /// is in its run's [`super::texts::TextStore`] (or [`super::scan::Scan::texts`]).
    pub text: u32,
}

/// Every stored closeness metric of a row in units of 1/10,000 (`Scores::SCALE`),
/// in [`Metric::ALL`] order, `u16::MAX` where the record has none: 20 bytes where
/// ten `Option<f64>` would take 160, and a resolution finer than any filter bound
/// or sort needs (values are in 0..=1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scores([u16; Metric::COUNT]);

impl Default for Scores {
    fn default() -> Self {
        Scores([Scores::MISSING; Metric::COUNT])
    }
}

impl Scores {
    /// Units per 1.0.
    pub(crate) const SCALE: u16 = 10_000;
    const MISSING: u16 = u16::MAX;

    /// From full values (NaN: absent), as [`metric_values`] gives them; each clamped to
    /// 0..=1 and rounded to the nearest 1/10,000.
    pub(crate) fn from_values(v: &[f64; Metric::COUNT]) -> Scores {
        Scores(v.map(|x| {
            if x.is_finite() {
                (x.clamp(0.0, 1.0) * f64::from(Scores::SCALE)).round() as u16
            } else {
                Scores::MISSING
            }
        }))
    }

    /// The metric in 1/10,000, if stored.
    pub fn get(self, m: Metric) -> Option<u16> {
        Some(self.0[m.index()]).filter(|&v| v != Scores::MISSING)
    }

    /// The metric as a number in 0..=1 (to four decimals), if stored.
    pub fn value(self, m: Metric) -> Option<f64> {
        self.get(m).map(|v| f64::from(v) / f64::from(Scores::SCALE))
    }
}

/// A closeness record's metrics in [`Metric::ALL`] order, NaN where it has none.
pub(crate) fn metric_values(c: &Closeness) -> [f64; Metric::COUNT] {
    Metric::ALL.map(|m| c.get(m).unwrap_or(f64::NAN))
}

/// φ₀ of a row's joined text.
pub(crate) fn phi0_of(text: &str) -> &str {
    text.split(SEP).next().unwrap_or("")
}

/// The hash [`Row::phi0_hash`] holds (FNV-1a, stable across processes).
pub(crate) fn phi0_hash(phi0: &str) -> u64 {
    phi0.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

impl Row {
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
    #[serde(borrow, default)]
    notes: Vec<Cow<'a, str>>,
    /// Kept unparsed: only a not-equivalent sample's failure kinds read it.
    #[serde(borrow, default)]
    countermodel: Option<&'a serde_json::value::RawValue>,
}

impl LightVerdict<'_> {
    fn has_reading_note(&self) -> bool {
        self.notes
            .iter()
            .any(|n| crate::syntax::reading::is_reading_note(n))
    }
}

#[derive(Deserialize)]
struct LightRound<'a> {
    #[serde(borrow, default)]
    input: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    psi: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    phi1: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    verdict: Option<LightVerdict<'a>>,
    #[serde(borrow, default)]
    informalize: Option<LightCall<'a>>,
    #[serde(borrow, default)]
    autoformalize: Option<LightCall<'a>>,
}

/// What the rows keep of a call: whether it ran out of tokens, its reasoning tokens
/// and text (for the search that includes reasoning).
#[derive(Deserialize, Default)]
struct LightCall<'a> {
    #[serde(default)]
    truncated: bool,
    #[serde(default)]
    reasoning_tokens: Option<u64>,
    #[serde(borrow, default)]
    reasoning: Option<Cow<'a, str>>,
}

impl<'a> LightRound<'a> {
    fn calls(&self) -> impl Iterator<Item = &LightCall<'a>> {
        self.informalize.iter().chain(self.autoformalize.as_ref())
    }
}

#[derive(Deserialize)]
struct LightCloseness {
    bleu: f64,
    #[serde(default)]
    rouge_l: f64,
    #[serde(default)]
    tree: f64,
    #[serde(default)]
    bleu_fol: Option<f64>,
    #[serde(default)]
    rouge_l_fol: Option<f64>,
    #[serde(default)]
    le: Option<f64>,
    #[serde(default)]
    smatch: Option<f64>,
    #[serde(default)]
    smatch_paper: Option<f64>,
    #[serde(default)]
    meteor: Option<f64>,
    #[serde(default)]
    bertscore_minilm: Option<f64>,
}

impl LightCloseness {
    fn values(&self) -> [f64; Metric::COUNT] {
        metric_values(&Closeness {
            bleu: self.bleu,
            rouge_l: self.rouge_l,
            tree: self.tree,
            bleu_fol: self.bleu_fol,
            rouge_l_fol: self.rouge_l_fol,
            le: self.le,
            smatch: self.smatch,
            smatch_paper: self.smatch_paper,
            meteor: self.meteor,
            bertscore_minilm: self.bertscore_minilm,
        })
    }
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
    #[serde(borrow, default)]
    task: Option<LightTask<'a>>,
}

/// What a reference-task sample's row shows and searches: its conclusion or question
/// as φ₀, `gold: …` as ψ and `answer: … · right|wrong` (or `no answer`) as φ₁. The
/// search matches within one field, so `gold:yes` never matches an answer `yes`.
#[derive(Deserialize)]
struct LightTask<'a> {
    #[serde(borrow, default)]
    conclusion: Cow<'a, str>,
    #[serde(borrow, default)]
    gold: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    answer: Option<Cow<'a, str>>,
    #[serde(default)]
    correct: Option<bool>,
}

impl LightTask<'_> {
    /// The ψ and φ₁ fields of a reasoning task's row.
    fn fields(&self) -> (String, String) {
        let answer = match &self.answer {
            None => "no answer".to_string(),
            Some(a) => format!(
                "answer: {a} · {}",
                if self.correct == Some(true) {
                    "right"
                } else {
                    "wrong"
                }
            ),
        };
        (
            format!("gold: {}", self.gold.as_deref().unwrap_or("?")),
            answer,
        )
    }
}

fn verdict_kind(name: &str) -> VerdictKind {
    VerdictKind::from_name(name).unwrap_or(VerdictKind::Unknown)
}

/// A parsed line: its row, report-only fields and text.
pub(crate) type ParsedRow = (Row, Extra, Box<str>);

/// A line of `samples.jsonl` that is not a sample record (skipped with a warning).
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: skipped: {source}")]
pub(crate) struct RowError {
    /// The samples file.
    pub path: String,
    /// 1-based line number.
    pub line: usize,
    /// What the JSON parser said.
    pub source: serde_json::Error,
}

/// Parses one complete line into a row, its report-only fields and its text (None for
/// blank lines), or a warning naming the file and line. The row's `text` index is 0:
/// the caller places the text.
/// A not-equivalent sample's kinds are left to the kinds pass (`fails` is
/// [`super::row_kinds::PENDING`] and `kinds_key` names the pair): they take a proof
/// search, milliseconds each, which must not hold up the rows.
pub(crate) fn parse_row(
    line: &[u8],
    offset: u64,
    path: &Path,
    lineno: usize,
) -> Result<Option<ParsedRow>, RowError> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let s = serde_json::from_slice::<LightSample>(line).map_err(|e| RowError {
        path: path.display().to_string(),
        line: lineno,
        source: e,
    })?;
    let r1 = s.rounds.first();
    // Text from files reaches the screen: bidi overrides, zero-width and control
    // characters are shown as `\u{…}`, never obeyed.
    let safe = crate::base::sanitize::for_terminal;
    let mut psi = safe(r1.and_then(|r| r.psi.as_deref()).unwrap_or(""));
    let mut phi1 = safe(r1.and_then(|r| r.phi1.as_deref()).unwrap_or(""));
    // A reasoning task's sample has no formula: its row shows the question asked and
    // the gold label against the answer.
    let task_phi0 = match &s.task {
        Some(t) if s.phi0.is_empty() && t.gold.is_some() => {
            let (g, a) = t.fields();
            psi = Cow::Owned(safe(&g).into_owned());
            phi1 = Cow::Owned(safe(&a).into_owned());
            Some(t.conclusion.clone())
        }
        _ => None,
    };
    let phi0_text = task_phi0.as_deref().unwrap_or(&s.phi0);
    let task = s.task.as_ref().map_or_else(Default::default, |t| {
        super::task_mark::TaskMark::new(t.gold.as_deref(), t.answer.as_deref(), t.correct)
    });
    let verdict = verdict_kind(&s.verdict.verdict);
    let (fails, kinds_key) = fails_and_key(&s, verdict);
    let closeness = s.closeness.as_ref().map(LightCloseness::values);
    let extra = extra_of(&s, closeness);
    Ok(Some((
        Row {
            offset,
            len: line.len() as u32,
            id: crate::base::sanitize::one_line(&s.id).as_ref().into(),
            verdict,
            fails,
            kinds_key,
            batch: s.batch.unwrap_or(0).min(u16::MAX as usize) as u16,
            scores: closeness
                .as_ref()
                .map(Scores::from_values)
                .unwrap_or_default(),
            ops: s.num_operators.map(|v| v.min(u16::MAX as usize) as u16),
            depth: s.depth.map(|v| v.min(u16::MAX as usize) as u16),
            phi0_hash: phi0_hash(&safe(phi0_text)),
            truncated: extra.truncated,
            task,
            text: 0,
        },
        extra,
        text(&safe(phi0_text), &psi, &phi1, &s.rounds),
    )))
}

/// A sample's failure kinds and kinds-pass key: a not-equivalent sample's kinds are left
/// pending for the kinds pass, any other's are classified here from its verdict.
fn fails_and_key(s: &LightSample<'_>, verdict: VerdictKind) -> (u32, u64) {
    let deciding = s.rounds.iter().rev().find(|r| r.phi1.is_some());
    match (s.syntax, verdict) {
        (Some(syntax), VerdictKind::NotEquivalent) => (
            super::row_kinds::PENDING,
            super::row_kinds::key(
                syntax,
                deciding.and_then(|r| r.input.as_deref()),
                deciding.and_then(|r| r.phi1.as_deref()),
                deciding
                    .and_then(|r| r.verdict.as_ref())
                    .and_then(|v| v.countermodel)
                    .map(serde_json::value::RawValue::get),
            ),
        ),
        (Some(syntax), _) => (
            crate::analysis::kinds::classify_parts_mask(
                verdict,
                s.verdict.reason.as_deref(),
                syntax,
                None,
                None,
                None,
            ),
            0,
        ),
        (None, _) => (0, 0),
    }
}

/// A sample's report-only fields: closeness, tokens, cost, reading notes, truncation.
fn extra_of(s: &LightSample<'_>, closeness: Option<[f64; Metric::COUNT]>) -> Extra {
    Extra {
        closeness,
        tokens_in: s.input_tokens,
        tokens_out: s.output_tokens,
        cost: s.cost_usd,
        reading_note: s.verdict.has_reading_note()
            || s.rounds.iter().any(|r| {
                r.verdict
                    .as_ref()
                    .is_some_and(LightVerdict::has_reading_note)
            }),
        truncated: s
            .rounds
            .iter()
            .flat_map(LightRound::calls)
            .any(|c| c.truncated),
        reasoning_tokens: s
            .rounds
            .iter()
            .flat_map(LightRound::calls)
            .filter_map(|c| c.reasoning_tokens)
            .fold(0, u64::saturating_add),
    }
}

/// What a not-equivalent sample's kinds are computed from, read again from its line
/// (the kinds pass): None for a line that is no not-equivalent sample.
pub(crate) fn pending_of_line(line: &[u8]) -> Option<super::row_kinds::Pending> {
    let s = serde_json::from_slice::<LightSample>(line).ok()?;
    let syntax = s.syntax?;
    if verdict_kind(&s.verdict.verdict) != VerdictKind::NotEquivalent {
        return None;
    }
    let deciding = s.rounds.iter().rev().find(|r| r.phi1.is_some());
    let raw = deciding
        .and_then(|r| r.verdict.as_ref())
        .and_then(|v| v.countermodel);
    Some(super::row_kinds::Pending {
        syntax,
        input: deciding.and_then(|r| r.input.as_deref()).map(Into::into),
        phi1: deciding.and_then(|r| r.phi1.as_deref()).map(Into::into),
        key: super::row_kinds::key(
            syntax,
            deciding.and_then(|r| r.input.as_deref()),
            deciding.and_then(|r| r.phi1.as_deref()),
            raw.map(serde_json::value::RawValue::get),
        ),
        // The verifier's countermodel for the deciding round spares the proof search
        // asking it again (a first-order pair no random model tells apart).
        countermodel: raw.and_then(|raw| serde_json::from_str(raw.get()).ok()),
    })
}

/// Reasoning kept for search per sample: the first 16 KiB of its calls' reasoning
/// (a bound, so a run of long traces keeps a row index of a sensible size).
pub const MAX_SEARCH_REASONING: usize = 16 * 1024;

/// A row's text: φ₀, ψ, φ₁, and, when any call has reasoning, the reasoning of its calls
/// (each on its own lines, bounded by [`MAX_SEARCH_REASONING`]) as a fourth field.
fn text(phi0: &str, psi: &str, phi1: &str, rounds: &[LightRound<'_>]) -> Box<str> {
    let mut t = format!("{phi0}{SEP}{psi}{SEP}{phi1}");
    let mut left = MAX_SEARCH_REASONING;
    let mut first = true;
    for r in rounds.iter().flat_map(LightRound::calls) {
        let Some(reasoning) = r.reasoning.as_deref().filter(|x| !x.is_empty()) else {
            continue;
        };
        if left == 0 {
            break;
        }
        t.push(if first { SEP } else { '\n' });
        first = false;
        let mut cut = reasoning.len().min(left);
        while !reasoning.is_char_boundary(cut) {
            cut -= 1;
        }
        let piece = crate::base::sanitize::for_terminal(&reasoning[..cut]);
        left -= cut;
        t.push_str(&piece);
    }
    t.into()
}

/// The fields `report` needs beyond a [`Row`]; kept only while a run is read or
/// reported, never by the viewer.
#[derive(Clone, Copy, Debug, Default)]
pub struct Extra {
    /// Every stored closeness metric of φ₁ against φ₀ (`metric_values`: NaN where
    /// the record has none), when the sample has a `closeness` record.
    pub closeness: Option<[f64; Metric::COUNT]>,
    /// Prompt tokens of every call of the sample.
    pub tokens_in: u64,
    /// Answer tokens.
    pub tokens_out: u64,
    /// Cost in USD, when priced.
    pub cost: Option<f64>,
    /// A round's φ₁ reads differently under the other reading convention (or uses `^`).
    pub reading_note: bool,
    /// A call stopped at the token limit before answering.
    pub truncated: bool,
    /// Reasoning tokens over the sample's calls (as reported).
    pub reasoning_tokens: u64,
}

impl PartialEq for Extra {
    fn eq(&self, o: &Self) -> bool {
        // Bit for bit, so the NaN of an absent metric equals itself.
        let bits = |c: &Option<[f64; Metric::COUNT]>| c.map(|v| v.map(f64::to_bits));
        bits(&self.closeness) == bits(&o.closeness)
            && self.tokens_in == o.tokens_in
            && self.tokens_out == o.tokens_out
            && self.cost.map(f64::to_bits) == o.cost.map(f64::to_bits)
            && self.reading_note == o.reading_note
            && self.truncated == o.truncated
            && self.reasoning_tokens == o.reasoning_tokens
    }
}

/// Positions of the rows that hold each sample's record: ordered by sample index
/// (numeric ids first, then by id), and for a sample written several times (a retried
/// sample) only its latest line.
pub(crate) fn latest_per_id(rows: &[Row]) -> Vec<usize> {
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
