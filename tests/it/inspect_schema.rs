//! A JSON Schema (2020-12) validator for the keywords the stored Inspect schemas use
//! (tests/data/inspect/). Any other keyword stops the test, so nothing in the schema is
//! silently skipped. Shared by tests/it/export.rs and tests/it/export_eval.rs.
#![allow(dead_code)]
use serde_json::Value;

const ANNOTATIONS: [&str; 7] = [
    "$comment",
    "$defs",
    "default",
    "description",
    "title",
    // OpenAPI's hint for oneOf; oneOf itself is checked.
    "discriminator",
    // An annotation by default in 2020-12.
    "format",
];

pub fn validate(root: &Value, s: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    if errs.len() > 20 {
        return;
    }
    let s = match s {
        Value::Bool(true) => return,
        Value::Bool(false) => {
            errs.push(format!("{at}: not allowed"));
            return;
        }
        Value::Object(o) => o,
        _ => panic!("schema at {at} is not an object"),
    };
    for (k, kv) in s {
        match k.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "$ref" => {
                let name = kv.as_str().unwrap().strip_prefix("#/$defs/").unwrap();
                validate(root, &root["$defs"][name], v, at, errs);
            }
            "type" => {
                let types: Vec<&str> = match kv {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(a) => a.iter().map(|t| t.as_str().unwrap()).collect(),
                    _ => panic!("type"),
                };
                if !types.iter().any(|t| is_type(v, t)) {
                    errs.push(format!("{at}: {} is not {types:?}", short(v)));
                }
            }
            "properties" => {
                if let Some(o) = v.as_object() {
                    for (p, ps) in kv.as_object().unwrap() {
                        if let Some(x) = o.get(p) {
                            validate(root, ps, x, &format!("{at}.{p}"), errs);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(o) = v.as_object() {
                    let known = s.get("properties").and_then(Value::as_object);
                    for (p, x) in o {
                        if known.is_none_or(|k| !k.contains_key(p)) {
                            validate(root, kv, x, &format!("{at}.{p}"), errs);
                        }
                    }
                }
            }
            "propertyNames" => {
                if let Some(o) = v.as_object() {
                    for p in o.keys() {
                        validate(
                            root,
                            kv,
                            &Value::String(p.clone()),
                            &format!("{at}[key {p}]"),
                            errs,
                        );
                    }
                }
            }
            "required" => {
                if let Some(o) = v.as_object() {
                    for r in kv.as_array().unwrap() {
                        if !o.contains_key(r.as_str().unwrap()) {
                            errs.push(format!("{at}: missing required {r}"));
                        }
                    }
                }
            }
            "minProperties" => {
                if let Some(o) = v.as_object()
                    && (o.len() as u64) < kv.as_u64().unwrap()
                {
                    errs.push(format!("{at}: fewer than {kv} properties"));
                }
            }
            "items" => {
                if let Some(a) = v.as_array() {
                    let skip = s
                        .get("prefixItems")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    for (i, x) in a.iter().enumerate().skip(skip) {
                        validate(root, kv, x, &format!("{at}[{i}]"), errs);
                    }
                }
            }
            "prefixItems" => {
                if let Some(a) = v.as_array() {
                    for (i, (ps, x)) in kv.as_array().unwrap().iter().zip(a).enumerate() {
                        validate(root, ps, x, &format!("{at}[{i}]"), errs);
                    }
                }
            }
            "minItems" | "maxItems" => {
                if let Some(a) = v.as_array() {
                    let n = kv.as_u64().unwrap() as usize;
                    if (k == "minItems" && a.len() < n) || (k == "maxItems" && a.len() > n) {
                        errs.push(format!("{at}: {k} {n}, has {}", a.len()));
                    }
                }
            }
            "const" => {
                if v != kv {
                    errs.push(format!("{at}: {} is not the constant {kv}", short(v)));
                }
            }
            "enum" => {
                if !kv.as_array().unwrap().contains(v) {
                    errs.push(format!("{at}: {} not in {kv}", short(v)));
                }
            }
            "anyOf" | "oneOf" => {
                let results: Vec<Vec<String>> = kv
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| {
                        let mut e = Vec::new();
                        validate(root, b, v, at, &mut e);
                        e
                    })
                    .collect();
                let passing = results.iter().filter(|e| e.is_empty()).count();
                if passing == 0 {
                    // Report the closest branch's errors, so a deep mistake is named.
                    // (A branch failing at this very path, e.g. on its type, is the furthest.)
                    let here = format!("{at}: ");
                    let best = results
                        .into_iter()
                        .min_by_key(|e| (e.iter().any(|x| x.starts_with(&here)), e.len()))
                        .unwrap_or_default();
                    errs.extend(best);
                } else if k == "oneOf" && passing > 1 {
                    errs.push(format!(
                        "{at}: oneOf matched {passing} branches for {}",
                        short(v)
                    ));
                }
            }
            other => panic!("schema keyword '{other}' at {at} is not supported"),
        }
    }
}

fn short(v: &Value) -> String {
    v.to_string().chars().take(60).collect()
}

fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => panic!("type {t}"),
    }
}
