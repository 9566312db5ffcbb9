#![allow(clippy::unwrap_used)]
use super::*;

fn mkfifo(p: &Path) {
    let st = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .unwrap();
    assert!(st.success());
}

#[cfg(unix)]
#[test]
fn every_open_refuses_a_link_and_leaves_its_target_alone() {
    let d = tempfile::tempdir().unwrap();
    let outside = d.path().join("outside.txt");
    std::fs::write(&outside, "keep").unwrap();
    let link = d.path().join("samples.jsonl");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    for (name, r) in [
        ("append", append(&link).map(drop)),
        ("update", update(&link).map(drop)),
        ("create", create(&link).map(drop)),
        ("write", write(&link, b"x")),
    ] {
        let e = r.unwrap_err();
        assert!(e.to_string().contains("a symbolic link"), "{name}: {e}");
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
    let tmp = d.path().join("x.tmp");
    std::fs::write(&tmp, "new").unwrap();
    let e = commit(&tmp, &link).unwrap_err();
    assert!(e.to_string().contains("a symbolic link"), "{e}");
    assert!(!tmp.exists());
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
}

#[cfg(unix)]
#[test]
fn a_fifo_or_device_in_a_run_files_place_is_refused_at_once() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("run.lock");
    mkfifo(&fifo);
    let e = update(&fifo).unwrap_err();
    assert!(e.to_string().contains("a FIFO"), "{e}");
    let e = append(Path::new("/dev/null")).unwrap_err();
    assert!(e.to_string().contains("a device"), "{e}");
    let e = append(d.path()).unwrap_err();
    assert!(e.to_string().contains("a directory"), "{e}");
}

#[test]
fn regular_files_are_written_as_asked() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("labels.jsonl");
    write(&p, b"a\n").unwrap();
    {
        use std::io::Write;
        append(&p).unwrap().write_all(b"b\n").unwrap();
    }
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "a\nb\n");
    let tmp = d.path().join("t");
    std::fs::write(&tmp, "c\n").unwrap();
    commit(&tmp, &p).unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "c\n");
}
