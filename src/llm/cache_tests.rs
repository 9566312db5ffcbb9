//! Tests of the response cache.

use super::*;

fn info(base: &str) -> ModelInfo {
    ModelInfo {
        provider: "openai".into(),
        name: "m".into(),
        base_url: Some(base.into()),
        api_key_env: Some("K".into()),
        synthetic: false,
    }
}

fn req(p: &str, t: f64) -> ChatRequest {
    ChatRequest::plain(p, t, 64)
}

#[test]
fn key_depends_on_everything_that_shapes_the_answer_and_nothing_secret() {
    let a = key(&info("http://h/v1"), &req("p", 0.0));
    assert_eq!(a, key(&info("http://h/v1/"), &req("p", 0.0)));
    assert_eq!(a, key(&info("http://u:pw@h/v1"), &req("p", 0.0)));
    // The query is sent and may pick another deployment or tenant (issue 48).
    let tenant_a = key(&info("http://h/v1?tenant=a"), &req("p", 0.0));
    assert_ne!(a, tenant_a);
    assert_ne!(tenant_a, key(&info("http://h/v1?tenant=b"), &req("p", 0.0)));
    assert_eq!(
        tenant_a,
        key(&info("http://u:pw@h/v1?tenant=a"), &req("p", 0.0))
    );
    assert_ne!(a, key(&info("http://g/v1"), &req("p", 0.0)));
    assert_ne!(a, key(&info("http://h/v1"), &req("p ", 0.0)));
    assert_ne!(a, key(&info("http://h/v1"), &req("p", 0.1)));
    assert_ne!(
        a,
        key(&info("http://h/v1"), &ChatRequest::plain("p", 0.0, 65))
    );
    let mut p = crate::llm::request::RequestParams::plain(0.0, 64);
    p.effort = Some("low".into());
    let effort = ChatRequest::new("p".into(), std::sync::Arc::new(p.clone()));
    assert_ne!(a, key(&info("http://h/v1"), &effort));
    p.effort = None;
    p.thinking = Some(crate::llm::request::OnOff::On);
    let thinking = ChatRequest::new("p".into(), std::sync::Arc::new(p.clone()));
    assert_ne!(a, key(&info("http://h/v1"), &thinking));
    p.thinking = None;
    p.extra_body = crate::llm::extra_body::parse(r#"{"top_k": 2}"#).ok();
    let extra = ChatRequest::new("p".into(), std::sync::Arc::new(p));
    assert_ne!(a, key(&info("http://h/v1"), &extra));
    let mut i = info("http://h/v1");
    i.provider = "anthropic".into();
    assert_ne!(a, key(&i, &req("p", 0.0)));
    assert_eq!(
        public_base("https://u:secret@h:8/v1?api-key=s"),
        "https://h:8/v1"
    );
}

#[test]
fn reasoning_is_kept_and_an_older_database_still_hits() {
    let dir = tempfile::tempdir().unwrap();
    let i = info("http://h/v1");
    let k = key(&i, &req("p", 0.0));
    let plain = Completion {
        text: "p1 ∧ p2".into(),
        input_tokens: 9,
        output_tokens: 40,
        finish_reason: Some("stop".into()),
        ..Completion::default()
    };
    {
        // A database as the version before reasoning wrote it, with one entry.
        let conn = rusqlite::Connection::open(dir.path().join(FILE)).unwrap();
        conn.execute_batch(
            "CREATE TABLE responses (key TEXT PRIMARY KEY, provider TEXT NOT NULL,
             base_url TEXT NOT NULL, model TEXT NOT NULL, text TEXT NOT NULL,
             input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
             finish_reason TEXT, created INTEGER NOT NULL, last_used INTEGER NOT NULL,
             sum TEXT);",
        )
        .unwrap();
        conn.execute(
            "INSERT INTO responses VALUES (?1, 'openai', 'http://h/v1', 'm', ?2, 9, 40, 'stop', 1, 1, ?3)",
            params![k, plain.text, entry_sum(&k, &plain)],
        )
        .unwrap();
    }
    let c = ResponseCache::open(dir.path()).unwrap();
    assert_eq!(c.get(&k), Some(plain), "an old entry checks out");
    let k2 = key(&i, &req("q", 0.0));
    let thought = Completion {
        text: "p3".into(),
        input_tokens: 9,
        output_tokens: 400,
        finish_reason: Some("stop".into()),
        reasoning: Some("first draft: ¬p3 — no, p3".into()),
        reasoning_tokens: Some(360),
        reasoning_redacted: true,
        truncated: false,
        unread: Vec::new(),
    };
    c.put(&k2, &i, &thought);
    assert_eq!(c.get(&k2), Some(thought.clone()), "reasoning comes back");
    // Changing the stored reasoning fails the checksum: a miss, warned.
    let conn = rusqlite::Connection::open(dir.path().join(FILE)).unwrap();
    conn.execute(
        "UPDATE responses SET reasoning = 'edited' WHERE key = ?1",
        params![k2],
    )
    .unwrap();
    assert_eq!(c.get(&k2), None);
    assert_eq!(c.take_warnings().len(), 1);
}

#[test]
fn store_hit_stats_and_prune() {
    let dir = tempfile::tempdir().unwrap();
    let c = ResponseCache::open(dir.path()).unwrap();
    let i = info("http://h/v1");
    let k = key(&i, &req("p", 0.0));
    assert_eq!(c.get(&k), None);
    let ans = Completion {
        text: "answer".into(),
        input_tokens: 10,
        output_tokens: 3,
        finish_reason: Some("stop".into()),
        ..Completion::default()
    };
    c.put(&k, &i, &ans);
    assert_eq!(c.get(&k), Some(ans.clone()));
    // A second handle (another process's view) sees it too.
    let c2 = ResponseCache::open(dir.path()).unwrap();
    assert_eq!(c2.get(&k), Some(ans));
    let s = c2.stats().unwrap();
    assert_eq!(s.entries, 1);
    assert_eq!(s.by_model, vec![("openai:m".to_string(), 1)]);
    assert_eq!(c2.prune(None, Some(0)).unwrap(), 1);
    assert_eq!(c.get(&k), None);
    assert!(c.take_warnings().is_empty());
}

#[test]
fn garbage_file_fails_to_open_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(FILE), vec![7u8; 5000]).unwrap();
    let e = ResponseCache::open_or_warn(Some(dir.path())).unwrap_err();
    assert!(e.contains("running without the response cache"), "{e}");
    assert!(remove_all(dir.path()).unwrap() >= 5000);
    assert!(ResponseCache::open(dir.path()).is_ok());
}

#[test]
fn processes_creating_the_database_at_once_all_open_it() {
    // Each round is a fresh directory opened by four connections at the same moment,
    // as two runs started together do; none may fall back to "no cache".
    for _ in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let gate = std::sync::Arc::new(std::sync::Barrier::new(4));
        let opened: Vec<_> = (0..4)
            .map(|_| {
                let (gate, path) = (gate.clone(), dir.path().to_path_buf());
                std::thread::spawn(move || {
                    gate.wait();
                    ResponseCache::open(&path)
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                })
            })
            .collect();
        for h in opened {
            assert_eq!(h.join().unwrap(), Ok(()));
        }
    }
}
