//! The layer order of `src/lib.rs`'s code map, checked against the code with nothing
//! but `cargo test --test it layers::`: every module is in the map, every import
//! points down or across its layer, modules never import each other round in a circle,
//! and no sibling files import each other, two of them or round a longer circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The code map's layer of each top-level module, from the table in `lib.rs`.
fn layers() -> BTreeMap<String, u32> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let mut out = BTreeMap::new();
    for line in lib.lines() {
        let Some(row) = line.strip_prefix("//! | ") else {
            continue;
        };
        let mut cells = row.split(" | ");
        let Some(Ok(layer)) = cells.next().map(str::parse::<u32>) else {
            continue;
        };
        let modules = cells.next().unwrap_or("");
        for m in modules.split(", ") {
            let name = m.trim().trim_start_matches("[`").trim_end_matches("`]");
            assert!(
                out.insert(name.to_string(), layer).is_none(),
                "{name} is in the code map twice"
            );
        }
    }
    out
}

/// The modules `lib.rs` declares.
fn declared() -> BTreeSet<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';').to_string())
        .collect()
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without comments and without its unit tests (which may reach
/// anywhere: a test of the form compares it with the CLI's parser).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => &text[..],
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segments of the paths under `prefix::` in `code`: `crate::run::rows` and
/// `crate::{run, report::x}` give `run` and `report`.
fn roots(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in code.match_indices(prefix) {
        if code[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
        {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Names at the group's first level.
            let mut depth = 0;
            let mut start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && (c.is_alphabetic() || c == '_') => {
                        out.insert(word(&group[j..]));
                        start = false;
                    }
                    c if !c.is_whitespace() => start = false,
                    _ => {}
                }
            }
        } else {
            let w = word(rest);
            if !w.is_empty() {
                out.insert(w);
            }
        }
    }
    out
}

/// The top-level module a file belongs to (`src/run/rows.rs` → `run`).
fn top(path: &Path) -> String {
    let rel = path.strip_prefix(src()).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

#[test]
fn every_module_is_in_the_code_map_and_imports_point_down_or_across() {
    let layers = layers();
    let declared = declared();
    let mapped: BTreeSet<String> = layers.keys().cloned().collect();
    assert_eq!(
        mapped, declared,
        "the code map in src/lib.rs and its `pub mod` lines name different modules"
    );
    let mut all = Vec::new();
    files(&src(), &mut all);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut wrong = Vec::new();
    for f in &all {
        let own = top(f);
        if own == "lib" || own == "main" || f.to_string_lossy().ends_with("_tests.rs") {
            continue;
        }
        let own_layer = layers[&own];
        for m in roots(&code(f), "crate::") {
            let Some(&layer) = layers.get(&m) else {
                continue;
            };
            if m != own {
                graph.entry(own.clone()).or_default().insert(m.clone());
            }
            if layer > own_layer {
                wrong.push(format!(
                    "{} (layer {own_layer}) imports crate::{m} (layer {layer})",
                    f.strip_prefix(src()).unwrap().display()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that point up a layer:\n{}",
        wrong.join("\n")
    );
    // Across a layer is allowed, round in a circle is not.
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if let Some(i) = path.iter().position(|p| p == n) {
            panic!("modules import each other: {} → {n}", path[i..].join(" → "));
        }
        if done.contains(n) {
            return;
        }
        path.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            visit(m, graph, path, done);
        }
        path.pop();
        done.insert(n.to_string());
    }
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        visit(n, &graph, &mut Vec::new(), &mut done);
    }
}

#[test]
fn no_sibling_files_import_each_other_round_a_circle() {
    let mut all = Vec::new();
    files(&src(), &mut all);
    let mut imports: BTreeSet<(PathBuf, PathBuf)> = BTreeSet::new();
    for f in &all {
        let name = f.file_stem().unwrap().to_string_lossy();
        if name == "mod" || name == "lib" || name == "main" || name.ends_with("_tests") {
            continue;
        }
        let dir = f.parent().unwrap();
        // `super::x` from a file is its sibling `x`; so is `crate::<its dirs>::x`.
        let rel = dir.strip_prefix(src()).unwrap();
        let mut prefixes = vec!["super::".to_string()];
        if !rel.as_os_str().is_empty() {
            let dirs: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            prefixes.push(format!("crate::{}::", dirs.join("::")));
        }
        let c = code(f);
        for p in &prefixes {
            for m in roots(&c, p) {
                let sibling = dir.join(format!("{m}.rs"));
                if sibling != *f && sibling.exists() {
                    imports.insert((f.clone(), sibling));
                }
            }
        }
    }
    let mut graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (a, b) in imports {
        graph.entry(a).or_default().insert(b);
    }
    if let Some(c) = circle(&graph) {
        let names: Vec<String> = c
            .iter()
            .map(|f| f.strip_prefix(src()).unwrap_or(f).display().to_string())
            .collect();
        panic!(
            "sibling files import each other round a circle: {}",
            names.join(" → ")
        );
    }
}

/// A circle in `graph` (its nodes in order, the first repeated at the end), if any.
fn circle<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Option<Vec<N>> {
    fn visit<N: Ord + Clone>(
        n: &N,
        graph: &BTreeMap<N, BTreeSet<N>>,
        path: &mut Vec<N>,
        done: &mut BTreeSet<N>,
    ) -> Option<Vec<N>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            let mut c = path[i..].to_vec();
            c.push(n.clone());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.clone());
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.clone());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_circle_finder_finds_long_circles_and_only_those() {
    let g = |edges: &[(u8, u8)]| {
        let mut m: BTreeMap<u8, BTreeSet<u8>> = BTreeMap::new();
        for &(a, b) in edges {
            m.entry(a).or_default().insert(b);
        }
        m
    };
    assert_eq!(
        circle(&g(&[(1, 2), (2, 3), (3, 1)])),
        Some(vec![1, 2, 3, 1])
    );
    assert_eq!(circle(&g(&[(1, 2), (2, 3), (1, 3), (3, 4)])), None);
    assert!(circle(&g(&[(5, 6), (1, 2), (2, 3), (3, 4), (4, 2)])).is_some());
}

#[test]
fn the_path_reader_finds_grouped_and_nested_imports() {
    let c = "use crate::{run::{rows, texts}, report};\nlet x = crate::tui::App::new();\nnotcrate::llm::x;";
    let r: Vec<String> = roots(c, "crate::").into_iter().collect();
    assert_eq!(r, ["report", "run", "tui"]);
}
