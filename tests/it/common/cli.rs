//! The autoeval binary for tests, always isolated: HOME, the config directory and the
//! response cache are the test's own (or nowhere), never the developer's.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The binary under test.
pub const EXE: &str = env!("CARGO_BIN_EXE_autoeval");

/// HOME of a test that gives none: under /dev/null, where nothing can be read or
/// created (not even by root), so a stray config or cache use shows as a warning.
pub const NO_HOME: &str = "/dev/null/autoeval-test-home";

/// Points `c` (the binary, or a wrapper such as `script` that starts it) at `home`:
/// HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME and AUTOEVAL_CACHE_DIR inside it, and no
/// AUTOEVAL_ANNOTATOR from the developer's shell.
pub fn isolate<'a>(c: &'a mut Command, home: &Path) -> &'a mut Command {
    c.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("AUTOEVAL_CACHE_DIR", home.join(".cache").join("autoeval"))
        .env_remove("AUTOEVAL_ANNOTATOR")
}

/// `program` (a wrapper such as `taskset` or `script` that starts the binary) with no
/// HOME, config or cache it could use.
pub fn isolated(program: &str) -> Command {
    let mut c = Command::new(program);
    isolate(&mut c, Path::new(NO_HOME));
    c
}

/// The binary with HOME, config and cache inside `home`.
pub fn bin_in(home: &Path) -> Command {
    let mut c = Command::new(EXE);
    isolate(&mut c, home);
    c
}

/// The binary with no HOME, config or cache it could use.
pub fn bin() -> Command {
    bin_in(Path::new(NO_HOME))
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output of a command that must have succeeded (else the test fails with
/// its exit code and standard error).
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\n{}",
        o.status.code(),
        stderr(o)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `autoeval labels add` of `categories` on sample `id` of run `d` as annotator `who`,
/// which must succeed.
pub fn label_add(d: &Path, id: &str, categories: &[&str], who: &str) {
    let st = bin()
        .args(["labels", "add"])
        .arg(d)
        .arg(id)
        .args(categories)
        .args(["--annotator", who])
        .status()
        .unwrap();
    assert!(st.success());
}

/// Standard output of a command that must have succeeded, parsed as JSON.
pub fn ok_json(o: &Output) -> serde_json::Value {
    let text = ok(o);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// `autoeval labels stats --json` of run `d`, which must succeed, parsed.
pub fn labels_stats(d: &Path) -> serde_json::Value {
    ok_json(
        &bin()
            .args(["labels", "stats", "--json"])
            .arg(d)
            .output()
            .unwrap(),
    )
}

/// Standard error of a command that must have been refused as a usage error (exit 2)
/// saying `needle`.
pub fn refused(o: &Output, needle: &str) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(needle), "{err}");
    err
}

/// Standard error of a command that must have succeeded.
pub fn ok_stderr(o: &Output) -> String {
    ok(o);
    stderr(o)
}

/// `autoeval run` of a small offline PL run (`--per-category 1`, the first `limit`
/// samples, the synthetic model); `--out` comes last, for the caller to add.
pub fn offline_args(limit: &str) -> Vec<String> {
    [
        "run",
        "--kind",
        "pl",
        "--per-category",
        "1",
        "--limit",
        limit,
        "--model",
        "perturb",
        "--quiet",
        "--out",
    ]
    .map(String::from)
    .to_vec()
}

/// A small offline run (see [`offline_args`]) into `out`, which must succeed.
pub fn offline_run(out: &Path, limit: &str) {
    ok(&bin().args(offline_args(limit)).arg(out).output().unwrap());
}

/// Runs `c` with `input` on its standard input, written from another thread so that a
/// command answering as it reads never blocks on a full pipe. A command that stops
/// reading early (refusing its flags) closes the pipe: that is its answer, not an error.
pub fn fed(c: &mut Command, input: &str) -> Output {
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    if let Err(e) = writer.join().unwrap() {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    out
}

/// `autoeval run` of an offline PL run (`--per-category n`, the synthetic model) up to
/// `--out`, for the caller to add the directory.
pub fn perturb_args(per_category: &str) -> [&str; 9] {
    [
        "run",
        "--kind",
        "pl",
        "--per-category",
        per_category,
        "--model",
        "perturb",
        "--quiet",
        "--out",
    ]
}

/// An offline PL run of `per_category` samples a category into `out` (see
/// [`perturb_args`]) with `extra` flags, which must succeed.
pub fn perturb_run(out: &Path, per_category: &str, extra: &[&str]) {
    ok(&bin()
        .args(perturb_args(per_category))
        .arg(out)
        .args(extra)
        .output()
        .unwrap());
}

/// `autoeval run` of the synthetic model over the dataset file `dataset` into `out`,
/// then `extra` flags.
pub fn perturb_dataset(dataset: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = bin();
    c.args(["run", "--model", "perturb", "--quiet", "--dataset"])
        .arg(dataset)
        .arg("--out")
        .arg(out)
        .args(extra);
    c
}

/// `autoeval generate` of `per_category` formulas a category of `kind` into `out`,
/// which must succeed.
pub fn generate(kind: &str, per_category: &str, out: &Path) {
    ok(&bin()
        .args(["generate", "--kind", kind, "--per-category", per_category])
        .args(["--quiet", "--out"])
        .arg(out)
        .output()
        .unwrap());
}

/// Runs `c` (its standard input closed) for at most `secs` seconds: a command still
/// running then (blocked on a FIFO) is killed and fails the test instead of hanging
/// the suite.
pub fn within(c: &mut Command, secs: u64, what: &str) -> Output {
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > Duration::from_secs(secs) {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("{what}: still running after {secs} s (blocked on a FIFO?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Makes a FIFO at `p`.
pub fn mkfifo(p: &Path) {
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

/// An offline run of `kind` (`size`: per category, limit) by the synthetic model at
/// perturbation rate `rate` and `seed`, HOME in `home`, which must succeed.
pub fn perturbed_run(
    home: &Path,
    out: &Path,
    kind: &str,
    size: (&str, &str),
    rate: &str,
    seed: &str,
) {
    ok(&bin_in(home)
        .args(["run", "--kind", kind, "--per-category", size.0])
        .args(["--limit", size.1])
        .args(["--model", "perturb", "--perturb-rate", rate, "--seed", seed])
        .args(["--quiet", "--out"])
        .arg(out)
        .output()
        .unwrap());
}

/// Standard output of a command that must have exited 0, checked against `expected`
/// line by line (`what` names a line in the message).
pub fn same_lines(o: Output, expected: &str, what: &str) -> String {
    assert_eq!(o.status.code(), Some(0));
    let got = String::from_utf8(o.stdout).unwrap();
    assert_eq!(got.lines().count(), expected.lines().count());
    for (i, (g, e)) in got.lines().zip(expected.lines()).enumerate() {
        assert_eq!(g, e, "{what} {} differs", i + 1);
    }
    got
}
