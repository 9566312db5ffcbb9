//! A tiny deterministic BERT (2 layers, hidden 8) with the real MiniLM vocabulary,
//! bit for bit the model tests/data/bertscore/build_oracle.py scores (`tiny-oracle.jsonl`).
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use candle_core::{Device, Tensor};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/bertscore")
        .join(name)
}

pub const H: usize = 8;
pub const HEADS: usize = 2;
pub const LAYERS: usize = 2;
pub const INTER: usize = 16;
pub const POS: usize = 512;

/// build_oracle.py's `val`: a hash of the index, exact in f64 on both sides.
fn val(salt: u64, n: usize) -> Vec<f64> {
    (0..n as u64)
        .map(|i| ((i * 2654435761 + salt * 97531) % 65521) as f64 / 65521.0 - 0.5)
        .collect()
}

/// Writes build_oracle.py's tiny deterministic BERT (2 layers, hidden 8) with the real
/// MiniLM vocabulary into `dir`.
pub fn tiny_model(dir: &Path) {
    let vocab = std::fs::read_to_string(data("vocab.txt")).unwrap();
    let v = vocab.lines().count();
    let mut shapes: Vec<(String, Vec<usize>)> = vec![
        ("embeddings.word_embeddings.weight".into(), vec![v, H]),
        ("embeddings.position_embeddings.weight".into(), vec![POS, H]),
        ("embeddings.token_type_embeddings.weight".into(), vec![2, H]),
        ("embeddings.LayerNorm.weight".into(), vec![H]),
        ("embeddings.LayerNorm.bias".into(), vec![H]),
    ];
    for l in 0..LAYERS {
        let p = format!("encoder.layer.{l}.");
        for (n, o, i) in [
            ("attention.self.query", H, H),
            ("attention.self.key", H, H),
            ("attention.self.value", H, H),
            ("attention.output.dense", H, H),
            ("intermediate.dense", INTER, H),
            ("output.dense", H, INTER),
        ] {
            shapes.push((format!("{p}{n}.weight"), vec![o, i]));
            shapes.push((format!("{p}{n}.bias"), vec![o]));
            if n == "attention.output.dense" || n == "output.dense" {
                let ln = if n.starts_with("attention") {
                    "attention.output"
                } else {
                    "output"
                };
                shapes.push((format!("{p}{ln}.LayerNorm.weight"), vec![H]));
                shapes.push((format!("{p}{ln}.LayerNorm.bias"), vec![H]));
            }
        }
    }
    let mut tensors = HashMap::new();
    for (salt, (name, shape)) in shapes.into_iter().enumerate() {
        let n = shape.iter().product();
        let vals: Vec<f32> = val(salt as u64, n)
            .into_iter()
            .map(|x| {
                if name.ends_with("LayerNorm.weight") {
                    (1.0 + 0.5 * x) as f32
                } else if name.ends_with(".bias") {
                    (0.2 * x) as f32
                } else {
                    (2.0 * x) as f32
                }
            })
            .collect();
        tensors.insert(
            name,
            Tensor::from_vec(vals, shape.as_slice(), &Device::Cpu).unwrap(),
        );
    }
    candle_core::safetensors::save(&tensors, dir.join("model.safetensors")).unwrap();
    let config = serde_json::json!({
        "model_type": "bert", "vocab_size": v, "hidden_size": H, "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS, "intermediate_size": INTER, "hidden_act": "gelu",
        "max_position_embeddings": POS, "type_vocab_size": 2, "layer_norm_eps": 1e-12
    });
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    std::fs::write(
        dir.join("tokenizer_config.json"),
        r#"{"do_lower_case": true, "model_max_length": 512}"#,
    )
    .unwrap();
    std::fs::write(dir.join("vocab.txt"), vocab).unwrap();
}
