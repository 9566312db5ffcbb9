#[test]
fn rfc3339_known_dates() {
    assert_eq!(crate::base::clock::rfc3339(0), "1970-01-01T00:00:00Z");
    assert_eq!(
        crate::base::clock::rfc3339(1_795_000_000),
        "2026-11-18T11:06:40Z"
    );
    assert_eq!(
        crate::base::clock::rfc3339(951_782_400),
        "2000-02-29T00:00:00Z"
    );
}

#[test]
fn run_status_keeps_run_json_strings_and_unknown_ones_as_written() {
    use super::RunStatus;
    for name in [
        "running",
        "paused",
        "finished",
        "cancelled",
        "failed",
        "interrupted",
        "paused-by-v9",
    ] {
        let st: RunStatus = serde_json::from_str(&format!("\"{name}\"")).unwrap();
        assert_eq!(serde_json::to_string(&st).unwrap(), format!("\"{name}\""));
        assert_eq!(st.to_string(), name);
    }
    assert_eq!(RunStatus::parse("finished"), RunStatus::Finished);
    assert_eq!(RunStatus::parse("paused"), RunStatus::Paused);
    assert!(RunStatus::Paused.is_live() && !RunStatus::Cancelled.is_live());
    assert_eq!(
        RunStatus::parse("paused-by-v9"),
        RunStatus::Other("paused-by-v9".into())
    );
}

#[test]
fn a_task_run_manifest_reads_and_writes_as_before_and_refuses_an_unknown_task() {
    let old = serde_json::json!({
        "format": "autoeval-run/1", "id": "r", "created": "2026-01-01T00:00:00Z",
        "tool_version": "autoeval 0.1.0", "command": ["autoeval"],
        "dataset": {"kind": "folio-a", "syntax": "fol", "items": 3,
                    "filter_field": "num_operators", "params": {}},
        "model": {"provider": "perturb", "name": "perturb-0.3", "synthetic": true},
        "temperature": 0.1, "max_tokens": 10,
        "prompts": {"source": "built-in", "shots": 0, "hash": "h"},
        "rounds": 1, "verifier_timeout_ms": 5000, "concurrency": 1,
        "status": "finished", "reading": "standard", "task": "folio-a",
        "from-a-newer-version": [1, 2]
    });
    let m: super::Manifest = serde_json::from_value(old.clone()).unwrap();
    assert_eq!(m.task(), Some(super::TaskKind::FolioA));
    assert!(!m.extra.contains_key("task"));
    assert_eq!(serde_json::to_value(&m).unwrap(), old);
    let mut plain = old.clone();
    plain.as_object_mut().unwrap().remove("task");
    let m: super::Manifest = serde_json::from_value(plain.clone()).unwrap();
    assert_eq!(m.task(), None);
    assert_eq!(serde_json::to_value(&m).unwrap(), plain);
    let mut bad = old;
    bad["task"] = serde_json::Value::from("folio-z");
    let e = serde_json::from_value::<super::Manifest>(bad)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("folio-z") && e.contains("multi-logieval-fol"),
        "{e}"
    );
}
