//! `smatch_paper`: Smatch F1 on the paper's own FOL→graph conversion (AlignmentFOL
//! `graph_parser.parse_tree_to_amr`, read by smatchpp's tolerant `PenmanReader`), defects
//! included, so the paper's Smatch++ numbers can be reproduced; the alignment is optimal.
//!
//! What the conversion gets wrong (kept on purpose): predicate arguments hang off the
//! literal's parent relation, not the predicate; `,` stays glued to argument concepts;
//! every `¬(…)` shares one node `not`; only the first variable of a quantifier prefix is
//! kept; the quantifier's child gets the concept `(`, or the quantifier vanishes when the
//! body has one bracketed negation; a leading `¬` on the whole formula is dropped.

use super::paper_parse::{Nt, PTree, PaperParseError, parse_paper};
use super::smatch_align::{End, Graph, Interner, f1};
use rustc_hash::FxHashMap as HashMap;

/// Python's `s[:-k]` on characters.
fn py_cut(s: &str, k: i64) -> String {
    let n = s.chars().count() as i64;
    let end = match k.cmp(&0) {
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => (n - k).max(0),
        std::cmp::Ordering::Less => (-k).min(n),
    };
    s.chars().take(end as usize).collect()
}

/// The paper's Penman string for a parse.
pub(crate) fn paper_graph_string(t: &PTree) -> String {
    fn uid(counter: &mut usize, base: &str) -> String {
        *counter += 1;
        format!("{base}_{counter}")
    }
    fn go(t: &PTree, c: &mut usize) -> String {
        let PTree::Node(label, kids) = t else {
            return t.leaf().unwrap_or_default().to_string();
        };
        let leaf0 = kids.first().and_then(PTree::leaf);
        match label {
            Nt::S => {
                if kids.len() == 2 {
                    let q = go(&kids[0], c);
                    let f = go(&kids[1], c);
                    let scopes =
                        q.matches("scope").count() as i64 - f.matches("scope").count() as i64;
                    let close = ")".repeat(scopes.max(0) as usize);
                    format!("{} {f}{close}", py_cut(&q, scopes))
                } else {
                    kids.iter().map(|k| go(k, c)).collect::<Vec<_>>().join(" ")
                }
            }
            Nt::Q => {
                let quant = go(&kids[0], c);
                let var = go(&kids[1], c);
                let id = uid(c, "quant");
                format!("({id} / {quant}\n   :scope ({var}")
            }
            Nt::F => {
                if leaf0 == Some("¬") {
                    format!("(not / NOT :scope {})", go(&kids[2], c))
                } else if leaf0 == Some("(") {
                    go(&kids[1], c)
                } else if kids.len() == 3 {
                    let left = go(&kids[0], c);
                    let op = go(&kids[1], c);
                    let right = go(&kids[2], c);
                    format!("({op} :left {left} :right {right})")
                } else {
                    go(&kids[0], c)
                }
            }
            Nt::L => {
                if kids.len() == 5 && leaf0 == Some("¬") {
                    let pred = go(&kids[1], c);
                    let terms = go(&kids[3], c);
                    let id = uid(c, "not");
                    format!("({id} / NOT :scope ({pred} :args {terms}))")
                } else if kids.len() == 3 {
                    let left = go(&kids[0], c);
                    let right = go(&kids[2], c);
                    let id = uid(c, "eq");
                    format!("({id} / EQ :left {left} :right {right})")
                } else {
                    let pred = go(&kids[0], c);
                    let terms = go(&kids[2], c);
                    format!("({pred} :args {terms})")
                }
            }
            Nt::Terms => {
                if kids.len() == 3 {
                    format!("{}, {}", go(&kids[0], c), go(&kids[2], c))
                } else {
                    go(&kids[0], c)
                }
            }
            Nt::Term | Nt::Quant => go(&kids[0], c),
            Nt::Op => {
                let sym = match leaf0.unwrap_or_default() {
                    "⊕" => "XOR",
                    "∨" => "OR",
                    "∧" => "AND",
                    "→" => "IMPLIES",
                    _ => "IFF",
                };
                let id = uid(c, &sym.to_lowercase());
                format!("{id} / {sym}")
            }
            Nt::Pred => {
                let name = leaf0.unwrap_or_default();
                let id = uid(c, &name.to_lowercase());
                format!("{id} / {name}")
            }
            Nt::Var | Nt::Const => {
                let id = uid(c, "var");
                format!("{id} / {}", leaf0.unwrap_or_default())
            }
        }
    }
    go(t, &mut 0)
}

/// Why a graph string cannot be read the way smatchpp reads it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReadError {
    /// smatchpp's reader raises (an index past the end), so the paper's code would crash.
    #[error("smatchpp's reader fails on this graph: {0}")]
    Crash(&'static str),
    /// Quote characters switch smatchpp into string-constant mode, which is not ported.
    #[error("a quote character in a symbol (string constants are not supported)")]
    Quote,
}

/// smatchpp 1.7.0 `PenmanReader._string2graph` (explicate_root), as string triples.
pub(crate) fn read_penman(s: &str) -> Result<Vec<(String, String, String)>, ReadError> {
    if s.contains('"') || s.contains('\'') {
        return Err(ReadError::Quote);
    }
    let spaced = s.replace(')', " )").replace('(', "( ");
    let toks: Vec<&str> = spaced
        .split(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
        .filter(|t| !t.is_empty())
        .collect();
    let mut level: i64 = 0;
    let mut src: HashMap<i64, String> = HashMap::from_iter([(0, "ROOT_OF_GRAPH".to_string())]);
    let mut rel: HashMap<i64, String> = HashMap::from_iter([(0, ":root".to_string())]);
    let mut triples = Vec::new();
    let mut i = 0usize;
    let n = toks.len();
    // Python's negative indexing, for the reader's look-back.
    let at = |j: i64| -> Option<&str> {
        let k = if j < 0 { j + n as i64 } else { j };
        (0..n as i64).contains(&k).then(|| toks[k as usize])
    };
    while i < n {
        let tok = toks[i];
        if tok == "(" {
            level += 1;
            i += 1;
        } else if tok == ")" {
            level -= 1;
            i += 1;
        } else if tok.starts_with(':') {
            rel.insert(level, tok.to_string());
            i += 1;
        } else if toks
            .get(i + 1)
            .ok_or(ReadError::Crash("token after the last"))?
            == &"/"
        {
            let concept = toks
                .get(i + 2)
                .ok_or(ReadError::Crash("concept after the last"))?;
            i += 3;
            src.insert(level, tok.to_string());
            triples.push((
                tok.to_string(),
                ":instance".to_string(),
                (*concept).to_string(),
            ));
            // A KeyError in Python stops reading, keeping the triples so far.
            let (Some(ps), Some(pr)) = (src.get(&(level - 1)), rel.get(&(level - 1))) else {
                break;
            };
            triples.push((ps.clone(), pr.clone(), tok.to_string()));
        } else {
            let mut lv = level;
            let mut j = i as i64 - 1;
            while at(j).ok_or(ReadError::Crash("look-back before the start"))? == "(" {
                lv -= 1;
                j -= 1;
            }
            let (Some(ps), Some(pr)) = (src.get(&lv), rel.get(&lv)) else {
                break;
            };
            triples.push((ps.clone(), pr.clone(), tok.to_string()));
            i += 1;
        }
    }
    if triples.iter().filter(|t| t.1 == ":root").count() > 1 {
        let mut first = true;
        for t in &mut triples {
            if t.1 == ":root" {
                if first {
                    first = false;
                } else {
                    t.1 = ":root_but_not_the_graph_root".to_string();
                }
            }
        }
    }
    Ok(triples)
}

/// String triples as a [`Graph`]: variables are the sources of `:instance` triples.
pub(crate) fn to_graph(triples: &[(String, String, String)], names: &mut Interner) -> Graph {
    let mut vars: HashMap<&str, u32> = HashMap::default();
    for t in triples {
        if t.1 == ":instance" && !vars.contains_key(t.0.as_str()) {
            vars.insert(&t.0, vars.len() as u32);
        }
    }
    let mut g = Graph {
        vars: vars.len() as u32,
        triples: Vec::with_capacity(triples.len()),
    };
    for (s, r, o) in triples {
        let inst = r == ":instance";
        let s = vars
            .get(s.as_str())
            .map_or_else(|| End::Const(names.id(s)), |&v| End::Var(v));
        let o = match vars.get(o.as_str()) {
            Some(&v) if !inst => End::Var(v),
            _ => End::Const(names.id(o)),
        };
        g.triples.push((s, names.id(r), o));
    }
    g
}

/// Why `smatch_paper` has no value (beyond a failed paper parse, which scores 0).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SmatchPaperError {
    /// The graph string cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// `smatch_paper` from parses (reference first, as the paper calls smatchpp), in [0, 1].
/// Returns the score and whether the alignment was proved optimal.
pub(crate) fn smatch_paper_parsed(
    candidate: Result<&PTree, &PaperParseError>,
    reference: Result<&PTree, &PaperParseError>,
) -> Result<(f64, bool), SmatchPaperError> {
    let (Ok(c), Ok(r)) = (candidate, reference) else {
        return Ok((0.0, true));
    };
    let mut names = Interner::default();
    let gr = to_graph(&read_penman(&paper_graph_string(r))?, &mut names);
    // A copy of the reference (a φ₁ printed as φ₀) has the same graph: built once.
    let gc = if std::ptr::eq(c, r) || c == r {
        gr.clone()
    } else {
        to_graph(&read_penman(&paper_graph_string(c))?, &mut names)
    };
    Ok(f1(&gr, &gc))
}

/// `smatch_paper` of two raw strings.
pub fn smatch_paper(candidate: &str, reference: &str) -> Result<(f64, bool), SmatchPaperError> {
    smatch_paper_parsed(
        parse_paper(candidate).as_ref(),
        parse_paper(reference).as_ref(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(s: &str) -> String {
        paper_graph_string(&parse_paper(s).expect("parses"))
    }

    #[test]
    fn graph_strings_match_the_papers_code() {
        assert_eq!(
            g("A(x) ∧ B(x) ∨ C(x)"),
            "(or_6 / OR :left (and_3 / AND :left (a_1 / A :args var_2 / x) :right (b_4 / B :args var_5 / x)) :right (c_7 / C :args var_8 / x))"
        );
        assert_eq!(
            g("¬(A(x) ∧ B(x))"),
            " (and_3 / AND :left (a_1 / A :args var_2 / x) :right (b_4 / B :args var_5 / x))"
        );
        assert_eq!(
            g("∀x (¬(A(x)))"),
            " (not / NOT :scope (a_3 / A :args var_4 / x))"
        );
        assert_eq!(py_cut("abc", 0), "");
        assert_eq!(py_cut("abc", 1), "ab");
        assert_eq!(py_cut("abc", -2), "ab");
        assert_eq!(py_cut("abc", 5), "");
    }

    #[test]
    fn identical_formulas_score_one() {
        let a = "∀x (Eel(x) → Fish(x))";
        assert_eq!(smatch_paper(a, a), Ok((1.0, true)));
        assert_eq!(smatch_paper("A(x) ∧ (B(x)", a), Ok((0.0, true)));
    }
}
