//! Where a run's index files live: beside its samples when the run folder can be
//! written, else in the cache directory under a name made from the run's content (a
//! hash of its manifest), so a read-only or shared folder still opens at once, and
//! every copy of one run finds the same cache. The files themselves say which
//! `samples.jsonl` they describe and are rebuilt when it differs.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Largest manifest hashed for the key (a manifest is a few KiB).
const MAX_MANIFEST: u64 = 4 << 20;

/// The cache-directory home of run `dir`'s index files (None: no cache directory, or
/// no readable manifest to key it by).
pub(crate) fn fallback(dir: &Path) -> Option<PathBuf> {
    let base = crate::llm::cache::default_dir()?;
    let mut f = crate::base::fsread::open(&dir.join(super::store::MANIFEST), MAX_MANIFEST).ok()?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut f, &mut bytes).ok()?;
    let digest = Sha256::digest(&bytes);
    let key: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    Some(base.join("run-index").join(key))
}

/// Whether run folder `dir` may not be writable for this process (its mode grants no
/// write, or it is someone else's and not writable by all): only then is its
/// cache-directory home looked in, so a run of one's own never reads the user's cache.
pub(crate) fn read_only(dir: &Path) -> bool {
    let Ok(m) = std::fs::metadata(dir) else {
        return false;
    };
    if m.permissions().readonly() {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // The owner of /proc/self is this process's effective user.
        let me = std::fs::metadata("/proc/self").map(|p| p.uid());
        if me.is_ok_and(|u| u != 0 && u != m.uid()) && m.mode() & 0o002 == 0 {
            return true;
        }
    }
    false
}

/// Creates `name` for writing in `dir`, else (a read-only or foreign folder) in its
/// cache-directory home; returns the folder it was made in and the file.
pub(crate) fn create(dir: &Path, name: &str) -> std::io::Result<(PathBuf, std::fs::File)> {
    // No-follow: a link planted at the scratch name is refused, never written through.
    match crate::base::fswrite::room::create(&dir.join(name)) {
        Ok(f) => Ok((dir.to_path_buf(), f)),
        Err(first) => {
            let Some(home) = fallback(dir) else {
                return Err(first);
            };
            create_private_dir(&home)?;
            let f = std::fs::File::create(home.join(name))?;
            Ok((home, f))
        }
    }
}

/// Creates `dir` and its parents, readable by the user alone (it names runs).
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}
