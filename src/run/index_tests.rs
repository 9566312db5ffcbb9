//! Tests of the row index (`index.rs`): cache round trips, appends, damage.

use super::*;

fn line(id: usize, verdict: &str) -> String {
    format!(
        r#"{{"id":"{id}","idx":{id},"syntax":"pl","phi0":"p1 ∧ p{id}","phi0_original":"p1","num_operators":{id},"depth":2,"rounds":[{{"round":1,"input":"p1","psi":"ψ {id}","phi1":"p1"}}],"verdict":{{"verdict":"{verdict}"}},"rounds_passed":0,"closeness":{{"bleu":0.5,"rouge_l":0.25,"tree":0.125}},"input_tokens":{id},"output_tokens":7,"cost_usd":0.5,"finished":"x"}}"#
    ) + "\n"
}

fn fresh(dir: &Path) -> Scan {
    let mut s = Scan::default();
    s.extend_from(&dir.join(store::SAMPLES), true);
    s
}

fn texts(s: &Scan) -> Vec<String> {
    let mut store = crate::run::texts::TextStore::with_file(s.text_file.clone());
    for t in &s.texts {
        store.push(t.clone());
    }
    s.rows
        .iter()
        .map(|r| store.get(r.text).into_owned())
        .collect()
}

fn same(a: &Scan, b: &Scan) {
    assert_eq!(a.rows.len(), b.rows.len());
    for (x, y) in a.rows.iter().zip(&b.rows) {
        assert_eq!(format!("{x:?}"), format!("{y:?}"));
    }
    assert_eq!(a.extras, b.extras);
    assert_eq!(texts(a), texts(b));
    assert_eq!((a.consumed, a.lines), (b.consumed, b.lines));
    assert_eq!(a.warnings, b.warnings);
}

#[test]
fn flipped_bytes_in_the_text_section_are_read_from_the_samples_file() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join(store::SAMPLES);
    let text: String = (0..20).map(|i| line(i, "equivalent")).collect();
    std::fs::write(&f, &text).unwrap();
    let built = load_or_build(d.path(), true);
    let want = texts(&fresh(d.path()));
    assert_eq!(texts(&built), want);
    drop(built);
    // Flip bytes of one ψ in the index's text section.
    let mut idx = std::fs::read(path(d.path())).unwrap();
    let at = idx
        .windows("ψ 7".len())
        .position(|w| w == "ψ 7".as_bytes())
        .unwrap();
    idx[at + "ψ ".len()] = b'X';
    std::fs::write(path(d.path()), &idx).unwrap();
    let loaded = load(d.path(), true).expect("the rows still read");
    assert_eq!(texts(&loaded), want, "a damaged text reached a reader");
    let store = crate::run::texts::TextStore::with_file(loaded.text_file.clone());
    let all: Vec<u32> = (0..20).collect();
    let mut seen = Vec::new();
    store.each(&all, &mut |_, t| seen.push(t.to_string()));
    assert_eq!(seen, want, "a damaged text reached a search");
    // Texts that passed are not checked again; the damaged one still is.
    let mut again = Vec::new();
    store.each(&all, &mut |_, t| again.push(t.to_string()));
    assert_eq!(again, want, "a damaged text reached a later search");
}

#[test]
fn a_same_length_edit_before_the_indexed_end_is_found_after_an_append() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join(store::SAMPLES);
    let text: String = (0..400).map(|i| line(i, "equivalent")).collect();
    std::fs::write(&f, &text).unwrap();
    load_or_build(d.path(), true);
    // Line 3 becomes not-equivalent at the same length ("equivalent" → "unknown   ").
    let edited = text.replacen(
        r#""id":"3","idx":3,"syntax":"pl","phi0":"p1 ∧ p3""#,
        r#""id":"3","idx":3,"syntax":"pl","phi0":"p1 ∨ p3""#,
        1,
    );
    assert_eq!(edited.len(), text.len());
    let mut file = std::fs::OpenOptions::new().write(true).open(&f).unwrap();
    file.write_all(edited.as_bytes()).unwrap();
    file.write_all(line(400, "equivalent").as_bytes()).unwrap();
    drop(file);
    let got = load_or_build(d.path(), true);
    same(&got, &fresh(d.path()));
}

#[test]
fn the_cache_reads_back_what_a_parse_gives_and_follows_appends() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join(store::SAMPLES);
    let mut text: String = (0..50).map(|i| line(i, "equivalent")).collect();
    text.push_str("not json\n");
    std::fs::write(&f, &text).unwrap();
    let built = load_or_build(d.path(), true);
    same(&built, &fresh(d.path()));
    assert!(path(d.path()).exists());
    same(&load(d.path(), true).unwrap(), &built);
    // Appended lines are parsed on top of the cache.
    let mut file = std::fs::OpenOptions::new().append(true).open(&f).unwrap();
    file.write_all(line(50, "not-equivalent").as_bytes())
        .unwrap();
    drop(file);
    let grown = load_or_build(d.path(), true);
    assert_eq!(grown.rows.len(), 51);
    same(&grown, &fresh(d.path()));
    // The texts stay in the file; without them, everything else is the same.
    assert!(grown.texts.is_empty() && grown.text_file.is_some());
    let slim = load(d.path(), false).unwrap();
    assert!(slim.text_file.is_none() && slim.texts.is_empty());
    assert_eq!(slim.extras, grown.extras);
    // A search reads texts in windows: the same texts as one at a time.
    let store = crate::run::texts::TextStore::with_file(grown.text_file.clone());
    let idx: Vec<u32> = (0..51).step_by(3).collect();
    let mut seen = Vec::new();
    store.each(&idx, &mut |i, t| seen.push((i, t.to_string())));
    let want: Vec<(u32, String)> = idx
        .iter()
        .map(|&i| (i, store.get(i).into_owned()))
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn an_exports_rows_are_the_indexed_rows_without_extras_and_follow_appends() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join(store::SAMPLES);
    let text: String = (0..20)
        .map(|i| {
            line(
                i,
                if i % 3 == 0 {
                    "not-equivalent"
                } else {
                    "equivalent"
                },
            )
        })
        .collect();
    std::fs::write(&f, &text).unwrap();
    // No index yet: built (and saved) as any reader would.
    let dbg = |rows: &[Row]| rows.iter().map(|r| format!("{r:?}")).collect::<Vec<_>>();
    let light = load_rows(d.path());
    assert!(path(d.path()).exists());
    let full = load_or_build(d.path(), false);
    assert_eq!(dbg(&light.rows), dbg(&full.rows));
    // From the index: the same rows, kinds included, without the extras.
    let light = load_rows(d.path());
    assert_eq!(dbg(&light.rows), dbg(&full.rows));
    assert!(light.extras.is_empty() && light.text_file.is_none());
    assert!(light.rows.iter().any(|r| r.fails != 0));
    // A line appended since the index was written is read too.
    let mut file = std::fs::OpenOptions::new().append(true).open(&f).unwrap();
    file.write_all(line(20, "not-equivalent").as_bytes())
        .unwrap();
    drop(file);
    let grown = load_rows(d.path());
    assert_eq!(grown.rows.len(), 21);
    assert_eq!(dbg(&grown.rows[..20]), dbg(&full.rows));
    assert_eq!(&*grown.rows[20].id, "20");
}

#[test]
fn warnings_read_back_from_a_cache_cannot_drive_the_terminal() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join(store::SAMPLES), line(0, "equivalent")).unwrap();
    let mut scan = fresh(d.path());
    scan.warnings.push("bad \u{1b}[31mred\nline".into());
    save(d.path(), &mut scan).unwrap();
    let back = load(d.path(), true).unwrap();
    assert_eq!(back.warnings.len(), 1);
    assert!(!back.warnings[0].contains('\u{1b}') && !back.warnings[0].contains('\n'));
}

#[test]
fn when_the_index_cannot_be_written_the_texts_stay_in_memory() {
    let d = tempfile::tempdir().unwrap();
    let text: String = (0..30).map(|i| line(i, "equivalent")).collect();
    std::fs::write(d.path().join(store::SAMPLES), &text).unwrap();
    // A directory where the index would go: the final rename fails.
    std::fs::create_dir(path(d.path())).unwrap();
    let scan = load_or_build(d.path(), true);
    assert!(scan.text_file.is_none());
    same(&scan, &fresh(d.path()));
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "scratch files left behind: {left:?}");
}

#[test]
fn a_rewritten_file_or_a_damaged_cache_is_never_used() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join(store::SAMPLES);
    let text: String = (0..20).map(|i| line(i, "equivalent")).collect();
    std::fs::write(&f, &text).unwrap();
    load_or_build(d.path(), true);
    // Same length, other bytes (an edit in place): the tail hash differs.
    std::fs::write(&f, text.replace("equivalent", "copied!!!!")).unwrap();
    assert!(load(d.path(), true).is_none());
    let rebuilt = load_or_build(d.path(), true);
    same(&rebuilt, &fresh(d.path()));
    // A rename over the file (rescore --in-place) is another inode.
    let tmp = d.path().join("new");
    std::fs::write(&tmp, &text).unwrap();
    std::fs::rename(&tmp, &f).unwrap();
    assert!(load(d.path(), true).is_none());
    load_or_build(d.path(), true);
    // Every truncation and a flipped byte in the header or rows are noticed; a
    // flipped text byte changes at most that text (texts are checked when read).
    let good = std::fs::read(path(d.path())).unwrap();
    let reference = load(d.path(), true).unwrap();
    let section = reference.text_file.as_ref().unwrap().section_len() as usize;
    // The texts follow the header.
    let in_texts = |at: usize| (HEAD..HEAD + section).contains(&at);
    for cut in (0..good.len()).step_by(7) {
        std::fs::write(path(d.path()), &good[..cut]).unwrap();
        assert!(load(d.path(), true).is_none(), "cut at {cut}");
    }
    for at in (0..good.len()).step_by(5) {
        let mut bad = good.clone();
        bad[at] ^= 0x41;
        std::fs::write(path(d.path()), &bad).unwrap();
        match load(d.path(), true) {
            None => assert!(!in_texts(at), "a text flip at {at} lost the rows"),
            Some(s) => {
                assert!(in_texts(at), "flip at {at} went unnoticed");
                assert_eq!(s.rows.len(), reference.rows.len());
                let _ = texts(&s);
            }
        }
    }
}

/// Rows parsed a batch at a time on every core are the rows of reading the file line by
/// line: the same rows, texts, warnings and line numbers whether the file is read at once
/// or followed as it grows in random pieces (lines torn mid-write, blank and bad lines).
#[test]
fn batched_parsing_equals_following_the_file_piece_by_piece() {
    use std::io::Write;
    let mut body = String::new();
    for i in 0..3000 {
        match i % 97 {
            13 => body.push('\n'),
            41 => body.push_str("{not json\n"),
            _ => body.push_str(&line(
                i,
                if i % 3 == 0 {
                    "not-equivalent"
                } else {
                    "equivalent"
                },
            )),
        }
    }
    let d = tempfile::tempdir().unwrap();
    let samples = d.path().join(store::SAMPLES);
    std::fs::write(&samples, &body).unwrap();
    let whole = fresh(d.path());
    assert_eq!(whole.lines, 3000);
    assert_eq!(whole.warnings.len(), 31, "{:?}", whole.warnings.first());
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..4 {
        // The same path, so warnings name the same file.
        let path = samples.clone();
        let mut f = std::fs::File::create(&path).unwrap();
        let mut grown = Scan::default();
        let mut at = 0;
        while at < body.len() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let step = (seed % 300_000) as usize + 1;
            let end = (at + step).min(body.len());
            f.write_all(&body.as_bytes()[at..end]).unwrap();
            f.flush().unwrap();
            grown.extend_from(&path, true);
            at = end;
        }
        same(&whole, &grown);
    }
}
