//! Plain-text rendering of verdicts and countermodels (used by the CLI and exports).

use super::verdict::{Countermodel, PredicateTable, Side, Verdict};
use std::collections::BTreeMap;
use std::fmt::Write;

fn tv(b: bool) -> &'static str {
    if b { "true" } else { "false" }
}

/// What a rendered line is, so each backend (plain text, the viewer) can style it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// A heading.
    Head,
    /// Ordinary text.
    Text,
    /// Secondary text.
    Muted,
    /// The thing to look at (a distinguishing string).
    Strong,
}

/// One line of a rendered countermodel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CmLine {
    /// How to show it.
    pub role: Role,
    /// The text.
    pub text: String,
}

fn line(role: Role, text: impl Into<String>) -> CmLine {
    CmLine {
        role,
        text: text.into(),
    }
}

/// Orders names as people do: `p2` before `p10`.
pub(crate) fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn parts(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            let boundary =
                i == bytes.len() || bytes[i].is_ascii_digit() != bytes[i - 1].is_ascii_digit();
            if boundary && s.is_char_boundary(start) && s.is_char_boundary(i) {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let (pa, pb) = (parts(a), parts(b));
    for ((da, xa), (db, xb)) in pa.iter().zip(&pb) {
        let o = if *da && *db {
            let (ta, tb) = (xa.trim_start_matches('0'), xb.trim_start_matches('0'));
            ta.len().cmp(&tb.len()).then_with(|| ta.cmp(tb))
        } else {
            xa.cmp(xb)
        };
        if o != std::cmp::Ordering::Equal {
            return o;
        }
    }
    pa.len().cmp(&pb.len()).then_with(|| a.cmp(b))
}

/// Joins items into lines of at most `per_line` items.
fn chunked(items: &[String], per_line: usize, indent: &str, out: &mut Vec<CmLine>) {
    for chunk in items.chunks(per_line.max(1)) {
        out.push(line(Role::Text, format!("{indent}{}", chunk.join("  "))));
    }
}

/// The one structured rendering of a countermodel, used by `verify` and the viewer.
/// `names` are how the two sides are called (φ, φ′ or φ₀, φ₁). A finite model lists
/// its true atoms with elements named by their constants (`rescue(esther,esther)`);
/// full tables of every predicate only when `tables` is set.
pub(crate) fn countermodel_lines(c: &Countermodel, names: [&str; 2], tables: bool) -> Vec<CmLine> {
    let mut out = Vec::new();
    let [l, r] = names;
    match c {
        Countermodel::Assignment {
            values,
            left,
            right,
        } => assignment_lines(values, [*left, *right], names, &mut out),
        Countermodel::FiniteModel {
            domain,
            constants,
            predicates,
            propositions,
            left,
            right,
        } => {
            finite_model_lines(domain, constants, predicates, propositions, tables, &mut out);
            out.push(line(Role::Text, format!("  {l} is {}, {r} is {}", tv(*left), tv(*right))));
        }
        Countermodel::Imported { note } => out.push(line(Role::Muted, format!("  {note}"))),
        Countermodel::NoSmallModel { searched_up_to } => out.push(line(
            Role::Muted,
            format!("  Z3 found a model where they differ, but none with at most {searched_up_to} elements to show"),
        )),
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
                Side::Left => (l, r),
                Side::Right => (r, l),
            };
            out.push(line(Role::Head, "shortest distinguishing string"));
            out.push(line(Role::Strong, format!("  {shown}")));
            out.push(line(Role::Text, format!("  accepted by {yes}, rejected by {no}")));
        }
    }
    out
}

/// The assignment branch of [`countermodel_lines`]: true and false atoms, then both sides' values.
fn assignment_lines(
    values: &BTreeMap<String, bool>,
    sides: [bool; 2],
    names: [&str; 2],
    out: &mut Vec<CmLine>,
) {
    let [l, r] = names;
    let [left, right] = sides;
    let mut keys: Vec<(&String, &bool)> = values.iter().collect();
    keys.sort_by(|a, b| natural_cmp(a.0, b.0));
    let pick = |want: bool| -> Vec<String> {
        keys.iter()
            .filter(|(_, v)| **v == want)
            .map(|(k, _)| (*k).clone())
            .collect()
    };
    out.push(line(Role::Head, "assignment"));
    let (t, f) = (pick(true), pick(false));
    out.push(line(
        Role::Text,
        format!(
            "  true:  {}",
            if t.is_empty() {
                "—".into()
            } else {
                t.join(", ")
            }
        ),
    ));
    out.push(line(
        Role::Text,
        format!(
            "  false: {}",
            if f.is_empty() {
                "—".into()
            } else {
                f.join(", ")
            }
        ),
    ));
    out.push(line(
        Role::Text,
        format!("  {l} is {}, {r} is {}", tv(left), tv(right)),
    ));
}

/// The finite-model branch of [`countermodel_lines`]: elements, true atoms, and tables if asked.
fn finite_model_lines(
    domain: &[String],
    constants: &BTreeMap<String, String>,
    predicates: &[PredicateTable],
    propositions: &BTreeMap<String, bool>,
    tables: bool,
    out: &mut Vec<CmLine>,
) {
    // Each element is called by its constants (natural order), else by its own name.
    let mut by_elem: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for (c, e) in constants {
        by_elem.entry(e.as_str()).or_default().push(c.as_str());
    }
    for v in by_elem.values_mut() {
        v.sort_by(|a, b| natural_cmp(a, b));
    }
    let call = |e: &str| -> String {
        by_elem
            .get(e)
            .and_then(|v| v.first())
            .map_or_else(|| e.to_string(), |c| (*c).to_string())
    };
    let elems: Vec<String> = domain
        .iter()
        .map(|e| match by_elem.get(e.as_str()) {
            Some(cs) => format!("{e} = {}", cs.join(" = ")),
            None => e.clone(),
        })
        .collect();
    out.push(line(
        Role::Head,
        format!(
            "finite model with {} element{}",
            domain.len(),
            if domain.len() == 1 { "" } else { "s" }
        ),
    ));
    chunked(&elems, 4, "  ", out);
    let mut atoms: Vec<String> = propositions
        .iter()
        .filter(|(_, v)| **v)
        .map(|(p, _)| p.clone())
        .collect();
    for p in predicates {
        for tu in &p.true_tuples {
            let args: Vec<String> = tu.iter().map(|e| call(e)).collect();
            atoms.push(format!("{}({})", p.name, args.join(",")));
        }
    }
    atoms.sort_by(|a, b| natural_cmp(a, b));
    if atoms.is_empty() {
        out.push(line(Role::Text, "  every atom is false"));
    } else {
        out.push(line(Role::Head, "true atoms (every other atom is false)"));
        chunked(&atoms, 4, "  ", out);
    }
    if tables {
        table_lines(domain, predicates, out);
    }
}

/// Every predicate as a table: unary as one row, binary as a matrix, others as tuples.
fn table_lines(domain: &[String], predicates: &[PredicateTable], out: &mut Vec<CmLine>) {
    out.push(line(Role::Head, "tables"));
    let holds = |p: &PredicateTable, tu: &[&String]| {
        p.true_tuples
            .iter()
            .any(|x| x.len() == tu.len() && x.iter().zip(tu).all(|(a, b)| a == *b))
    };
    for p in predicates {
        match p.arity {
            1 => {
                let cells: Vec<String> = domain
                    .iter()
                    .map(|e| format!("{e}:{}", if holds(p, &[e]) { "T" } else { "F" }))
                    .collect();
                out.push(line(
                    Role::Text,
                    format!("  {}(·)  {}", p.name, cells.join(" ")),
                ));
            }
            2 => {
                out.push(line(
                    Role::Text,
                    format!("  {}(row,col)  {}", p.name, domain.join(" ")),
                ));
                for a in domain {
                    let cells: Vec<&str> = domain
                        .iter()
                        .map(|b| if holds(p, &[a, b]) { "T " } else { "F " })
                        .collect();
                    out.push(line(Role::Text, format!("    {a:<4} {}", cells.join(" "))));
                }
            }
            _ => {
                let tuples: Vec<String> = p
                    .true_tuples
                    .iter()
                    .map(|x| format!("({})", x.join(",")))
                    .collect();
                out.push(line(
                    Role::Text,
                    format!(
                        "  {}/{} holds for {}",
                        p.name,
                        p.arity,
                        if tuples.is_empty() {
                            "nothing".into()
                        } else {
                            tuples.join(" ")
                        }
                    ),
                ));
            }
        }
    }
}

/// Renders a countermodel as plain text (true atoms; see `countermodel_lines`).
pub fn countermodel(c: &Countermodel) -> String {
    countermodel_text(c, false)
}

/// Plain text of [`countermodel_lines`] with the sides called φ and φ′.
pub(crate) fn countermodel_text(c: &Countermodel, tables: bool) -> String {
    let mut out = String::new();
    for l in countermodel_lines(c, ["φ", "φ′"], tables) {
        let _ = writeln!(out, "{}", l.text);
    }
    out
}

/// Renders a verdict: its name, details, notes and countermodel.
pub fn verdict(v: &Verdict) -> String {
    verdict_with(v, false)
}

/// [`verdict`], with every predicate's table when `tables` is set.
pub(crate) fn verdict_with(v: &Verdict, tables: bool) -> String {
    let mut out = format!("{}\n", v.name());
    match v {
        Verdict::NotEquivalent {
            countermodel: c, ..
        } => out.push_str(&countermodel_text(c, tables)),
        // The position is the caller's to show: only it knows the text, and so the
        // character offset.
        Verdict::Unparseable { reason, .. } => {
            let _ = writeln!(out, "{reason}");
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn natural_order_and_true_atoms_with_constant_names() {
        let mut v = vec!["p10", "p2", "p1", "q", "p02"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["p1", "p02", "p2", "p10", "q"]);
        let c = Countermodel::FiniteModel {
            domain: vec!["e1".into(), "e2".into()],
            constants: BTreeMap::from([
                ("esther".into(), "e1".into()),
                ("bob".into(), "e2".into()),
            ]),
            predicates: vec![PredicateTable {
                name: "rescue".into(),
                arity: 2,
                true_tuples: vec![vec!["e1".into(), "e1".into()]],
            }],
            propositions: BTreeMap::new(),
            left: true,
            right: false,
        };
        let text = countermodel_text(&c, false);
        assert!(text.contains("rescue(esther,esther)"), "{text}");
        assert!(text.contains("e1 = esther"), "{text}");
        assert!(!text.contains("row,col"), "no tables unless asked: {text}");
        assert!(countermodel_text(&c, true).contains("rescue(row,col)"));
        let a = Countermodel::Assignment {
            values: BTreeMap::from([
                ("p10".into(), true),
                ("p2".into(), true),
                ("p3".into(), false),
            ]),
            left: true,
            right: false,
        };
        assert!(countermodel_text(&a, false).contains("true:  p2, p10"));
    }
}
