//! `autoeval score`: one sample (or JSON lines of samples) scored from text through the
//! scoring path `run`, `rescore` and `import --reverify` share.

use crate::analysis::kinds::classify_parts_proved;
use crate::run::score::{RoundText, Scored, score_round};
use crate::syntax::{Reading, SyntaxKind, parse_as};
use crate::verify::{Options, Verdict, render};
use anyhow::{Context, Result, bail};
use clap::Args;
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::time::Duration;

/// Arguments of `autoeval score`.
#[derive(Args, Debug)]
pub struct ScoreArgs {
    /// Syntax of the sample (with --samples: of lines that name none).
    #[arg(long, value_enum)]
    pub syntax: Option<SyntaxKind>,
    /// φ₀, the formula (or regex) the sample started from.
    #[arg(long, required_unless_present = "samples")]
    pub phi0: Option<String>,
    /// ψ, the informalization (omit it to skip the copy check).
    #[arg(long)]
    pub psi: Option<String>,
    /// The raw autoformalization reply.
    #[arg(long, required_unless_present = "samples")]
    pub reply: Option<String>,
    /// The autoformalization prompt's text, for the echo check (default: none).
    #[arg(long)]
    pub prompt: Option<String>,
    /// Score many samples: a file (or `-` for stdin) of JSON lines
    /// `{"syntax", "phi0", "psi", "reply"}` (`psi` and `prompt` optional); writes one
    /// JSON line per input line, in input order.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["phi0", "psi", "reply", "prompt"])]
    pub samples: Option<String>,
    /// Verifier time limit per sample, in milliseconds.
    #[arg(long, default_value_t = 5000)]
    pub timeout: u64,
    /// How formulas without full parentheses are grouped: `standard` (widest
    /// quantifier scope, right-grouped →, `^` is ⊕) or `nltk` (the original's).
    #[arg(long, value_enum, default_value_t = Reading::Standard)]
    pub reading: Reading,
    /// Verdicts only: a not-equivalent sample's failure kinds (a proof search,
    /// milliseconds each for first-order pairs) are left out (`kinds` is empty, no
    /// `proved`).
    #[arg(long)]
    pub no_kinds: bool,
}

/// One sample to score.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Sample {
    #[serde(default)]
    syntax: Option<SyntaxKind>,
    phi0: String,
    #[serde(default)]
    psi: Option<String>,
    reply: String,
    #[serde(default)]
    prompt: Option<String>,
    /// The model's reasoning, kept apart: never scored, never searched for φ₁.
    #[serde(default)]
    #[allow(dead_code)]
    reasoning: Option<String>,
    /// Accepted and ignored: a caller's own key for the line.
    #[serde(default)]
    #[allow(dead_code)]
    id: Option<Value>,
}

/// The output object of a scored sample.
fn scored_json(syntax: SyntaxKind, phi0: &crate::syntax::Expr, s: &Scored, kinds: bool) -> Value {
    let v = &s.verdict;
    let reason: Option<String> = match v {
        Verdict::Equivalent { .. } => None,
        Verdict::NotEquivalent { countermodel, .. } => Some(render::countermodel(countermodel)),
        Verdict::Unparseable { reason, .. } | Verdict::Unknown { reason } => Some(reason.clone()),
        Verdict::Copied { detail, .. } => Some(detail.clone()),
        Verdict::ModelError { message } => Some(message.clone()),
    };
    let phi1 = s.phi1.as_ref().map(|x| x.value.to_unicode());
    let unparseable = match v {
        Verdict::Unparseable { reason, .. } => Some(reason.as_str()),
        _ => None,
    };
    let input = phi0.to_unicode();
    let countermodel = match v {
        Verdict::NotEquivalent { countermodel, .. } => Some(countermodel),
        _ => None,
    };
    let searched = kinds || !matches!(v, Verdict::NotEquivalent { .. });
    let (kinds, proved) = if searched {
        classify_parts_proved(
            v.kind(),
            unparseable,
            syntax,
            Some(&input),
            phi1.as_deref(),
            countermodel,
        )
    } else {
        (Vec::new(), false)
    };
    let kinds: Vec<&str> = kinds
        .into_iter()
        .map(crate::analysis::kinds::FailureKind::id)
        .collect();
    let mut out = json!({
        "verdict": v.name(),
        "phi1": phi1,
        "phi1_span": s.phi1.as_ref().map(|x| [x.start, x.end]),
        "copy_span": s.copy_span.map(|(a, b)| [a, b]),
        "reason": reason,
        "notes": v.notes(),
        "kinds": kinds,
    });
    if let (Verdict::Unparseable { pos, .. }, Some(o)) = (v, out.as_object_mut()) {
        o.insert("pos".into(), (*pos).into());
    }
    // Whether the kinds of a failing pair come from edits the verifier proved.
    if let (Verdict::NotEquivalent { .. }, Some(o), true) = (v, out.as_object_mut(), searched) {
        o.insert("proved".into(), proved.into());
    }
    out
}

/// Scores one sample; Err is a line that could not be scored (bad input).
fn score_sample(
    sample: &Sample,
    asked: Option<SyntaxKind>,
    reading: Reading,
    opts: &Options,
    kinds: bool,
) -> Result<Value, String> {
    let syntax = sample.syntax.or(asked).ok_or_else(|| {
        "no syntax: give \"syntax\": \"pl\"|\"fol\"|\"regex\" on the line or --syntax".to_string()
    })?;
    let phi0 = parse_as(&sample.phi0, syntax, reading).map_err(|e| {
        format!(
            "phi0 does not parse as {}: {} at character {}",
            syntax_name(syntax),
            e.reason,
            e.char_pos(&sample.phi0)
        )
    })?;
    // Inline reasoning (`<think>…</think>`, also without the opening tag) is split off as
    // a run does: only the answer is read, and spans point into the reply as given.
    let split = crate::llm::reasoning::split(&sample.reply);
    let offset = (split.answer.as_ptr() as usize)
        .checked_sub(sample.reply.as_ptr() as usize)
        .filter(|o| o + split.answer.len() <= sample.reply.len())
        .unwrap_or(0);
    let psi = sample
        .psi
        .as_deref()
        .map(|p| crate::llm::reasoning::split(p).answer.trim());
    if split.unclosed || (split.reasoning.is_some() && split.answer.trim().is_empty()) {
        let none = Scored {
            verdict: Verdict::Unparseable {
                pos: 0,
                reason: "no answer: the reply holds only reasoning (stopped while reasoning?)"
                    .into(),
            },
            phi1: None,
            copy_span: None,
            verify_ms: 0.0,
        };
        let mut out = scored_json(syntax, &phi0, &none, kinds);
        out["reasoning_split"] = true.into();
        return Ok(out);
    }
    let mut scored = score_round(
        &RoundText {
            phi0: &phi0,
            input: &phi0,
            psi,
            reply: split.answer,
            prompt: sample.prompt.as_deref().unwrap_or(""),
            syntax,
            reading,
        },
        opts,
    );
    if let Some(x) = &mut scored.phi1 {
        x.start += offset;
        x.end += offset;
    }
    let mut out = scored_json(syntax, &phi0, &scored, kinds);
    if split.reasoning.is_some() || sample.reasoning.is_some() {
        out["reasoning_split"] = true.into();
    }
    Ok(out)
}

fn syntax_name(s: SyntaxKind) -> &'static str {
    match s {
        SyntaxKind::Pl => "pl",
        SyntaxKind::Fol => "fol",
        SyntaxKind::Regex => "regex",
    }
}

/// Exit code for one scored sample: 0 equivalent, 1 another verdict, 2 unknown.
fn exit_code(verdict: &str) -> i32 {
    match verdict {
        "equivalent" => 0,
        "unknown" => 2,
        _ => 1,
    }
}

/// Runs `autoeval score`.
pub fn run(args: ScoreArgs) -> Result<i32> {
    let opts = Options {
        timeout: Duration::from_millis(args.timeout.max(1)),
        ..Options::default()
    };
    if let Some(path) = &args.samples {
        return run_samples(path, args.syntax, args.reading, &opts, !args.no_kinds);
    }
    let (Some(phi0), Some(reply)) = (args.phi0, args.reply) else {
        bail!("give --phi0 and --reply (and --psi), or --samples FILE");
    };
    let Some(syntax) = args.syntax else {
        bail!("give --syntax pl|fol|regex");
    };
    let sample = Sample {
        syntax: Some(syntax),
        phi0,
        psi: args.psi,
        reply,
        prompt: args.prompt,
        reasoning: None,
        id: None,
    };
    let out = score_sample(&sample, None, args.reading, &opts, !args.no_kinds)
        .map_err(anyhow::Error::msg)?;
    let code = exit_code(out["verdict"].as_str().unwrap_or(""));
    outln!("{out}");
    Ok(code)
}

/// Most lines read and scored per parallel chunk.
const CHUNK: usize = 8192;
/// Most bytes of input per chunk: with [`CHUNK`], what bounds memory whatever the
/// input's size and line lengths (a chunk of 8,192 long lines was gigabytes).
const CHUNK_BYTES: usize = 8 << 20;
/// Longest accepted input line.
const MAX_LINE: usize = 4 << 20;

/// One input line: read, or why it could not be.
type Line = (usize, Result<String, String>);

fn score_line(
    n: usize,
    line: &Result<String, String>,
    asked: Option<SyntaxKind>,
    reading: Reading,
    opts: &Options,
    kinds: bool,
) -> (String, bool) {
    let res = line.as_ref().map_err(Clone::clone).and_then(|t| {
        if t.trim().is_empty() {
            return Err(
                "blank line: expected a JSON object {\"syntax\", \"phi0\", \"psi\", \"reply\"}"
                    .into(),
            );
        }
        let s: Sample = serde_json::from_str(t).map_err(|e| {
            format!("not a sample ({e}); expected {{\"syntax\", \"phi0\", \"psi\", \"reply\"}}")
        })?;
        score_sample(&s, asked, reading, opts, kinds)
    });
    match res {
        Ok(mut v) => {
            if let Some(o) = v.as_object_mut() {
                o.insert("line".into(), n.into());
            }
            (v.to_string(), false)
        }
        Err(why) => (json!({"line": n, "error": why}).to_string(), true),
    }
}

/// Scores a chunk's lines on `threads` workers that each take the next unscored line,
/// so one slow line holds up only its own worker (equal shares left the other core
/// idle behind a share's slow lines). Results come back in input order; a line whose
/// scoring panicked becomes an error line.
fn score_chunk(
    chunk: &[Line],
    threads: usize,
    score: impl Fn(&Line) -> (String, bool) + Sync,
) -> Vec<(String, bool)> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(line) = chunk.get(i) else {
                return done;
            };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| score(line)))
                .unwrap_or_else(|_| {
                    let j = json!({"line": line.0, "error": "internal error: scoring crashed on this line"});
                    (j.to_string(), true)
                });
            done.push((i, r));
        }
    };
    let mut out: Vec<Option<(String, bool)>> = vec![None; chunk.len()];
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.clamp(1, chunk.len().max(1)))
            .map(|_| s.spawn(work))
            .collect();
        for h in handles {
            // `work` catches each line's panic, so a join fails only if pushing did.
            for (i, r) in h.join().unwrap_or_default() {
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(r);
                }
            }
        }
    });
    chunk
        .iter()
        .zip(out)
        .map(|((n, _), r)| {
            r.unwrap_or_else(|| {
                let j = json!({"line": n, "error": "internal error: scoring crashed on this line"});
                (j.to_string(), true)
            })
        })
        .collect()
}

fn run_samples(
    path: &str,
    asked: Option<SyntaxKind>,
    reading: Reading,
    opts: &Options,
    kinds: bool,
) -> Result<i32> {
    let reader: Box<dyn BufRead> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = crate::base::fsread::open(std::path::Path::new(path), crate::base::fsread::STREAM)
            .with_context(|| format!("opening {path}"))?;
        Box::new(std::io::BufReader::with_capacity(1 << 20, f))
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let mut lines = crate::run::store::BoundedLines::new(reader, MAX_LINE);
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let (mut n, mut bad) = (0usize, 0usize);
    loop {
        let mut chunk: Vec<Line> = Vec::new();
        let mut bytes = 0usize;
        while chunk.len() < CHUNK && bytes < CHUNK_BYTES {
            let Some(line) = lines
                .next_line()
                .with_context(|| format!("reading {path}"))?
            else {
                break;
            };
            n += 1;
            bytes += line.as_ref().map_or(0, String::len);
            chunk.push((
                n,
                line.map_err(|len| {
                    format!("line of {len} bytes is longer than the limit of {MAX_LINE}")
                }),
            ));
        }
        if chunk.is_empty() {
            break;
        }
        let results = score_chunk(&chunk, threads, |(n, l)| {
            score_line(*n, l, asked, reading, opts, kinds)
        });
        for ((n, _), (line, is_bad)) in chunk.iter().zip(results) {
            if is_bad {
                bad += 1;
                let why = serde_json::from_str::<Value>(&line)
                    .ok()
                    .and_then(|v| v["error"].as_str().map(str::to_string))
                    .unwrap_or_default();
                eprintln!("{path}:{n}: {}", crate::base::sanitize::one_line(&why));
            }
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()?;
    if bad > 0 {
        eprintln!("{bad} line(s) of {path} could not be scored (see the \"error\" lines)");
        return Ok(2);
    }
    Ok(0)
}
