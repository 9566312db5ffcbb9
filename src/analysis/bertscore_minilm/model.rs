//! A BERT encoder (the architecture of all-MiniLM-L6-v2) on candle, CPU, f32: the
//! token embeddings of the last layer for a batch of id sequences.

use super::dense::{Act, Dense, Then};
use candle_core::{DType, Device, Tensor};
use candle_nn::{LayerNorm, Module};
use std::collections::HashMap;

/// Largest hidden size, layer count, vocabulary and position table accepted from
/// `config.json` (MiniLM-L6: 384, 6, 30,522, 512): a hostile config cannot ask for
/// absurd allocations before the weights are even checked.
const MAX_HIDDEN: usize = 8192;
const MAX_LAYERS: usize = 128;
const MAX_VOCAB_SIZE: usize = 1 << 20;
const MAX_POSITIONS: usize = 1 << 16;

/// The fields of a BERT `config.json` the encoder needs.
#[derive(Clone, Debug)]
pub(crate) struct Config {
    pub(crate) vocab_size: usize,
    pub(crate) hidden_size: usize,
    pub(crate) num_hidden_layers: usize,
    pub(crate) num_attention_heads: usize,
    pub(crate) intermediate_size: usize,
    pub(crate) hidden_act: Act,
    pub(crate) max_position_embeddings: usize,
    pub(crate) type_vocab_size: usize,
    pub(crate) layer_norm_eps: f64,
}

impl Config {
    /// Parses and checks `config.json` text.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        if let Some(t) = v.get("model_type").and_then(|t| t.as_str())
            && t != "bert"
        {
            return Err(format!(
                "model_type is {:?}, expected \"bert\"",
                crate::base::sanitize::one_line(t)
            ));
        }
        let num = |k: &str, max: usize| -> Result<usize, String> {
            let n = v
                .get(k)
                .and_then(serde_json::Value::as_u64)
                .ok_or_else(|| format!("`{k}` missing or not a non-negative integer"))?;
            if n == 0 || n > max as u64 {
                return Err(format!("`{k}` is {n}, outside 1..={max}"));
            }
            Ok(n as usize)
        };
        let hidden_act = match v.get("hidden_act").and_then(|a| a.as_str()) {
            Some("gelu") | None => Act::Gelu,
            Some("gelu_new" | "gelu_pytorch_tanh") => Act::GeluTanh,
            Some("relu") => Act::Relu,
            Some(other) => {
                return Err(format!(
                    "hidden_act {:?} is not supported (gelu, gelu_new, relu)",
                    crate::base::sanitize::one_line(other)
                ));
            }
        };
        let layer_norm_eps = match v.get("layer_norm_eps") {
            None => 1e-12,
            Some(e) => e
                .as_f64()
                .filter(|e| e.is_finite() && *e >= 0.0 && *e < 1.0)
                .ok_or("`layer_norm_eps` is not a number in [0, 1)")?,
        };
        let c = Self {
            vocab_size: num("vocab_size", MAX_VOCAB_SIZE)?,
            hidden_size: num("hidden_size", MAX_HIDDEN)?,
            num_hidden_layers: num("num_hidden_layers", MAX_LAYERS)?,
            num_attention_heads: num("num_attention_heads", MAX_HIDDEN)?,
            intermediate_size: num("intermediate_size", 8 * MAX_HIDDEN)?,
            hidden_act,
            max_position_embeddings: num("max_position_embeddings", MAX_POSITIONS)?,
            type_vocab_size: match v.get("type_vocab_size") {
                None => 2,
                Some(_) => num("type_vocab_size", 1024)?,
            },
            layer_norm_eps,
        };
        if !c.hidden_size.is_multiple_of(c.num_attention_heads) {
            return Err(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                c.hidden_size, c.num_attention_heads
            ));
        }
        Ok(c)
    }
}

struct Layer {
    query: Dense,
    key: Dense,
    value: Dense,
    attn_out: Dense,
    attn_norm: LayerNorm,
    intermediate: Dense,
    output: Dense,
    out_norm: LayerNorm,
}

/// The encoder with its weights.
pub(crate) struct Bert {
    word: Tensor,
    position: Tensor,
    token_type0: Tensor,
    emb_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    head_dim: usize,
    act: Act,
    pub(crate) config: Config,
}

/// Takes the named tensors out of a safetensors map, checking each shape.
struct Weights {
    map: HashMap<String, Tensor>,
    prefix: &'static str,
}

impl Weights {
    fn get(&mut self, name: &str, shape: &[usize]) -> Result<Tensor, String> {
        let key = format!("{}{name}", self.prefix);
        let t = self
            .map
            .remove(&key)
            .ok_or_else(|| format!("tensor `{key}` is missing"))?;
        if t.dims() != shape {
            return Err(format!(
                "tensor `{key}` has shape {:?}, config.json implies {shape:?}",
                t.dims()
            ));
        }
        t.to_dtype(DType::F32)
            .map_err(|e| format!("tensor `{key}`: {e}"))
    }

    fn linear(&mut self, name: &str, out: usize, inp: usize) -> Result<Dense, String> {
        Dense::new(
            self.get(&format!("{name}.weight"), &[out, inp])?,
            &self.get(&format!("{name}.bias"), &[out])?,
        )
        .map_err(|e| format!("tensor `{}{name}.bias`: {e}", self.prefix))
    }

    fn norm(&mut self, name: &str, h: usize, eps: f64) -> Result<LayerNorm, String> {
        Ok(LayerNorm::new(
            self.get(&format!("{name}.weight"), &[h])?,
            self.get(&format!("{name}.bias"), &[h])?,
            eps,
        ))
    }
}

impl Bert {
    /// Builds the encoder from `config` and the tensors of `model.safetensors`
    /// (names with or without the `bert.` prefix).
    pub(crate) fn new(config: Config, map: HashMap<String, Tensor>) -> Result<Self, String> {
        let prefix = if map.contains_key("embeddings.word_embeddings.weight") {
            ""
        } else {
            "bert."
        };
        let mut w = Weights { map, prefix };
        let (h, i, eps) = (
            config.hidden_size,
            config.intermediate_size,
            config.layer_norm_eps,
        );
        let word = w.get("embeddings.word_embeddings.weight", &[config.vocab_size, h])?;
        let position = w.get(
            "embeddings.position_embeddings.weight",
            &[config.max_position_embeddings, h],
        )?;
        let token_type0 = w
            .get(
                "embeddings.token_type_embeddings.weight",
                &[config.type_vocab_size, h],
            )?
            .get(0)
            .map_err(|e| e.to_string())?;
        let emb_norm = w.norm("embeddings.LayerNorm", h, eps)?;
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for n in 0..config.num_hidden_layers {
            let p = format!("encoder.layer.{n}");
            layers.push(Layer {
                query: w.linear(&format!("{p}.attention.self.query"), h, h)?,
                key: w.linear(&format!("{p}.attention.self.key"), h, h)?,
                value: w.linear(&format!("{p}.attention.self.value"), h, h)?,
                attn_out: w.linear(&format!("{p}.attention.output.dense"), h, h)?,
                attn_norm: w.norm(&format!("{p}.attention.output.LayerNorm"), h, eps)?,
                intermediate: w.linear(&format!("{p}.intermediate.dense"), i, h)?,
                output: w.linear(&format!("{p}.output.dense"), h, i)?,
                out_norm: w.norm(&format!("{p}.output.LayerNorm"), h, eps)?,
            });
        }
        Ok(Self {
            word,
            position,
            token_type0,
            emb_norm,
            layers,
            heads: config.num_attention_heads,
            head_dim: h / config.num_attention_heads,
            act: config.hidden_act,
            config,
        })
    }

    /// Last-layer embeddings of each sequence (rows of `hidden_size` floats, one per
    /// token). Sequences are padded to the longest and masked, as the Python model
    /// runs a padded batch; ids must be below `vocab_size` and lengths within
    /// `max_position_embeddings` (the caller guarantees both).
    pub(crate) fn embed(&self, seqs: &[&[u32]]) -> candle_core::Result<Vec<Vec<Vec<f32>>>> {
        let dev = Device::Cpu;
        let b = seqs.len();
        let l = seqs.iter().map(|s| s.len()).max().unwrap_or(0);
        if b == 0 || l == 0 {
            return Ok(vec![Vec::new(); b]);
        }
        let h = self.config.hidden_size;
        let mut ids = Vec::with_capacity(b * l);
        let mut mask = Vec::with_capacity(b * l);
        for s in seqs {
            ids.extend_from_slice(s);
            ids.extend(std::iter::repeat_n(0u32, l - s.len()));
            mask.extend(std::iter::repeat_n(0f32, s.len()));
            // Python adds the dtype's minimum to masked scores; softmax then gives 0.
            mask.extend(std::iter::repeat_n(f32::MIN, l - s.len()));
        }
        let ids = Tensor::from_vec(ids, b * l, &dev)?;
        let mask = Tensor::from_vec(mask, (b, 1, 1, l), &dev)?;
        let x = self.word.index_select(&ids, 0)?.reshape((b, l, h))?;
        let x = x
            .broadcast_add(&self.position.narrow(0, 0, l)?)?
            .broadcast_add(&self.token_type0)?;
        let mut x = self.emb_norm.forward(&x)?;
        let scale = 1.0 / (self.head_dim as f64).sqrt();
        for layer in &self.layers {
            let split = |t: Tensor| -> candle_core::Result<Tensor> {
                t.reshape((b, l, self.heads, self.head_dim))?
                    .transpose(1, 2)?
                    .contiguous()
            };
            let q = split(layer.query.forward(&x, Then::Bias)?)?;
            let k = split(layer.key.forward(&x, Then::Bias)?)?;
            let v = split(layer.value.forward(&x, Then::Bias)?)?;
            let scores = (q.matmul(&k.t()?)? * scale)?.broadcast_add(&mask)?;
            let probs = candle_nn::ops::softmax_last_dim(&scores)?;
            let ctx = probs
                .matmul(&v)?
                .transpose(1, 2)?
                .contiguous()?
                .reshape((b, l, h))?;
            let attn = layer
                .attn_norm
                .forward(&layer.attn_out.forward(&ctx, Then::Add(&x))?)?;
            let mid = layer.intermediate.forward(&attn, Then::Act(self.act))?;
            x = layer
                .out_norm
                .forward(&layer.output.forward(&mid, Then::Add(&attn))?)?;
        }
        let all = x.to_vec3::<f32>()?;
        Ok(all
            .into_iter()
            .zip(seqs)
            .map(|(mut rows, s)| {
                rows.truncate(s.len());
                rows
            })
            .collect())
    }
}
