//! `autoeval verify`.

use crate::syntax::{SyntaxKind, parse};
use crate::verify::{Options, Verdict, render, verify};
use anyhow::{Result, anyhow};
use clap::Args;
use std::time::{Duration, Instant};

/// Arguments of `autoeval verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// φ, the reference.
    pub phi: String,
    /// φ′, the candidate.
    pub phi_prime: String,
    /// Syntax (default: logic if φ parses as logic, else regex).
    #[arg(long, value_enum)]
    pub syntax: Option<SyntaxKind>,
    /// Time limit in milliseconds.
    #[arg(long, default_value_t = 5000)]
    pub timeout: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Exit code for a verdict: 0 equivalent, 1 not, 2 anything else.
pub fn exit_code(v: &Verdict) -> i32 {
    match v {
        Verdict::Equivalent { .. } => 0,
        Verdict::NotEquivalent { .. } => 1,
        _ => 2,
    }
}

/// Runs `autoeval verify`.
pub fn run(args: VerifyArgs) -> Result<i32> {
    let syntax = match args.syntax {
        Some(s) => s,
        None if parse(&args.phi, SyntaxKind::Fol).is_ok() => SyntaxKind::Fol,
        None if parse(&args.phi, SyntaxKind::Regex).is_ok() => SyntaxKind::Regex,
        None => SyntaxKind::Fol,
    };
    let a = parse(&args.phi, syntax).map_err(|e| anyhow!("φ does not parse: {e}"))?;
    let opts = Options {
        timeout: Duration::from_millis(args.timeout.max(1)),
        ..Options::default()
    };
    let start = Instant::now();
    let verdict = match parse(&args.phi_prime, syntax) {
        Ok(b) => verify(&a, &b, &opts),
        Err(e) => Verdict::Unparseable {
            pos: e.pos,
            reason: e.reason,
        },
    };
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    if args.json {
        let mut v = serde_json::to_value(&verdict)?;
        if let Some(o) = v.as_object_mut() {
            o.insert("phi".into(), a.to_unicode().into());
            o.insert("syntax".into(), serde_json::to_value(syntax)?);
            o.insert("elapsed_ms".into(), ms.into());
        }
        println!("{v}");
    } else {
        println!("φ  = {}", a.to_unicode());
        if let Ok(b) = parse(&args.phi_prime, syntax) {
            println!("φ′ = {}", b.to_unicode());
        }
        print!("{}", render::verdict(&verdict));
        println!("({ms:.1} ms)");
    }
    Ok(exit_code(&verdict))
}
