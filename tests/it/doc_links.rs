//! Every relative link in README.md and docs/**/*.md points at a file that exists, and
//! every `#anchor` at a heading of that file (as GitHub and mdBook make anchors). Links
//! in the book also resolve in the *rendered* book: mdBook publishes only the files under
//! `docs/src` and only the pages `SUMMARY.md` lists, so a link leaving `docs/src` or to an
//! unlisted page is broken there even when the file exists in the checkout.
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

/// A heading's id as mdBook makes it (`normalize_id`): alphanumerics, `-` and `_` kept and
/// ASCII-lowercased, whitespace to `-`, everything else dropped; repeats get `-1`, `-2`.
fn mdbook_anchors(md: &str) -> HashSet<String> {
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
        // The heading's rendered text: link syntax reduced to its text, like `slug`.
        let text = slug_text(body.trim().trim_end_matches('#'));
        let base: String = text
            .trim()
            .chars()
            .filter_map(|c| {
                if c.is_alphanumeric() || c == '_' || c == '-' {
                    Some(c.to_ascii_lowercase())
                } else if c.is_whitespace() {
                    Some('-')
                } else {
                    None
                }
            })
            .collect();
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

/// A heading's text with `[text](url)` reduced to `text`.
fn slug_text(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    while let Some(k) = rest.find("](") {
        text.push_str(&rest[..k]);
        let after = &rest[k + 2..];
        rest = &after[after.find(')').map_or(after.len(), |e| e + 1)..];
    }
    text.push_str(rest);
    text
}

/// The pages `SUMMARY.md` lists (paths relative to the book's `src`).
fn summary_pages(src: &Path) -> HashSet<PathBuf> {
    let md = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap_or_default();
    let mut out = HashSet::new();
    for (_, line) in prose(&md) {
        for t in targets(&line) {
            if !t.is_empty() && !t.contains("://") {
                out.insert(normal(&src.join(t.split('#').next().unwrap_or(""))));
            }
        }
    }
    out
}

/// `a/b/../c` as `a/c`, without touching the file system.
fn normal(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Links of the book's pages that break once mdBook renders it: a target outside the
/// book's `src`, a page `SUMMARY.md` does not list, an anchor mdBook names otherwise;
/// and a `git-repository-url` that is not an absolute http(s) URL.
fn broken_in_rendered_book(root: &Path) -> Vec<String> {
    let book = root.join("docs");
    let src = normal(&book.join("src"));
    let mut bad = Vec::new();
    if let Ok(toml) = std::fs::read_to_string(book.join("book.toml")) {
        for line in toml.lines() {
            let t = line.trim();
            if let Some(v) = t.strip_prefix("git-repository-url") {
                let url = v.trim_start_matches([' ', '=']).trim().trim_matches('"');
                if !(url.starts_with("https://") || url.starts_with("http://")) {
                    bad.push(format!(
                        "docs/book.toml: git-repository-url {url:?} is not an absolute URL"
                    ));
                }
            }
        }
    }
    let pages = summary_pages(&src);
    for file in doc_files(root) {
        let file = normal(&file);
        if !file.starts_with(&src) {
            continue;
        }
        let md = std::fs::read_to_string(&file).unwrap();
        let name = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        let in_book = pages.contains(&file) || file.ends_with("SUMMARY.md");
        if !in_book {
            bad.push(format!(
                "{name}: not listed in SUMMARY.md, so not in the rendered book"
            ));
            continue;
        }
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
                    normal(&file.parent().unwrap().join(path))
                };
                if !dest.starts_with(&src) {
                    bad.push(format!(
                        "{name}:{n}: {t} (leaves the book: mdBook publishes only docs/src)"
                    ));
                    continue;
                }
                let page = dest.extension().is_some_and(|x| x == "md");
                if page && !pages.contains(&dest) {
                    bad.push(format!("{name}:{n}: {t} (a page SUMMARY.md does not list)"));
                    continue;
                }
                if let Some(a) = anchor
                    && page
                    && let Ok(text) = std::fs::read_to_string(&dest)
                    && !mdbook_anchors(&text).contains(a)
                {
                    bad.push(format!(
                        "{name}:{n}: {t} (mdBook gives no heading the id #{a})"
                    ));
                }
            }
        }
    }
    bad
}

#[test]
fn book_links_resolve_in_the_rendered_book() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bad = broken_in_rendered_book(root);
    assert!(
        bad.is_empty(),
        "links broken in the rendered book:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_book_checker_catches_links_mdbook_cannot_resolve() {
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("docs/src");
    std::fs::create_dir_all(src.join("guide")).unwrap();
    std::fs::write(d.path().join("README.md"), "# Top\n").unwrap();
    std::fs::write(
        d.path().join("docs/book.toml"),
        "[output.html]\ngit-repository-url = \".\"\n",
    )
    .unwrap();
    std::fs::write(src.join("SUMMARY.md"), "# Summary\n\n- [A](guide/a.md)\n").unwrap();
    std::fs::write(
        src.join("guide/a.md"),
        "# A\n\n## Ω and `x`\n\n[readme](../../../README.md) [lone](../lone.md) \
         [ok](#ω-and-x) [upper](#Ω-and-x)\n",
    )
    .unwrap();
    std::fs::write(src.join("lone.md"), "# Lone\n").unwrap();
    let bad = broken_in_rendered_book(d.path());
    let text = bad.join("\n");
    assert!(text.contains("git-repository-url \".\""), "{text}");
    assert!(
        text.contains("../../../README.md (leaves the book"),
        "{text}"
    );
    assert!(
        text.contains("../lone.md (a page SUMMARY.md does not list)"),
        "{text}"
    );
    assert!(
        text.contains("docs/src/lone.md: not listed in SUMMARY.md"),
        "{text}"
    );
    // mdBook lowercases ASCII only: `Ω` stays upper case in its id.
    assert!(text.contains("#ω-and-x (mdBook gives no heading"), "{text}");
    assert!(!text.contains("#Ω-and-x"), "{text}");
    assert_eq!(bad.len(), 5, "{text}");
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
