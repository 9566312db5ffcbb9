//! Label edits as one state machine: unticking the last category never records
//! "nothing wrong" (its note is kept as a draft and in the retraction), `0` asks before
//! replacing ticked categories, and random key sequences — blind and not — keep
//! labels.jsonl's fold, `labels stats`, `labels export` and the list's ✎ in step with a
//! small reference model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use crate::screens::{keys, type_text as typed};
use autoeval::run::store::read_labels;
use autoeval::tui::app::App;
use autoeval::tui::theme::Theme;
use common::cli::{bin, labels_stats};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn app(d: &Path, blind: bool) -> (App, Theme) {
    let opts = screens::options(vec![d.to_path_buf()]);
    let (mut app, theme) = if blind {
        autoeval::tui::build_app_blind(&opts)
    } else {
        autoeval::tui::build_app(&opts)
    };
    app.model.annotator = "ann".into();
    app.model.refilter();
    app.pump();
    (app, theme)
}

/// Selects the first failing (not-equivalent) sample.
fn failing(app: &mut App) -> String {
    let m = &app.model;
    let k = m
        .listing
        .visible
        .iter()
        .position(|&(r, i)| {
            m.runs[r as usize].rows[i as usize].verdict
                == autoeval::verify::VerdictKind::NotEquivalent
        })
        .unwrap();
    app.model.listing.sample_list.sel = k;
    app.pump();
    app.model.id_of(app.model.selected().unwrap()).to_string()
}

/// `labels export --format jsonl`: (id, annotator) → categories.
fn export(d: &Path) -> BTreeMap<String, Vec<String>> {
    let out = bin()
        .args(["labels", "export", "--format", "jsonl"])
        .arg(d)
        .output()
        .unwrap();
    common::cli::ok(&out);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let cats = match &v["categories"] {
                serde_json::Value::Array(a) => {
                    a.iter().map(|c| c.as_str().unwrap().to_string()).collect()
                }
                serde_json::Value::String(s) => s
                    .split(['|', ';', ','])
                    .filter(|c| !c.is_empty())
                    .map(str::to_string)
                    .collect(),
                other => panic!("categories: {other}"),
            };
            (v["id"].as_str().unwrap().to_string(), cats)
        })
        .collect()
}

#[test]
fn unticking_the_last_category_with_a_note_retracts_and_keeps_the_note() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let (mut app, _) = app(&d, false);
    let id = failing(&mut app);
    keys(&mut app, &["a", "9", "m"]);
    typed(&mut app, "unsure which side");
    keys(&mut app, &["enter", "9"]);
    let recs = read_labels(&d).unwrap().records;
    assert!(
        recs.iter().all(|r| r.retract || !r.categories.is_empty()),
        "no empty-category label: {recs:?}"
    );
    let last = recs.last().unwrap();
    assert!(
        last.retract,
        "unticking the last category retracts: {last:?}"
    );
    assert_eq!(
        last.note, "unsure which side",
        "the retraction keeps the note"
    );
    assert_eq!(last.id, id);
    assert_eq!(labels_stats(&d)["labelled"], 0, "nothing counts");
    assert!(export(&d).is_empty(), "nothing exported");
    assert!(app.model.my_state().in_force().is_none());
    // The note stays in the form as a draft: the next category takes it.
    keys(&mut app, &["m"]);
    assert_eq!(app.model.labelling.note.text, "unsure which side");
    keys(&mut app, &["esc", "1"]);
    assert_eq!(
        app.model.my_labels(),
        (
            vec!["term-omitted".to_string()],
            "unsure which side".to_string()
        )
    );
}

#[test]
fn nothing_wrong_asks_before_replacing_ticked_categories() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let (mut app, _) = app(&d, false);
    failing(&mut app);
    keys(&mut app, &["a", "9", "0"]);
    let n = read_labels(&d).unwrap().records.len();
    assert_eq!(n, 1, "the first 0 only asks");
    assert_eq!(app.model.my_labels().0.len(), 1);
    assert!(app.status.contains("again replaces"), "{}", app.status);
    // Any other key keeps the categories; 0 asks again.
    keys(&mut app, &["k", "j", "0"]);
    assert_eq!(read_labels(&d).unwrap().records.len(), 1);
    keys(&mut app, &["0"]);
    assert_eq!(read_labels(&d).unwrap().records.len(), 2);
    assert!(app.model.my_labels().0.is_empty());
    assert!(app.status.contains("nothing wrong"), "{}", app.status);
}

/// A key of the property test.
#[derive(Clone, Debug)]
enum Op {
    /// A category key (the first three categories).
    Tick(usize),
    /// `m`, the text, Enter.
    Note(String),
    /// `0`.
    Zero,
    /// `u`.
    Undo,
    /// `labels retract` from the command line (the viewer reads it back).
    Retract,
    /// `n` (next unlabelled) or `j`/`k`.
    Move(&'static str),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0usize..3).prop_map(Op::Tick),
        2 => prop_oneof![Just(String::new()), "[a-z]{1,6}".prop_map(String::from)]
            .prop_map(Op::Note),
        2 => Just(Op::Zero),
        2 => Just(Op::Undo),
        1 => Just(Op::Retract),
        2 => prop_oneof![Just("n"), Just("j"), Just("k")].prop_map(Op::Move),
    ]
}

/// The reference: what one annotator's label on one sample is.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
enum Ref {
    #[default]
    Never,
    Cats(Vec<String>, String),
    Fine(String),
    Gone(String),
}

impl Ref {
    fn in_force(&self) -> Option<(&[String], &str)> {
        match self {
            Ref::Cats(c, n) => Some((c, n)),
            Ref::Fine(n) => Some((&[], n)),
            Ref::Never | Ref::Gone(_) => None,
        }
    }
}

#[derive(Default, Debug)]
struct Model {
    label: BTreeMap<String, Ref>,
    draft: BTreeMap<String, String>,
    undo: Vec<(String, Ref)>,
    asked: Option<String>,
}

impl Model {
    fn get(&self, id: &str) -> Ref {
        self.label.get(id).cloned().unwrap_or_default()
    }

    /// Sets `id`'s label (a written record), remembering the old one for undo.
    fn write(&mut self, id: &str, to: Ref, remember: bool) {
        let old = self.get(id);
        if let Ref::Gone(n) = &to {
            if n.is_empty() {
                self.draft.remove(id);
            } else {
                self.draft.insert(id.into(), n.clone());
            }
        } else {
            self.draft.remove(id);
        }
        if remember {
            self.undo.push((id.into(), old));
        }
        self.label.insert(id.into(), to);
    }

    fn note_of(&self, id: &str) -> String {
        match self.get(id).in_force() {
            Some((_, n)) => n.to_string(),
            None => self.draft.get(id).cloned().unwrap_or_default(),
        }
    }
}

fn check(app: &mut App, theme: &Theme, d: &Path, m: &Model, ids: &[String], step: &str) {
    // labels.jsonl folded by the library, the CLI's stats and export, the viewer.
    let recs = read_labels(d).unwrap().records;
    let latest = autoeval::report::labels::latest(&recs);
    let want: BTreeMap<String, (Vec<String>, String)> = m
        .label
        .iter()
        .filter_map(|(id, r)| {
            r.in_force()
                .map(|(c, n)| (id.clone(), (c.to_vec(), n.to_string())))
        })
        .collect();
    let got: BTreeMap<String, (Vec<String>, String)> = latest
        .iter()
        .map(|((id, _), r)| (id.clone(), (r.categories.clone(), r.note.clone())))
        .collect();
    assert_eq!(got, want, "fold after {step}");
    let st = labels_stats(d);
    assert_eq!(st["labelled"], want.len(), "labels stats after {step}");
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (c, _) in want.values() {
        for x in c {
            *counts.entry(x.clone()).or_default() += 1;
        }
    }
    let got_counts: BTreeMap<String, usize> = st["counts"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let n: u64 = v
                .as_object()
                .unwrap()
                .values()
                .map(|x| x.as_u64().unwrap())
                .sum();
            (k.clone(), n as usize)
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    assert_eq!(got_counts, counts, "labels stats counts after {step}");
    let ex = export(d);
    let want_ex: BTreeMap<String, Vec<String>> = want
        .iter()
        .map(|(k, (c, _))| (k.clone(), c.clone()))
        .collect();
    assert_eq!(ex, want_ex, "labels export after {step}");
    // The list's ✎ marks exactly the labelled samples.
    let marks = list_marks(app, theme);
    for id in ids {
        if let Some(&mark) = marks.get(id.as_str()) {
            assert_eq!(mark, want.contains_key(id), "✎ of {id} after {step}");
        }
    }
    assert!(!marks.is_empty(), "the list was read");
}

/// The sample list's ✎ column, per sample id on screen.
fn list_marks(app: &mut App, theme: &Theme) -> BTreeMap<String, bool> {
    let s = screens::screen(app, theme, 160, 70);
    let ids: BTreeSet<String> = app
        .model
        .listing
        .visible
        .iter()
        .map(|&at| app.model.id_of(at).to_string())
        .collect();
    let mut out = BTreeMap::new();
    for line in s.lines() {
        for (p, bar) in line.match_indices(['│', '┃']) {
            let cells: Vec<char> = line[p + bar.len()..].chars().collect();
            if cells.len() < 30 {
                continue;
            }
            let id: String = cells[..8].iter().collect();
            let verdict: String = cells[14..28].iter().collect();
            let known = [
                "equivalent",
                "not-equivalent",
                "· blind",
                "unparseable",
                "copied",
                "unknown",
                "model-error",
            ];
            if ids.contains(id.trim()) && known.contains(&verdict.trim()) {
                out.insert(id.trim().to_string(), cells[29] == '✎');
            }
        }
    }
    out
}

fn drive(ops: &[Op], blind: bool) {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let (mut app, theme) = app(&d, blind);
    let ids: Vec<String> = app
        .model
        .listing
        .visible
        .iter()
        .map(|&at| app.model.id_of(at).to_string())
        .collect();
    let cats: Vec<(String, String)> = app.model.taxonomy.categories[..3]
        .iter()
        .map(|c| (c.key.clone(), c.id.clone()))
        .collect();
    keys(&mut app, &["a"]);
    let mut m = Model::default();
    for (k, op) in ops.iter().enumerate() {
        let id = app.model.id_of(app.model.selected().unwrap()).to_string();
        let asked = m.asked.take();
        match op {
            Op::Tick(c) => {
                let (key, cat) = &cats[*c];
                let cur = m.get(&id);
                let note = m.note_of(&id);
                let mut list = cur.in_force().map(|(c, _)| c.to_vec()).unwrap_or_default();
                if let Some(p) = list.iter().position(|x| x == cat) {
                    list.remove(p);
                    if list.is_empty() {
                        m.write(&id, Ref::Gone(note), true);
                    } else {
                        m.write(&id, Ref::Cats(list, note), true);
                    }
                } else {
                    list.push(cat.clone());
                    m.write(&id, Ref::Cats(list, note), true);
                }
                keys(&mut app, &[key]);
            }
            Op::Note(text) => {
                match m.get(&id) {
                    Ref::Cats(c, _) => m.write(&id, Ref::Cats(c, text.clone()), true),
                    Ref::Fine(_) => m.write(&id, Ref::Fine(text.clone()), true),
                    Ref::Never | Ref::Gone(_) => {
                        if text.is_empty() {
                            m.draft.remove(&id);
                        } else {
                            m.draft.insert(id.clone(), text.clone());
                        }
                    }
                }
                keys(&mut app, &["m"]);
                // The field opens with the note or draft: clear it first.
                let len = app.model.labelling.note.text.chars().count();
                for _ in 0..len {
                    keys(&mut app, &["backspace"]);
                }
                typed(&mut app, text);
                keys(&mut app, &["enter"]);
            }
            Op::Zero => {
                match m.get(&id) {
                    Ref::Cats(..) if asked.as_deref() == Some(id.as_str()) => {
                        let n = m.note_of(&id);
                        m.write(&id, Ref::Fine(n), true);
                    }
                    Ref::Cats(..) => m.asked = Some(id.clone()),
                    Ref::Fine(_) => {}
                    Ref::Never | Ref::Gone(_) => {
                        let n = m.note_of(&id);
                        m.write(&id, Ref::Fine(n), true);
                    }
                }
                keys(&mut app, &["0"]);
            }
            Op::Undo => {
                if let Some((uid, old)) = m.undo.pop() {
                    let cur = m.get(&uid);
                    let same = old == cur || (old.in_force().is_none() && cur.in_force().is_none());
                    if !same {
                        let to = match old {
                            Ref::Never => Ref::Gone(String::new()),
                            o => o,
                        };
                        m.write(&uid, to, false);
                    }
                }
                keys(&mut app, &["u"]);
            }
            Op::Retract => {
                let out = bin()
                    .args(["labels", "retract", "--annotator", "ann"])
                    .arg(&d)
                    .arg(&id)
                    .output()
                    .unwrap();
                let had = m.get(&id).in_force().is_some();
                assert_eq!(out.status.success(), had, "labels retract on {id}");
                if had {
                    // A retraction from outside: nothing to undo in the viewer, no draft.
                    m.label.insert(id.clone(), Ref::Gone(String::new()));
                }
                app.model.follow(&|_| false);
                app.pump();
            }
            Op::Move(k) => keys(&mut app, &[k]),
        }
        app.pump();
        check(
            &mut app,
            &theme,
            &d,
            &m,
            &ids,
            &format!("step {k} {op:?} on {id}"),
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn random_label_keys_agree_with_the_reference(ops in prop::collection::vec(op(), 1..14), blind in any::<bool>()) {
        drive(&ops, blind);
    }
}
