//! Runs started from the viewer: a form, a background pipeline, live statistics,
//! pause, resume and cancel. The run writes the same directory `autoeval run` does,
//! and the viewer shows its samples by following that directory.

use crate::dataset::{self, Dataset};
use crate::grammar::{DatasetKind, GenParams};
use crate::llm::client::Limits;
use crate::llm::spec::{ModelOptions, build};
use crate::prompt::PromptSet;
use crate::run::driver::{Event, Outcome, RunSpec, dataset_info, execute};
use crate::run::pipeline::Pipeline;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Form fields, in order: (label, config key).
pub const FIELDS: [(&str, &str); 12] = [
    ("dataset (kind or file)", "dataset"),
    ("seed (kind)", "seed"),
    ("per category (kind)", "per_category"),
    ("model", "model"),
    ("base URL", "base_url"),
    ("API key variable", "api_key_env"),
    ("shots (0 or 2)", "shots"),
    ("prompt directory", "prompts"),
    ("rounds", "rounds"),
    ("concurrency", "concurrency"),
    ("limit (samples)", "limit"),
    ("output directory", "out"),
];

/// The new-run form.
#[derive(Clone, Debug)]
pub struct Form {
    /// Values in `FIELDS` order.
    pub values: Vec<String>,
    /// Field under the cursor.
    pub sel: usize,
    /// Problem with the last start attempt.
    pub error: String,
}

fn last_path() -> Option<PathBuf> {
    super::theme::config_dir().map(|d| d.join("last-run.toml"))
}

impl Form {
    /// A form with the values used last time (or sensible defaults).
    pub fn remembered() -> Form {
        // Defaults by key, so adding a field cannot misalign them.
        let mut values: Vec<String> = FIELDS
            .iter()
            .map(|(_, key)| {
                match *key {
                    "dataset" => "pl",
                    "seed" => "0",
                    "per_category" => "50",
                    "model" => "perturb",
                    "shots" => "0",
                    "rounds" => "1",
                    "concurrency" => "8",
                    "out" => "runs/live",
                    _ => "",
                }
                .to_string()
            })
            .collect();
        if let Some(t) = last_path()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| t.parse::<toml::Table>().ok())
        {
            for (i, (_, key)) in FIELDS.iter().enumerate() {
                if let Some(v) = t.get(*key).and_then(|v| v.as_str()) {
                    values[i] = v.to_string();
                }
            }
        }
        Form {
            values,
            sel: 0,
            error: String::new(),
        }
    }

    fn remember(&self) {
        let Some(p) = last_path() else { return };
        let mut t = toml::Table::new();
        for (i, (_, key)) in FIELDS.iter().enumerate() {
            t.insert(key.to_string(), toml::Value::String(self.values[i].clone()));
        }
        if let Some(dir) = p.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = std::fs::write(p, t.to_string());
    }

    fn get(&self, key: &str) -> &str {
        FIELDS
            .iter()
            .position(|(_, k)| *k == key)
            .map(|i| self.values[i].trim())
            .unwrap_or("")
    }

    fn number(&self, key: &str, default: usize) -> Result<usize, String> {
        let v = self.get(key);
        if v.is_empty() {
            return Ok(default);
        }
        v.parse()
            .map_err(|_| format!("{key}: '{v}' is not a whole number"))
    }
}

/// A run in progress.
pub struct Live {
    /// Its directory.
    pub dir: PathBuf,
    /// Samples this invocation will do.
    pub todo: usize,
    /// Finished so far.
    pub done: usize,
    /// Of those, equivalent.
    pub pass: usize,
    /// Model errors so far.
    pub errors: usize,
    /// Tokens so far.
    pub tokens: u64,
    /// Cost so far (None once an unpriced call is seen).
    pub cost: Option<f64>,
    /// Model calls so far.
    pub calls: u64,
    /// Paused.
    pub paused: bool,
    /// Set when the run ended ("finished", "cancelled", or an error).
    pub ended: Option<String>,
    started: Instant,
    rx: std::sync::mpsc::Receiver<Result<Event, String>>,
    pause_tx: tokio::sync::watch::Sender<bool>,
    cancel_tx: tokio::sync::watch::Sender<bool>,
}

impl Live {
    /// Starts a run from the form; the pipeline runs on its own threads.
    pub fn start(form: &Form) -> Result<Live, String> {
        let out = PathBuf::from(form.get("out"));
        if out.as_os_str().is_empty() {
            return Err("output directory: give one".into());
        }
        let resume = out.join("run.json").exists();
        let shots = form.number("shots", 0)?;
        let prompts = match form.get("prompts") {
            "" => PromptSet::builtin(shots),
            d => PromptSet::load(std::path::Path::new(d), shots),
        }
        .map_err(|e| e.to_string())?;
        let concurrency = form.number("concurrency", 8)?.max(1);
        let limit = match form.get("limit") {
            "" => None,
            _ => Some(form.number("limit", 0)?),
        };
        let opts = ModelOptions {
            base_url: Some(form.get("base_url").to_string()).filter(|s| !s.is_empty()),
            api_key_env: Some(form.get("api_key_env").to_string()).filter(|s| !s.is_empty()),
            limits: Limits {
                max_in_flight: concurrency,
                ..Limits::default()
            },
            ..ModelOptions::default()
        };
        let client = build(form.get("model"), &opts)?;
        let ds_arg = form.get("dataset").to_string();
        let (ds, kind, path) = match DatasetKind::ALL.iter().find(|k| k.name() == ds_arg) {
            Some(k) => {
                let path = out.join("dataset.json");
                if !path.exists() {
                    // The form's seed and per-category decide the dataset (and the cost).
                    let seed = form.number("seed", 0)? as u64;
                    let per_category = form.number("per_category", 50)?.max(1);
                    let cfg = k.grammar().map_err(|e| e.to_string())?;
                    let params = GenParams {
                        vocab: k.vocab(),
                        per_category,
                        ..GenParams::default()
                    };
                    let batch = crate::grammar::generate_batch(&cfg, &params, seed, 0, &mut |_| {})
                        .map_err(|e| e.to_string())?;
                    let file = dataset::assemble(k.name(), Some(*k), &cfg, &params, seed, &[batch]);
                    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
                    dataset::write(&path, &file).map_err(|e| format!("{}: {e}", path.display()))?;
                }
                (
                    Dataset::open(&path).map_err(|e| e.to_string())?,
                    k.name().to_string(),
                    path,
                )
            }
            None => {
                let path = PathBuf::from(&ds_arg);
                let ds = Dataset::open(&path).map_err(|e| {
                    format!(
                        "dataset: {e} (give a file or one of ksat, pl, fol, fol-english, regex)"
                    )
                })?;
                let kind = ds.kind_name();
                (ds, kind, path)
            }
        };
        let rounds = form.number("rounds", 1)?.max(1);
        let pipeline = Arc::new(Pipeline {
            client: Arc::new(client),
            prompts: Arc::new(prompts),
            syntax: ds.syntax,
            rounds,
            temperature: 0.1,
            max_tokens: 1024,
            verify: crate::verify::Options::default(),
        });
        let (pause_tx, pause_rx) = tokio::sync::watch::channel(false);
        let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
        let spec = RunSpec {
            out: out.clone(),
            dataset_info: dataset_info(&ds, &kind, Some(&path)),
            dataset: ds,
            pipeline,
            concurrency,
            resume,
            command: vec![
                "autoeval view (live run)".into(),
                format!("{:?}", form.values),
            ],
            limit,
            pause: Some(pause_rx),
            force: false,
            retry_errors: false,
            max_consecutive_failures: 5,
        };
        form.remember();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = match tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = tx.send(Err(e.to_string()));
                    return;
                }
            };
            rt.block_on(async move {
                let (etx, mut erx) = tokio::sync::mpsc::unbounded_channel();
                let fwd = tx.clone();
                let forward = tokio::spawn(async move {
                    while let Some(e) = erx.recv().await {
                        if fwd.send(Ok(e)).is_err() {
                            break;
                        }
                    }
                });
                let r = execute(spec, etx, cancel_rx).await;
                let _ = forward.await;
                let _ = tx.send(match r {
                    Ok(Outcome::Finished) => Err("finished".into()),
                    Ok(Outcome::Cancelled) => Err(
                        "cancelled (resumable: start it again with the same output directory)"
                            .into(),
                    ),
                    Err(e) => Err(format!("failed: {e}")),
                });
            });
        });
        Ok(Live {
            dir: out,
            todo: 0,
            done: 0,
            pass: 0,
            errors: 0,
            tokens: 0,
            cost: Some(0.0),
            calls: 0,
            paused: false,
            ended: None,
            started: Instant::now(),
            rx,
            pause_tx,
            cancel_tx,
        })
    }

    /// Takes in what the run reported; returns whether anything changed.
    pub fn poll(&mut self) -> bool {
        let mut changed = false;
        while let Ok(msg) = self.rx.try_recv() {
            changed = true;
            match msg {
                Ok(Event::Started { todo, .. }) => self.todo = todo,
                Ok(Event::Sample(rec)) => {
                    self.done += 1;
                    self.pass += usize::from(rec.verdict.is_equivalent());
                    self.errors +=
                        usize::from(rec.verdict.kind() == crate::verify::VerdictKind::ModelError);
                    self.tokens += rec.input_tokens + rec.output_tokens;
                    self.cost = self.cost.zip(rec.cost_usd).map(|(a, b)| a + b);
                    self.calls += rec
                        .rounds
                        .iter()
                        .map(|r| 1 + u64::from(r.autoformalize.is_some()))
                        .sum::<u64>();
                }
                Ok(Event::Warning(w)) => {
                    self.errors += usize::from(w.contains("internal error"));
                }
                Err(end) => self.ended = Some(end),
            }
        }
        changed
    }

    /// Pauses or resumes.
    pub fn toggle_pause(&mut self) {
        self.paused = !self.paused;
        let _ = self.pause_tx.send(self.paused);
    }

    /// Stops the run; finished samples stay, and it can be resumed.
    pub fn cancel(&mut self) {
        let _ = self.cancel_tx.send(true);
    }

    /// The header line.
    pub fn header(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let rate = self.done as f64 / secs;
        let eta = if rate > 0.0 && self.todo > self.done {
            let s = (self.todo - self.done) as f64 / rate;
            format!("{:.0}m{:02.0}s", (s / 60.0).floor(), s % 60.0)
        } else {
            "–".into()
        };
        let state = match (&self.ended, self.paused) {
            (Some(e), _) => e.split(" (").next().unwrap_or(e).to_string(),
            (None, true) => "paused (p resumes)".into(),
            (None, false) => "live (p pause, C cancel)".into(),
        };
        format!(
            "{state} · {}/{} · pass {:.0}% · {} tok · {} · {:.1} req/s · ETA {eta} · {} errors",
            self.done,
            self.todo,
            if self.done > 0 {
                100.0 * self.pass as f64 / self.done as f64
            } else {
                0.0
            },
            self.tokens,
            self.cost
                .map(|c| format!("${c:.4}"))
                .unwrap_or_else(|| "cost n/a".into()),
            self.calls as f64 / secs,
            self.errors
        )
    }
}
