//! `metrics perturb` split by the verifier's verdict, in text, JSON, CSV and as an SVG
//! heat map, driven through the binary on the shipped FOLIO file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[allow(dead_code)]
use crate::common::cli;

use serde_json::Value;
use std::path::Path;

#[test]
fn split_by_verdict_adds_up_and_the_heat_map_has_one_cell_per_table_cell() {
    let home = tempfile::tempdir().unwrap();
    // A path with characters that need escaping in the SVG's title.
    let dir = home.path().join("a&b<c>");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("folio \"x\".jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/folio/folio-v0.0-train.jsonl"),
        &src,
    )
    .unwrap();
    let svg = home.path().join("t2.svg");
    let out = cli::bin_in(home.path())
        .args(["metrics", "perturb", "--json", "--plot"])
        .arg(&svg)
        .arg(&src)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    for r in rows {
        let groups = r["by_verdict"].as_array().unwrap();
        let names: Vec<&str> = groups
            .iter()
            .map(|g| g["verdict"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["equivalent", "not-equivalent", "undecided"]);
        let total: u64 = groups.iter().map(|g| g["n"].as_u64().unwrap()).sum();
        assert_eq!(total, r["n"].as_u64().unwrap(), "{}", r["perturbation"]);
    }
    // Identity is equivalent for every record; ∀→∃ is not for most it changes.
    assert_eq!(rows[0]["by_verdict"][0]["n"], rows[0]["n"]);
    let q = &rows[1]["by_verdict"];
    assert!(q[1]["n"].as_u64().unwrap() > 20, "{q}");
    assert_eq!(
        q[1]["changed"].as_f64(),
        Some(1.0),
        "only changed records can differ"
    );

    // The SVG is well-formed XML with one cell per table cell: 8 rows × 6 metrics for
    // all records and for each of the three groups.
    let text = std::fs::read_to_string(&svg).unwrap();
    let cells = well_formed(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(cells, 8 * 6 * 4);
    assert!(
        text.contains("a&amp;b&lt;c&gt;"),
        "escaped path in the title"
    );

    // Text and CSV carry the same split.
    let t = cli::bin_in(home.path())
        .args(["metrics", "perturb"])
        .arg(&src)
        .output()
        .unwrap();
    let t = String::from_utf8_lossy(&t.stdout);
    assert!(
        t.contains("Split by autoeval's verifier") && t.contains("not-equivalent"),
        "{t}"
    );
    // Table 2's six columns, each row with its n; BS says how to get it.
    let head = t
        .lines()
        .find(|l| l.contains("changed") && l.contains("BL"))
        .unwrap();
    let cols: Vec<&str> = head.split_whitespace().collect();
    assert_eq!(
        cols,
        ["n", "changed", "BL", "LE", "RO", "SP", "ME", "BS"],
        "{head}"
    );
    let quant = t.lines().find(|l| l.starts_with("Quantifier ")).unwrap();
    assert!(
        quant.split_whitespace().nth(1) == Some(rows[1]["n"].to_string().as_str()),
        "{quant}"
    );
    assert!(
        t.contains("BS is computed with --bertscore-model DIR"),
        "{t}"
    );
    let c = cli::bin_in(home.path())
        .args(["metrics", "perturb", "--csv"])
        .arg(&src)
        .output()
        .unwrap();
    let c = String::from_utf8_lossy(&c.stdout);
    let neq: Vec<&str> = c
        .lines()
        .filter(|l| {
            l.starts_with("Quantifier,bleu_fol,bleu_fol,") && l.ends_with(",not-equivalent")
        })
        .collect();
    assert_eq!(neq.len(), 1, "{c}");
    assert!(neq[0].contains(&format!(",{},", q[1]["n"])), "{}", neq[0]);
}

/// Entities XML defines without a DTD.
fn entity_ok(rest: &str) -> bool {
    ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
        .iter()
        .any(|e| rest.starts_with(e))
}

/// Checks XML well-formedness (balanced, matching tags; quoted attributes; escaped `&`
/// and `<`; one root) and counts elements with `class="cell"`.
fn well_formed(s: &str) -> Result<usize, String> {
    let body = s.trim_start();
    let body = match body.strip_prefix("<?xml") {
        Some(r) => &r[r.find("?>").ok_or("unclosed declaration")? + 2..],
        None => body,
    };
    let (mut stack, mut roots, mut cells) = (Vec::<String>::new(), 0, 0);
    let mut i = 0;
    let b = body.as_bytes();
    while i < b.len() {
        match b[i] {
            b'<' => {
                let end = body[i..].find('>').ok_or("unclosed tag")? + i;
                let tag = &body[i + 1..end];
                if let Some(name) = tag.strip_prefix('/') {
                    let open = stack.pop().ok_or(format!("stray </{name}>"))?;
                    if open != name.trim() {
                        return Err(format!("<{open}> closed by </{name}>"));
                    }
                } else {
                    let self_closing = tag.ends_with('/');
                    let tag = tag.trim_end_matches('/');
                    let name: String = tag.chars().take_while(|c| !c.is_whitespace()).collect();
                    if name.is_empty() || tag.contains('<') {
                        return Err(format!("bad tag <{tag}>"));
                    }
                    // Attributes: name="value" pairs, values without < and with valid &.
                    let mut rest = tag[name.len()..].trim();
                    let mut class_cell = false;
                    while !rest.is_empty() {
                        let eq = rest
                            .find("=\"")
                            .ok_or(format!("bad attribute in <{tag}>"))?;
                        let key = rest[..eq].trim();
                        let val_end =
                            rest[eq + 2..].find('"').ok_or("unclosed attribute")? + eq + 2;
                        let val = &rest[eq + 2..val_end];
                        if val.contains('<')
                            || val.match_indices('&').any(|(k, _)| !entity_ok(&val[k..]))
                        {
                            return Err(format!("unescaped attribute {key}={val}"));
                        }
                        class_cell |= key == "class" && val == "cell";
                        rest = rest[val_end + 1..].trim_start();
                    }
                    cells += usize::from(class_cell);
                    if stack.is_empty() {
                        roots += 1;
                    }
                    if !self_closing {
                        stack.push(name);
                    }
                }
                i = end + 1;
            }
            b'&' if !entity_ok(&body[i..]) => return Err(format!("bare & at {i}")),
            _ => i += 1,
        }
    }
    if !stack.is_empty() || roots != 1 {
        return Err(format!("unbalanced: open {stack:?}, {roots} roots"));
    }
    Ok(cells)
}
