//! Plain-text rendering of verdicts and countermodels (used by the CLI and exports).

use super::verdict::{Countermodel, Side, Verdict};
use std::fmt::Write;

fn tv(b: bool) -> &'static str {
    if b { "true" } else { "false" }
}

/// Renders a countermodel as readable tables.
pub fn countermodel(c: &Countermodel) -> String {
    let mut out = String::new();
    match c {
        Countermodel::Assignment {
            values,
            left,
            right,
        } => {
            let _ = writeln!(out, "assignment:");
            for (k, v) in values {
                let _ = writeln!(out, "  {k} = {}", if *v { "T" } else { "F" });
            }
            let _ = writeln!(out, "under it φ is {} and φ′ is {}", tv(*left), tv(*right));
        }
        Countermodel::FiniteModel {
            domain,
            constants,
            predicates,
            propositions,
            left,
            right,
        } => {
            let _ = writeln!(out, "domain: {{{}}}", domain.join(", "));
            if !constants.is_empty() {
                let _ = writeln!(out, "constants:");
                for (c, e) in constants {
                    let _ = writeln!(out, "  {c} = {e}");
                }
            }
            for (p, v) in propositions {
                let _ = writeln!(out, "  {p} = {}", if *v { "T" } else { "F" });
            }
            for t in predicates {
                let ext = if t.true_tuples.is_empty() {
                    "∅".to_string()
                } else {
                    t.true_tuples
                        .iter()
                        .map(|tu| {
                            if tu.len() == 1 {
                                tu[0].clone()
                            } else {
                                format!("({})", tu.join(","))
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let _ = writeln!(out, "  {}/{} holds for: {ext}", t.name, t.arity);
            }
            let _ = writeln!(
                out,
                "in this model φ is {} and φ′ is {}",
                tv(*left),
                tv(*right)
            );
        }
        Countermodel::Imported { note } => {
            let _ = writeln!(out, "{note}");
        }
        Countermodel::NoSmallModel { searched_up_to } => {
            let _ = writeln!(
                out,
                "Z3 found a model where they differ, but none with at most {searched_up_to} elements to show"
            );
        }
        Countermodel::Witness {
            string,
            accepted_by,
        } => {
            let shown = if string.is_empty() {
                "ε (the empty string)".to_string()
            } else {
                format!("\"{string}\"")
            };
            let (yes, no) = match accepted_by {
                Side::Left => ("φ", "φ′"),
                Side::Right => ("φ′", "φ"),
            };
            let _ = writeln!(
                out,
                "shortest distinguishing string: {shown}\naccepted by {yes}, rejected by {no}"
            );
        }
    }
    out
}

/// Renders a verdict: its name, details, notes and countermodel.
pub fn verdict(v: &Verdict) -> String {
    let mut out = format!("{}\n", v.name());
    match v {
        Verdict::NotEquivalent {
            countermodel: c, ..
        } => out.push_str(&countermodel(c)),
        Verdict::Unparseable { pos, reason } => {
            let _ = writeln!(out, "{reason} at {pos}");
        }
        Verdict::Unknown { reason } => {
            let _ = writeln!(out, "{reason}");
        }
        Verdict::Copied { span, detail } => {
            let _ = writeln!(out, "{detail} (bytes {}..{})", span.0, span.1);
        }
        Verdict::ModelError { message } => {
            let _ = writeln!(out, "{message}");
        }
        Verdict::Equivalent { .. } => {}
    }
    for n in v.notes() {
        let _ = writeln!(out, "note: {n}");
    }
    out
}
