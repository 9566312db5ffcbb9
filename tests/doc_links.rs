//! Every relative link in README.md and docs/**/*.md points at a file that exists, and
//! every `#anchor` at a heading of that file (as GitHub and mdBook make anchors).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The Markdown files checked: the README and everything under docs/.
fn doc_files(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md")];
    let mut stack = vec![root.join("docs")];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The text outside fenced code blocks and inline code spans (links there are examples).
fn prose(md: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, line) in md.lines().enumerate() {
        let t = line.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(&t[..3]);
            continue;
        }
        // Drop inline code spans.
        let mut kept = String::new();
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                kept.push(c);
            }
        }
        out.push((i + 1, kept));
    }
    out
}

/// Link targets on a line: `[text](target)` and `[ref]: target` definitions.
fn targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let t = line.trim_start();
    if t.starts_with('[')
        && let Some(k) = t.find("]:")
    {
        if let Some(target) = t[k + 2..].split_whitespace().next() {
            out.push(target.trim_matches(['<', '>']).to_string());
        }
        return out;
    }
    let mut rest = line;
    while let Some(k) = rest.find("](") {
        let after = &rest[k + 2..];
        let end = after.find(')').unwrap_or(after.len());
        let target = after[..end].split_whitespace().next().unwrap_or("");
        out.push(target.trim_matches(['<', '>']).to_string());
        rest = &after[end..];
    }
    out
}

/// A heading's anchor: lower case, spaces to hyphens, punctuation other than `-` and
/// `_` dropped, link and emphasis syntax reduced to its text.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // `[text](url)` keeps only its text.
    while let Some(k) = rest.find("](") {
        text.push_str(&rest[..k]);
        let after = &rest[k + 2..];
        rest = &after[after.find(')').map_or(after.len(), |e| e + 1)..];
    }
    text.push_str(rest);
    text.trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c.to_lowercase().next().unwrap_or(c)),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (repeats get `-1`, `-2`, … as on GitHub).
fn anchors(md: &str) -> HashSet<String> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut fence = false;
    for line in md.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence || !t.starts_with('#') {
            continue;
        }
        let body = t.trim_start_matches('#');
        if !body.starts_with(' ') {
            continue;
        }
        let base = slug(body.trim().trim_end_matches('#'));
        let mut s = base.clone();
        let mut k = 1;
        while seen.contains(&s) {
            s = format!("{base}-{k}");
            k += 1;
        }
        seen.insert(s);
    }
    seen
}

/// Every broken relative link of the files under `root`, as `file:line: target (why)`.
fn broken(root: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    for file in doc_files(root) {
        let md = std::fs::read_to_string(&file).unwrap();
        let name = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (n, line) in prose(&md) {
            for t in targets(&line) {
                if t.is_empty() || t.contains("://") || t.starts_with("mailto:") {
                    continue;
                }
                let (path, anchor) = t
                    .split_once('#')
                    .map_or((t.as_str(), None), |(p, a)| (p, Some(a)));
                let dest = if path.is_empty() {
                    file.clone()
                } else {
                    file.parent().unwrap().join(path)
                };
                if !dest.exists() {
                    bad.push(format!("{name}:{n}: {t} (no file {})", dest.display()));
                    continue;
                }
                if let Some(a) = anchor
                    && dest.extension().is_some_and(|x| x == "md")
                    && !anchors(&std::fs::read_to_string(&dest).unwrap()).contains(a)
                {
                    bad.push(format!("{name}:{n}: {t} (no heading with anchor #{a})"));
                }
            }
        }
    }
    bad
}

#[test]
fn readme_and_docs_links_resolve() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bad = broken(root);
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

#[test]
fn the_checker_catches_missing_files_and_anchors() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("docs/guide")).unwrap();
    std::fs::write(
        d.path().join("README.md"),
        "# Top\n\n## Running `autoeval run`\n\n[ok](#running-autoeval-run) [dup](#top-1) \
         [file](docs/guide/a.md) [anchor](docs/guide/a.md#the-end) [web](https://x.y/z)\n\n\
         ```\n[in a fence](nowhere.md)\n```\n\n`[in code](nowhere.md)`\n\n# Top\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("docs/guide/a.md"),
        "# A\n\n## The end\n\n[up](../../README.md#top) [gone](b.md) [bad](#nope)\n\n[r]: ../missing.md\n",
    )
    .unwrap();
    let bad = broken(d.path());
    let text = bad.join("\n");
    assert_eq!(bad.len(), 3, "{text}");
    assert!(text.contains("docs/guide/a.md:5: b.md (no file"), "{text}");
    assert!(
        text.contains("docs/guide/a.md:5: #nope (no heading"),
        "{text}"
    );
    assert!(
        text.contains("docs/guide/a.md:7: ../missing.md (no file"),
        "{text}"
    );
}
