//! Reasoning in the viewer, through its keys: the new-run form's reasoning fields
//! against a server that enforces OpenAI's rules for reasoning models, the Raw tab's
//! folded reasoning, the Overview's reasoning line, the "truncated" filter and the
//! search toggle that includes reasoning.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use crate::screens::keys;
use autoeval::tui::app::App;
use common::providers::{self, Style, bodies};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    screens::screen(app, &t, w, h)
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.press(&c.to_string()).unwrap();
    }
}

/// The form filled in for six PL samples of `model` against `base`, output in `out`.
fn fill_form(app: &mut App, base: &str, out: &Path, model: &str, extra: &[(&str, &str)]) {
    app.press("R").unwrap();
    let form = app.form_mut().unwrap();
    for (k, v) in [
        ("dataset", "pl"),
        ("seed", "3"),
        ("per_category", "1"),
        ("model", model),
        ("base_url", &format!("{base}/v1")),
        ("api_key_env", ""),
        ("limit", "6"),
        ("retry_errors", "n"),
        ("endpoint_concurrency", ""),
        ("batch_api", "n"),
        ("cache", "n"),
        ("max_cost", ""),
        ("out", &out.display().to_string()),
    ] {
        form.set(k, v);
    }
    for (k, v) in extra {
        form.set(k, v);
    }
    form.refresh();
}

#[test]
fn the_form_runs_o3_with_an_effort_and_refuses_a_temperature_it_cannot_send() {
    let server = providers::openai_server(Style::Field, providers::openai_reasoning_rules);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o3-form");
    let mut app = screens::view(vec![tmp.path().to_path_buf()]);
    // The form's temperature and max tokens start empty: the profile decides.
    app.press("R").unwrap();
    {
        let form = app.form().unwrap();
        assert_eq!(form.get("temperature"), "");
        assert_eq!(form.get("max_tokens"), "");
    }
    app.press("esc").unwrap();
    // A temperature o3 cannot take is refused on start, naming the model and the rule,
    // before any request.
    fill_form(
        &mut app,
        &server.base,
        &out,
        "openai:o3",
        &[("temperature", "0.1")],
    );
    app.press("enter").unwrap();
    let err = app.form().map(|f| f.error.clone()).unwrap_or_default();
    assert!(
        app.jobs.live.is_none() && err.contains("o3") && err.contains("temperature"),
        "{err}"
    );
    assert_eq!(server.hits.load(std::sync::atomic::Ordering::SeqCst), 0);
    // Editing the field clears the complaint; the reasoning fields go on the command.
    let form = app.form_mut().unwrap();
    form.set("temperature", "");
    form.set("reasoning_effort", "low");
    form.set("extra_body", r#"{"service_tier": "flex"}"#);
    form.refresh();
    // `home` jumps to the first field (the dataset): a typed and deleted `l` is an edit.
    keys(&mut app, &["home", "l"]);
    assert_eq!(app.form().unwrap().error, "");
    keys(&mut app, &["backspace"]);
    assert_eq!(app.form().unwrap().get("dataset"), "pl");
    let cmd = app.form().unwrap().command.clone();
    assert!(
        cmd.contains("--reasoning-effort low")
            && cmd.contains("--extra-body")
            && !cmd.contains("--temperature")
            && !cmd.contains("--max-tokens"),
        "{cmd}"
    );
    // At 80×24 the cost and the command stay on screen wherever the cursor is.
    let s = screen(&mut app, 80, 24);
    assert!(
        s.contains("cost      up to 6 samples") && s.contains("--out"),
        "{s}"
    );
    screens::run_form_to_end(&mut app);
    for b in bodies(&server) {
        assert_eq!(b["reasoning_effort"], "low", "{b}");
        assert_eq!(b["service_tier"], "flex", "{b}");
        assert!(b.get("temperature").is_none() && b.get("max_tokens").is_none());
    }
    let m: Value = common::manifest(&out);
    assert_eq!(m["request"]["effort"], "low", "{m}");
    assert!(m["temperature"].is_null());
    let recs = common::samples(&out);
    assert_eq!(recs.len(), 6);
    for r in &recs {
        assert_eq!(r["verdict"]["verdict"], "equivalent", "{r}");
        let call = &r["rounds"][0]["informalize"];
        assert!(call["reasoning"].as_str().unwrap().contains("restating it"));
        assert!(
            !r["rounds"][0]["psi"]
                .as_str()
                .unwrap()
                .contains("restating")
        );
    }
}

#[test]
fn the_raw_tab_folds_reasoning_and_the_overview_counts_it() {
    let server = providers::openai_server(Style::Field, providers::no_rules);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("qwen3");
    let o = common::cli::bin()
        .args(["run", "--kind", "pl", "--per-category", "1", "--seed", "3"])
        .args(["--limit", "2", "--quiet", "--model", "openai:qwen3-8b"])
        .args(["--base-url", &format!("{}/v1", server.base)])
        .arg("--out")
        .arg(&out)
        .env("AUTOEVAL_CACHE_DIR", tmp.path().join("cache"))
        .output()
        .unwrap();
    common::cli::ok(&o);
    let mut app = screens::view(vec![out.clone()]);
    let s = screen(&mut app, 120, 40);
    // Two calls of 600 reasoning tokens each.
    assert!(s.contains("reasoning 1,200 tokens"), "{s}");
    keys(&mut app, &["]", "]", "]"]);
    let folded = screen(&mut app, 120, 40);
    assert!(
        folded.contains("▸ reasoning · ") && folded.contains("600 tokens · z unfolds"),
        "{folded}"
    );
    assert!(!folded.contains("restating it"), "{folded}");
    let wide = screen(&mut app, 160, 48);
    assert!(wide.contains("700 out tok (600 reasoning)"), "{wide}");
    keys(&mut app, &["z"]);
    let open = screen(&mut app, 120, 40);
    assert!(
        open.contains("▾ reasoning · ") && open.contains("│ The formula is"),
        "{open}"
    );
    keys(&mut app, &["z"]);
    assert!(!screen(&mut app, 120, 40).contains("│ The formula is"));
}

#[test]
fn the_shipped_reasoning_run_in_the_raw_tab_folded_and_open() {
    let tmp = tempfile::tempdir().unwrap();
    let mut app = screens::view(vec![copy_of_shipped(tmp.path())]);
    // The detail pane focused, the Raw tab, scrolled to its end: the last call's fold.
    keys(&mut app, &["tab", "]", "]", "]", "G"]);
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&mut app, w, h);
        assert!(s.contains("▸ reasoning · 331 chars · 72 tokens"), "{s}");
        insta::assert_snapshot!(format!("raw_reasoning_folded_{w}x{h}"), s);
    }
    keys(&mut app, &["z", "G"]);
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&mut app, w, h);
        assert!(
            s.contains("▾ reasoning") || s.contains("│ No: the draft"),
            "{s}"
        );
        insta::assert_snapshot!(format!("raw_reasoning_open_{w}x{h}"), s);
    }
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    insta::assert_snapshot!(
        "raw_reasoning_open_120x40_styled",
        screens::styled(&mut app, &t, 120, 40)
    );
}

fn shipped_reasoning_run() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs/pl-perturb-reasoning")
}

/// The shipped run copied, so its row index is built in a scratch folder.
fn copy_of_shipped(tmp: &Path) -> PathBuf {
    let to = tmp.join("pl-perturb-reasoning");
    std::fs::create_dir_all(&to).unwrap();
    for f in ["run.json", "samples.jsonl"] {
        std::fs::copy(shipped_reasoning_run().join(f), to.join(f)).unwrap();
    }
    to
}

#[test]
fn the_truncated_filter_keeps_exactly_the_truncated_samples() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = copy_of_shipped(tmp.path());
    let want: usize = common::samples(&dir)
        .iter()
        .filter(|s| {
            s["rounds"].as_array().unwrap().iter().any(|r| {
                r["informalize"]["truncated"] == true || r["autoformalize"]["truncated"] == true
            })
        })
        .count();
    assert!(want > 0);
    let mut app = screens::view(vec![dir]);
    // `f`, then up from the first field wraps to the last ones: the three task fields
    // (gold, answer, correct), then truncated.
    keys(&mut app, &["f", "k", "k", "k", "k"]);
    let s = screen(&mut app, 120, 40);
    assert!(s.contains("truncated ◂ any ▸"), "{s}");
    keys(&mut app, &["l"]);
    assert_eq!(app.model.listing.visible.len(), want);
    assert!(app.filter_summary().contains("· truncated"));
    insta::assert_snapshot!("filter_truncated_120x40", screen(&mut app, 120, 40));
    keys(&mut app, &["esc"]);
    // The Overview of a truncated sample says so.
    let s = screen(&mut app, 120, 40);
    assert!(s.contains("truncated"), "{s}");
    assert!(s.contains("stopped at max tokens"), "{s}");
    // The editor opens on the field it was left at.
    keys(&mut app, &["f", "l"]);
    let total = app.model.derived.total;
    assert_eq!(
        app.model.listing.visible.len(),
        total - want,
        "not truncated"
    );
}

#[test]
fn search_includes_reasoning_only_when_toggled() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = copy_of_shipped(tmp.path());
    let mut app = screens::view(vec![dir]);
    keys(&mut app, &["/"]);
    // "rejected" is only ever in the offline model's reasoning.
    type_text(&mut app, "rejected");
    app.pump_until(Duration::from_secs(5), |a| {
        a.model.listing.search.pending.is_none()
    });
    assert_eq!(app.model.listing.visible.len(), 0);
    keys(&mut app, &["ctrl-t"]);
    app.pump_until(Duration::from_secs(5), |a| {
        a.model.listing.search.pending.is_none()
    });
    let n = app.model.listing.visible.len();
    assert!(n > 0, "reasoning searched");
    assert!(app.filter_summary().contains("/rejected +reasoning"));
    let s = screen(&mut app, 120, 40);
    assert!(s.contains("reasoning"), "{s}");
    keys(&mut app, &["ctrl-t"]);
    app.pump_until(Duration::from_secs(5), |a| {
        a.model.listing.search.pending.is_none()
    });
    assert_eq!(app.model.listing.visible.len(), 0);
}

#[test]
fn searched_reasoning_is_bounded_per_sample() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = copy_of_shipped(tmp.path());
    // One sample's reasoning: a word early, 100 KiB of filler, another word late.
    let path = dir.join("samples.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut first: Value = serde_json::from_str(&lines[0]).unwrap();
    first["rounds"][0]["informalize"]["reasoning"] = Value::String(format!(
        "quokka early. {} wombat late.",
        "filler ".repeat(100 * 1024 / 7)
    ));
    lines[0] = first.to_string();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let mut app = screens::view(vec![dir]);
    let mut count = |q: &str| {
        keys(&mut app, &["x", "/"]);
        if !app.model.listing.search.reasoning {
            keys(&mut app, &["ctrl-t"]);
        }
        type_text(&mut app, q);
        app.pump_until(Duration::from_secs(5), |a| {
            a.model.listing.search.pending.is_none()
        });
        let n = app.model.listing.visible.len();
        keys(&mut app, &["esc"]);
        n
    };
    assert_eq!(count("quokka"), 1);
    assert_eq!(count("wombat"), 0, "past the first 16 KiB");
}

#[test]
fn the_forms_reasoning_tags_field_splits_a_servers_own_tag_off() {
    use common::{FakeModel, Reply, Server, openai_body, prompt_of};
    let model = FakeModel::new();
    let server = Server::start(move |_, r| {
        let a = model.answer(&prompt_of(r));
        Reply::json(
            200,
            openai_body(&format!("<mind>Draft: p & ~p</mind>\n{a}")),
        )
    });
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("mind-form");
    let mut app = screens::view(vec![tmp.path().to_path_buf()]);
    fill_form(&mut app, &server.base, &out, "openai:my-model", &[]);
    // To the field by keys, then typed: two names, apart by a comma.
    let at = autoeval::tui::live::FIELDS
        .iter()
        .position(|(_, k)| *k == "reasoning_tags")
        .unwrap();
    keys(&mut app, &["home"]);
    for _ in 0..at {
        keys(&mut app, &["down"]);
    }
    assert_eq!(app.form().unwrap().sel, at);
    type_text(&mut app, "mind,scratch");
    assert_eq!(app.form().unwrap().get("reasoning_tags"), "mind,scratch");
    let cmd = app.form().unwrap().command.clone();
    assert!(
        cmd.contains("--reasoning-tag mind --reasoning-tag scratch"),
        "{cmd}"
    );
    screens::run_form_to_end(&mut app);
    let recs = common::samples(&out);
    assert_eq!(recs.len(), 6);
    for r in &recs {
        assert_eq!(r["verdict"]["verdict"], "equivalent", "{r}");
        let c = &r["rounds"][0]["informalize"];
        assert!(c["reasoning"].as_str().unwrap().contains("Draft"), "{c}");
    }
    let m: Value = common::manifest(&out);
    assert_eq!(
        m["request"]["reasoning_tags"],
        serde_json::json!(["mind", "scratch"])
    );
}
