//! `--extra-body`: fields a provider added before autoeval did. It may add fields to a
//! request body, never replace what the run sets (model, prompt, token limits of every
//! spelling, `n`, streaming, tools, the reasoning fields the flags own): those keys are
//! refused before any request, naming the flag to use. Values under credential-like
//! keys are stored redacted.

use serde_json::{Map, Value};

/// Longest `--extra-body` accepted.
pub const MAX_LEN: usize = 64 * 1024;

/// What `run.json` stores in place of a credential's value.
pub const REDACTED: &str = "[redacted]";

/// A key folded for comparison: lower case, without `_`, `-` and `.`.
fn fold(key: &str) -> String {
    key.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Token-limit spellings (folded), refused at any depth: each one bounds or raises what
/// a call may bill, which the run reserves from `--max-tokens`.
const TOKEN_LIMITS: [&str; 11] = [
    "maxtokens",
    "maxcompletiontokens",
    "maxoutputtokens",
    "maxnewtokens",
    "maxlength",
    "numpredict",
    "budgettokens",
    "thinkingbudget",
    "maxreasoningtokens",
    "maxthinkingtokens",
    "reasoningbudget",
];

/// Why a top-level key belongs to the run, and what to use instead.
fn owned_top(key: &str) -> Option<&'static str> {
    Some(match fold(key).as_str() {
        "model" => "the model is --model (run.json and every report name it)",
        "messages" | "prompt" | "input" | "contents" | "system" => {
            "the prompt is the run's prompt set (--prompts)"
        }
        "n" | "bestof" | "numreturnsequences" | "candidatecount" => {
            "each call asks for one answer (leave it out)"
        }
        "stream" | "streamoptions" => "replies are read whole (leave it out)",
        "tools" | "toolchoice" | "functions" | "functioncall" | "paralleltoolcalls" => {
            "the benchmark calls no tools (leave it out)"
        }
        "temperature" => "use --temperature",
        "reasoningeffort" => "use --reasoning-effort",
        "thinking" => "use --thinking and --thinking-budget",
        _ => return None,
    })
}

/// Why a nested key (under `parent`) belongs to the run.
fn owned_nested(parent: &str, key: &str) -> Option<&'static str> {
    let k = fold(key);
    if TOKEN_LIMITS.contains(&k.as_str()) {
        return Some("it is a token limit; use --max-tokens (or --thinking-budget)");
    }
    match (fold(parent).as_str(), k.as_str()) {
        ("outputconfig" | "reasoning", "effort") => Some("use --reasoning-effort"),
        ("chattemplatekwargs", "enablethinking" | "thinking") => Some("use --thinking"),
        _ => None,
    }
}

/// The first key of `extra` the run owns, as (path, why), searching every depth.
fn owned(extra: &Map<String, Value>) -> Option<(String, &'static str)> {
    for (k, v) in extra {
        if TOKEN_LIMITS.contains(&fold(k).as_str()) {
            return Some((k.clone(), "it is a token limit; use --max-tokens"));
        }
        if let Some(why) = owned_top(k) {
            return Some((k.clone(), why));
        }
        // An explicit stack: the body may nest deeply (64 KiB of brackets).
        let mut stack: Vec<(String, &str, &Value)> = vec![(k.clone(), k.as_str(), v)];
        while let Some((path, parent, v)) = stack.pop() {
            match v {
                Value::Object(o) => {
                    for (ck, cv) in o {
                        let p = format!("{path}.{ck}");
                        if let Some(why) = owned_nested(parent, ck) {
                            return Some((p, why));
                        }
                        stack.push((p, ck.as_str(), cv));
                    }
                }
                Value::Array(a) => stack.extend(a.iter().map(|x| (path.clone(), parent, x))),
                _ => {}
            }
        }
    }
    None
}

/// Refuses an extra body that would replace what the run sets, naming the key and the
/// flag to use.
pub fn check(extra: &Map<String, Value>) -> Result<(), String> {
    match owned(extra) {
        None => Ok(()),
        Some((path, why)) => Err(format!(
            "--extra-body may add fields, not replace what the run sets: `{}` is refused ({why})",
            crate::base::sanitize::one_line(&path)
                .chars()
                .take(200)
                .collect::<String>()
        )),
    }
}

/// Parses `--extra-body`: a JSON object (at most 64 KiB) with no key the run owns.
pub fn parse(text: &str) -> Result<Map<String, Value>, String> {
    if text.len() > MAX_LEN {
        return Err("--extra-body is longer than 64 KiB".into());
    }
    let m = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err("--extra-body must be a JSON object, like '{\"top_k\": 20}'".into()),
        Err(e) => {
            return Err(format!(
                "--extra-body is not JSON ({e}); write a JSON object, like '{{\"top_k\": 20}}'"
            ));
        }
    };
    check(&m)?;
    Ok(m)
}

/// Merges `extra` into a request body: keys the body lacks are added, objects merged
/// key by key; a value the body already has is never replaced (what the run sets stays
/// what is sent, whatever a body read from elsewhere holds).
pub fn merge_into(body: &mut Value, extra: &Map<String, Value>) {
    let Value::Object(b) = body else {
        return;
    };
    for (k, v) in extra {
        match (b.get_mut(k), v) {
            (Some(have @ Value::Object(_)), Value::Object(add)) => merge_into(have, add),
            (Some(_), _) => {}
            (None, _) => {
                b.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Whether a key names a credential (its value is never stored).
pub fn credential_key(key: &str) -> bool {
    let k = fold(key);
    [
        "apikey",
        "secret",
        "password",
        "passwd",
        "credential",
        "authorization",
        "privatekey",
        "cookie",
        "accesskey",
        "bearer",
    ]
    .iter()
    .any(|w| k.contains(w))
        || k.ends_with("token")
        || matches!(k.as_str(), "auth" | "key" | "pass" | "pwd")
}

/// The extra body as stored in `run.json`: values under credential-like keys, at any
/// depth, replaced by [`REDACTED`].
pub fn redacted(extra: &Map<String, Value>) -> Map<String, Value> {
    let mut out = extra.clone();
    let mut stack: Vec<&mut Map<String, Value>> = vec![&mut out];
    while let Some(m) = stack.pop() {
        for (k, v) in m.iter_mut() {
            if credential_key(k) {
                *v = Value::String(REDACTED.into());
                continue;
            }
            let mut inner: Vec<&mut Value> = vec![v];
            while let Some(x) = inner.pop() {
                match x {
                    Value::Object(o) => stack.push(o),
                    Value::Array(a) => inner.extend(a.iter_mut()),
                    _ => {}
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn merges_deeply_adds_and_never_replaces() {
        let mut b = json!({"a": 1, "o": {"x": 1}});
        let e = parse(r#"{"o": {"y": 2, "x": 9}, "top_k": 20, "a": 5}"#).unwrap();
        merge_into(&mut b, &e);
        assert_eq!(b, json!({"a": 1, "o": {"x": 1, "y": 2}, "top_k": 20}));
        assert!(parse("[1]").is_err());
        assert!(parse("{").is_err());
    }

    #[test]
    fn keys_the_run_owns_are_refused_naming_the_flag() {
        for (body, flag) in [
            (r#"{"max_tokens": 2000000}"#, "--max-tokens"),
            (r#"{"Max-Completion-Tokens": 5}"#, "--max-tokens"),
            (r#"{"max_output_tokens": 5}"#, "--max-tokens"),
            (r#"{"model": "other"}"#, "--model"),
            (r#"{"messages": []}"#, "--prompts"),
            (r#"{"n": 50}"#, "one answer"),
            (r#"{"stream": true}"#, "whole"),
            (r#"{"tools": []}"#, "no tools"),
            (r#"{"reasoning_effort": "high"}"#, "--reasoning-effort"),
            (r#"{"thinking": {"type": "enabled"}}"#, "--thinking"),
            (
                r#"{"output_config": {"effort": "max"}}"#,
                "--reasoning-effort",
            ),
            (r#"{"reasoning": {"max_tokens": 9}}"#, "--max-tokens"),
            (
                r#"{"chat_template_kwargs": {"enable_thinking": true}}"#,
                "--thinking",
            ),
            (r#"{"a": [{"b": {"num_predict": 9}}]}"#, "--max-tokens"),
            (r#"{"temperature": 1}"#, "--temperature"),
        ] {
            let e = parse(body).unwrap_err();
            assert!(e.contains(flag) && e.contains("refused"), "{body}: {e}");
        }
        for ok in [
            r#"{"top_k": 20}"#,
            r#"{"chat_template_kwargs": {"custom": 1}}"#,
            r#"{"reasoning": {"enabled": true}}"#,
            r#"{"metadata": {"user": "x"}}"#,
        ] {
            assert!(parse(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn credentials_are_redacted_at_any_depth() {
        let e = obj(json!({
            "api_key": "sk-1", "top_k": 3,
            "metadata": {"Authorization": "Bearer x", "user": "u",
                         "list": [{"access_token": "t", "ok": 1}]},
            "x-api-key": 5, "client_secret": {"a": 1}, "password": "p"
        }));
        let r = Value::Object(redacted(&e));
        let s = r.to_string();
        for secret in ["sk-1", "Bearer x", "\"t\"", "\"p\""] {
            assert!(!s.contains(secret), "{s}");
        }
        assert_eq!(r["top_k"], 3);
        assert_eq!(r["metadata"]["user"], "u");
        assert_eq!(r["metadata"]["list"][0]["ok"], 1);
        assert_eq!(r["client_secret"], REDACTED);
        assert!(!credential_key("top_k") && !credential_key("monkey_business"));
    }
}
