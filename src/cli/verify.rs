//! `autoeval verify`: one pair from the arguments, or many with `--pairs FILE`.

use crate::syntax::{Expr, ParseError, Reading, SyntaxKind, parse, parse_as, read_against};
use crate::verify::{Options, Verdict, render, verify};
use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

/// Arguments of `autoeval verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// φ, the reference.
    #[arg(required_unless_present = "pairs")]
    pub phi: Option<String>,
    /// φ′, the candidate.
    #[arg(required_unless_present = "pairs")]
    pub phi_prime: Option<String>,
    /// Verify many pairs: a file (or `-` for stdin) of `φ<TAB>φ′` lines or JSON lines
    /// `{"a": …, "b": …, "syntax": …}`; writes one JSON line per pair, in input order.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["phi", "phi_prime"])]
    pub pairs: Option<String>,
    /// Syntax (default: logic if φ parses as logic, else regex).
    #[arg(long, value_enum)]
    pub syntax: Option<SyntaxKind>,
    /// Time limit in milliseconds.
    #[arg(long, default_value_t = 5000)]
    pub timeout: u64,
    /// `--format json` (or `--json`): JSON instead of text.
    #[command(flatten)]
    pub output: super::output::FormatArg,
    /// Show every predicate of a finite countermodel as a table (default: the true atoms).
    #[arg(long)]
    pub tables: bool,
    /// How formulas without full parentheses are grouped: `standard` (widest
    /// quantifier scope, right-grouped →, `^` is ⊕) or `nltk` (the original's).
    #[arg(long, value_enum, default_value_t = Reading::Standard)]
    pub reading: Reading,
    /// Name what changed from φ to φ′ and the failure kinds it shows (text, and the
    /// `changes` and `kinds` fields of JSON and `--pairs` lines).
    #[arg(long)]
    pub explain: bool,
}

/// Exit code for a verdict: 0 equivalent, 1 not, 2 anything else.
pub(crate) fn exit_code(v: &Verdict) -> i32 {
    match v {
        Verdict::Equivalent { .. } => 0,
        Verdict::NotEquivalent { .. } => 1,
        _ => 2,
    }
}

/// The syntax a pair is checked in: the one asked for, else logic if φ parses as logic,
/// else regex if it parses as one, else logic (so the error names the logic parser).
pub(crate) fn guess_syntax(phi: &str, asked: Option<SyntaxKind>) -> SyntaxKind {
    match asked {
        Some(s) => s,
        None if parse(phi, SyntaxKind::Fol).is_ok() => SyntaxKind::Fol,
        None if parse(phi, SyntaxKind::Regex).is_ok() => SyntaxKind::Regex,
        None => SyntaxKind::Fol,
    }
}

/// The syntax a checked pair is reported in: a logic pair whose syntax was not asked
/// for is `pl` when neither side has a quantifier or predicate.
fn reported_syntax(
    asked: Option<SyntaxKind>,
    used: SyntaxKind,
    a: &Expr,
    b: Option<&Expr>,
) -> SyntaxKind {
    let first_order = |e: &Expr| matches!(e, Expr::Logic(f) if f.is_first_order());
    match (asked, used) {
        (None, SyntaxKind::Fol | SyntaxKind::Pl)
            if !first_order(a) && !b.is_some_and(first_order) =>
        {
            SyntaxKind::Pl
        }
        (Some(s), _) => s,
        (None, u) => u,
    }
}

/// The named changes, failure kinds, whether the changes are proved and an
/// equivalent pair's rewrites, as the JSON fields `verify --explain` adds.
fn explain_json(
    a: &Expr,
    b: Option<&Expr>,
    v: &Verdict,
    o: &mut serde_json::Map<String, serde_json::Value>,
) {
    let (ex, kinds) = crate::analysis::kinds::explain(a, b, v);
    let changes: Vec<serde_json::Value> = ex
        .changes
        .iter()
        .map(|c| serde_json::json!({"change": c.change.id(), "text": c.text}))
        .collect();
    let kinds: Vec<&str> = kinds.iter().map(|k| k.id()).collect();
    o.insert("changes".into(), changes.into());
    o.insert("kinds".into(), kinds.into());
    if b.is_some()
        && matches!(
            v,
            Verdict::Equivalent { .. } | Verdict::NotEquivalent { .. }
        )
    {
        o.insert("proved".into(), ex.proved.into());
        o.insert("rewrites".into(), ex.rewrites.into());
    }
}

fn options(timeout_ms: u64) -> Options {
    Options {
        timeout: Duration::from_millis(timeout_ms.max(1)),
        ..Options::default()
    }
}

/// The JSON object for one checked pair: the verdict, both inputs as given, the syntax
/// used, and for an unparseable φ′ the character offset and a caret line.
fn pair_json(
    a_src: &str,
    b_src: &str,
    syntax: SyntaxKind,
    a: &Expr,
    v: &Verdict,
) -> serde_json::Value {
    let mut out = serde_json::to_value(v).unwrap_or(serde_json::Value::Null);
    if let Some(o) = out.as_object_mut() {
        o.insert("a".into(), a_src.into());
        o.insert("b".into(), b_src.into());
        o.insert(
            "syntax".into(),
            serde_json::to_value(syntax).unwrap_or_default(),
        );
        o.insert("phi".into(), a.to_unicode().into());
        if let Verdict::Unparseable { pos, reason } = v {
            let e = ParseError::new(*pos, reason.clone());
            o.insert("pos_chars".into(), e.char_pos(b_src).into());
            o.insert("caret".into(), e.caret(b_src).into());
        }
    }
    out
}

/// Verifies φ′ (read under `reading`, its names against φ's) against φ; the notes on
/// how φ′ was read come first. φ′ is returned when it parsed.
fn check_pair(
    a: &Expr,
    b_src: &str,
    syntax: SyntaxKind,
    reading: Reading,
    opts: &Options,
) -> (Verdict, Option<Expr>) {
    match read_against(b_src, a, syntax, reading) {
        Ok(b) => (verify(a, &b.expr, opts).with_notes(b.notes), Some(b.expr)),
        Err(e) => (
            Verdict::Unparseable {
                pos: e.pos,
                reason: e.reason,
            },
            None,
        ),
    }
}

/// Runs `autoeval verify`.
pub fn run(args: VerifyArgs) -> Result<i32> {
    if let Some(path) = &args.pairs {
        return run_pairs(path, args.syntax, args.reading, args.timeout, args.explain);
    }
    let (Some(phi), Some(phi_prime)) = (&args.phi, &args.phi_prime) else {
        bail!("give φ and φ′, or --pairs FILE");
    };
    let syntax = guess_syntax(phi, args.syntax);
    let a = parse_as(phi, syntax, args.reading).map_err(|e| {
        // Guessed, not asked: φ is no formula and no regex; naming one syntax would
        // say the user meant it.
        let what = match args.syntax {
            Some(s) => format!("as {}", syntax_name(s)),
            None => "as logic (pl/fol) or as a regex; --syntax names one".to_string(),
        };
        anyhow!(
            "φ does not parse {what}: {} at character {}\n{}",
            e.reason,
            e.char_pos(phi),
            e.caret(phi)
        )
    })?;
    let opts = options(args.timeout);
    let start = Instant::now();
    let (verdict, b) = check_pair(&a, phi_prime, syntax, args.reading, &opts);
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    let shown = reported_syntax(args.syntax, syntax, &a, b.as_ref());
    let mut out = std::io::stdout().lock();
    if args.output.is_json() {
        let mut v = pair_json(phi, phi_prime, shown, &a, &verdict);
        if let Some(o) = v.as_object_mut() {
            if args.explain {
                explain_json(&a, b.as_ref(), &verdict, o);
            }
            o.insert("elapsed_ms".into(), ms.into());
        }
        writeln!(out, "{v}")?;
    } else {
        let safe = crate::base::sanitize::for_terminal;
        writeln!(out, "syntax: {}", syntax_name(shown))?;
        writeln!(out, "φ  = {}", safe(&a.to_unicode()))?;
        if let Some(b) = &b {
            writeln!(out, "φ′ = {}", safe(&b.to_unicode()))?;
        }
        write!(
            out,
            "{}",
            safe(&render::verdict_with(&verdict, args.tables))
        )?;
        if let Verdict::Unparseable { pos, reason } = &verdict {
            let e = ParseError::new(*pos, reason.clone());
            writeln!(out, "at character {} of φ′:", e.char_pos(phi_prime))?;
            writeln!(out, "{}", safe(&e.caret(phi_prime)))?;
        }
        if args.explain {
            let (ex, kinds) = crate::analysis::kinds::explain(&a, b.as_ref(), &verdict);
            if b.is_some() {
                if ex.changes.is_empty() {
                    let rewritten = if ex.rewrites.is_empty() {
                        ""
                    } else {
                        " (equivalent, rewritten)"
                    };
                    writeln!(out, "changes: none{rewritten}")?;
                } else if ex.proved {
                    writeln!(out, "changes (proved by the verifier):")?;
                } else {
                    writeln!(
                        out,
                        "changes (unproved: no explanation of ≤ 2 edits found; from the structural diff):"
                    )?;
                }
                for c in &ex.changes {
                    writeln!(out, "  {}", safe(&c.text))?;
                }
                for r in &ex.rewrites {
                    writeln!(out, "  rewrite: {}", safe(r))?;
                }
            }
            let ids: Vec<&str> = kinds.iter().map(|k| k.id()).collect();
            let ids = if ids.is_empty() {
                "none".to_string()
            } else {
                ids.join(", ")
            };
            writeln!(out, "kinds: {ids}")?;
        }
        writeln!(out, "({ms:.1} ms)")?;
    }
    Ok(exit_code(&verdict))
}

fn syntax_name(s: SyntaxKind) -> &'static str {
    match s {
        SyntaxKind::Pl => "pl",
        SyntaxKind::Fol => "fol",
        SyntaxKind::Regex => "regex",
    }
}

/// One input line of `--pairs`, read but not yet checked.
enum PairLine {
    Pair {
        a: String,
        b: String,
        syntax: Option<SyntaxKind>,
    },
    Bad(String),
}

fn read_line(line: &str) -> PairLine {
    let t = line.trim_end_matches(['\r', '\n']);
    if t.trim().is_empty() {
        return PairLine::Bad("blank line: expected φ<TAB>φ′".into());
    }
    if t.trim_start().starts_with('{') {
        #[derive(serde::Deserialize)]
        struct J {
            a: String,
            b: String,
            syntax: Option<SyntaxKind>,
        }
        return match serde_json::from_str::<J>(t) {
            Ok(j) => PairLine::Pair {
                a: j.a,
                b: j.b,
                syntax: j.syntax,
            },
            Err(e) => PairLine::Bad(format!(
                "not a JSON pair ({e}); expected {{\"a\": …, \"b\": …, \"syntax\": \"pl|fol|regex\"}}"
            )),
        };
    }
    let columns: Vec<&str> = t.split('\t').collect();
    match columns[..] {
        [a, b] => PairLine::Pair {
            a: a.to_string(),
            b: b.to_string(),
            syntax: None,
        },
        [_] => PairLine::Bad("no tab: expected φ<TAB>φ′".into()),
        _ => PairLine::Bad(format!(
            "{} tab-separated columns: expected 2, φ<TAB>φ′ (a tab inside a formula needs the JSON form)",
            columns.len()
        )),
    }
}

/// Lines read and verified per parallel chunk: bounds memory on any input size.
const CHUNK: usize = 8192;
/// Lines a worker verifies at a time.
const BLOCK: usize = 64;
/// Longest accepted input line; longer ones are reported, not read whole into a pair.
const MAX_LINE: usize = 1 << 20;

fn run_pairs(
    path: &str,
    asked: Option<SyntaxKind>,
    reading: Reading,
    timeout: u64,
    explain: bool,
) -> Result<i32> {
    let reader: Box<dyn BufRead> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = crate::base::fsread::open(std::path::Path::new(path), crate::base::fsread::STREAM)
            .with_context(|| format!("opening {path}"))?;
        Box::new(std::io::BufReader::with_capacity(1 << 16, f))
    };
    let opts = options(timeout);
    let stdout = std::io::stdout().lock();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout);
    let mut bad = 0usize;
    let mut line_no = 0usize;
    let mut lines = crate::run::store::BoundedLines::new(reader, MAX_LINE);
    loop {
        let mut chunk: Vec<(usize, PairLine)> = Vec::with_capacity(CHUNK);
        while chunk.len() < CHUNK {
            match lines.next_line() {
                Ok(Some(Ok(l))) => {
                    line_no += 1;
                    chunk.push((line_no, read_line(&l)));
                }
                Ok(Some(Err(n))) => {
                    line_no += 1;
                    chunk.push((
                        line_no,
                        PairLine::Bad(format!("line longer than {MAX_LINE} bytes ({n} read)")),
                    ));
                }
                Ok(None) => break,
                Err(e) => return Err(e).with_context(|| format!("reading {path}")),
            }
        }
        if chunk.is_empty() {
            break;
        }
        bad += write_chunk(&chunk, asked, reading, &opts, explain, path, &mut out)?;
    }
    out.flush()?;
    if bad > 0 {
        eprintln!("{bad} line(s) of {path} could not be verified (see the \"error\" lines)");
        return Ok(2);
    }
    Ok(0)
}

/// The output line for one input line, and whether the line was bad.
fn check_line(
    n: usize,
    line: &PairLine,
    asked: Option<SyntaxKind>,
    reading: Reading,
    opts: &Options,
    explain: bool,
) -> (String, bool) {
    let (a, b, syntax) = match line {
        PairLine::Bad(why) => {
            return (
                serde_json::json!({"line": n, "error": why}).to_string(),
                true,
            );
        }
        PairLine::Pair { a, b, syntax } => (a, b, syntax.or(asked)),
    };
    // One parse of φ decides the syntax and is kept.
    let asked_here = syntax;
    let parsed = match syntax {
        Some(s) => parse_as(a, s, reading).map(|e| (s, e)),
        None => parse_as(a, SyntaxKind::Fol, reading)
            .map(|e| (SyntaxKind::Fol, e))
            .or_else(|e| {
                parse(a, SyntaxKind::Regex)
                    .map(|r| (SyntaxKind::Regex, r))
                    .map_err(|_| e)
            }),
    };
    match parsed {
        Err(e) => {
            let why = format!(
                "φ does not parse: {} at character {}",
                e.reason,
                e.char_pos(a)
            );
            let j = serde_json::json!({"line": n, "error": why, "a": a, "b": b});
            (j.to_string(), true)
        }
        Ok((syn, ea)) => {
            let (v, eb) = check_pair(&ea, b, syn, reading, opts);
            let shown = reported_syntax(asked_here, syn, &ea, eb.as_ref());
            let mut j = pair_json(a, b, shown, &ea, &v);
            if let Some(o) = j.as_object_mut() {
                if explain {
                    explain_json(&ea, eb.as_ref(), &v, o);
                }
                o.insert("line".into(), n.into());
            }
            (j.to_string(), false)
        }
    }
}

/// Parses, verifies and formats one chunk on all cores, then writes it in input order;
/// returns how many lines were bad.
fn write_chunk(
    chunk: &[(usize, PairLine)],
    asked: Option<SyntaxKind>,
    reading: Reading,
    opts: &Options,
    explain: bool,
    path: &str,
    out: &mut impl Write,
) -> Result<usize> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    // Workers take small blocks in turn, so a run of hard pairs does not leave the
    // other cores idle; a block that panics answers with error lines, the rest stand.
    let blocks: Vec<&[(usize, PairLine)]> = chunk.chunks(BLOCK).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut done: Vec<Option<Vec<(String, bool)>>> = vec![None; blocks.len()];
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.min(blocks.len()))
            .map(|_| {
                s.spawn(|| {
                    let mut got = Vec::new();
                    loop {
                        let b = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(part) = blocks.get(b) else { break };
                        let lines = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            part.iter()
                                .map(|(n, l)| check_line(*n, l, asked, reading, opts, explain))
                                .collect::<Vec<_>>()
                        }));
                        got.push((b, lines.ok()));
                    }
                    got
                })
            })
            .collect();
        for h in handles {
            for (b, lines) in h.join().unwrap_or_default() {
                done[b] = lines;
            }
        }
    });
    let results = blocks.iter().zip(done).flat_map(|(part, lines)| {
        lines.unwrap_or_else(|| {
            part.iter()
                .map(|(n, _)| {
                    let j = serde_json::json!({"line": n, "error": "internal error: the verifier crashed on this chunk"});
                    (j.to_string(), true)
                })
                .collect()
        })
    });
    let mut bad = 0;
    for ((n, _), (line, is_bad)) in chunk.iter().zip(results) {
        if is_bad {
            bad += 1;
            let why = serde_json::from_str::<serde_json::Value>(&line)
                .ok()
                .and_then(|v| v["error"].as_str().map(str::to_string))
                .unwrap_or_default();
            eprintln!("{path}:{n}: {}", crate::base::sanitize::one_line(&why));
        }
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(bad)
}
