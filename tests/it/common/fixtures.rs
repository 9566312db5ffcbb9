//! The shipped fixture runs (`tests/fixtures/runs`) and copies of them that a test may
//! change.

use std::path::{Path, PathBuf};

/// The folder of shipped fixture runs.
pub fn runs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs")
}

/// The shipped fixture run `name` (`pl-small`, `fol-small`).
pub fn run(name: &str) -> PathBuf {
    runs().join(name)
}

/// Copies fixture run `name` (its `run.json` and `samples.jsonl`) into the folder `to`,
/// made if missing.
pub fn copy_to(name: &str, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let src = run(name);
    for f in ["run.json", "samples.jsonl"] {
        std::fs::copy(src.join(f), to.join(f)).unwrap();
    }
}

/// A copy of fixture run `name` at `home/name`.
pub fn copy(home: &Path, name: &str) -> PathBuf {
    let d = home.join(name);
    copy_to(name, &d);
    d
}
