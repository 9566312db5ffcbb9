//! `bertscore_minilm`: greedy-matching F1 of contextual token embeddings (the
//! BERTScore method of Zhang et al.) computed with all-MiniLM-L6-v2, not roberta-large,
//! so its values are its own. Built only with the cargo feature `bertscore`.
//!
//! It reproduces the Python `bert-score` package run as
//! `score(cands, refs, model_type=DIR, num_layers=6)` (defaults otherwise: no idf, no
//! baseline rescaling, slow `BertTokenizer`): last-layer (6th) embeddings, L2-normalised;
//! each candidate token takes its best cosine over all reference tokens (`[CLS]` and
//! `[SEP]` included as match targets) and vice versa; precision and recall average
//! those maxima over the non-special tokens; F1 = 2PR/(P+R), 0 when either side has no
//! token besides `[CLS]`/`[SEP]`.

mod dense;
mod model;
mod wordpiece;

use candle_core::Device;
use model::{Bert, Config};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use wordpiece::WordPiece;

/// Largest `model.safetensors` read (all-MiniLM-L6-v2's is 87 MiB).
const MAX_WEIGHTS: u64 = 2 << 30;
/// Largest `vocab.txt` read (BERT's is 226 KiB).
const MAX_VOCAB_FILE: u64 = 16 << 20;
/// Sequences per forward pass; sentences are sorted by length first so a batch pads little.
const BATCH_SEQS: usize = 64;
/// Padded tokens per forward pass (bounds the attention matrices' memory).
const BATCH_TOKENS: usize = 2048;

/// Per sequence, its tokens' embedding rows.
type Embeddings = Vec<Vec<Vec<f32>>>;

/// Most batches encoded at once (one per core up to this).
const MAX_WORKERS: usize = 8;

/// The files a model directory must hold (`vocab.txt` may be replaced by `tokenizer.json`).
pub(crate) const MODEL_FILES: [&str; 3] = ["config.json", "model.safetensors", "vocab.txt"];

/// Why a model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum BertScoreError {
    /// The model directory is missing.
    #[error("bertscore-minilm model directory {0} does not exist or is not a directory")]
    NotDir(String),
    /// A model file could not be read.
    #[error(
        "cannot read {path} (a bertscore-minilm model directory holds {files}, or tokenizer.json \
         instead of vocab.txt)",
        files = MODEL_FILES.join(", ")
    )]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A model file does not hold what it must.
    #[error("{path}: {why}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// The vocabulary has more ids than the model.
    #[error(
        "{path} has ids up to {top} but config.json's vocab_size is {size}: they belong to different models"
    )]
    VocabMismatch {
        /// The vocabulary file.
        path: String,
        /// Its largest id.
        top: usize,
        /// The config's vocabulary size.
        size: usize,
    },
    /// The encoder failed.
    #[error("bertscore-minilm inference failed: {0}")]
    Inference(String),
    /// A worker thread panicked.
    #[error("bertscore-minilm worker panicked")]
    WorkerPanicked,
}

type Result<T, E = BertScoreError> = std::result::Result<T, E>;

/// An [`BertScoreError::Invalid`] for `path`.
fn invalid(path: &Path, why: impl std::fmt::Display) -> BertScoreError {
    BertScoreError::Invalid {
        path: path.display().to_string(),
        why: why.to_string(),
    }
}

/// A loaded tokenizer and encoder.
pub struct BertScoreMiniLm {
    vocab: WordPiece,
    model: Bert,
    max_len: usize,
}

fn read_in(dir: &Path, name: &str, max: u64) -> Result<Vec<u8>> {
    let path = dir.join(name);
    crate::base::fsread::read(&path, max).map_err(|source| BertScoreError::Read {
        path: path.display().to_string(),
        source,
    })
}

fn text_in(dir: &Path, name: &str, max: u64) -> Result<String> {
    String::from_utf8(read_in(dir, name, max)?)
        .map_err(|_| invalid(&dir.join(name), "not UTF-8 text"))
}

impl BertScoreMiniLm {
    /// Loads `config.json`, `vocab.txt`, `model.safetensors` and (if present)
    /// `tokenizer_config.json` from `dir`, checking every shape against the config.
    pub fn load(dir: &Path) -> Result<Self> {
        if !dir.is_dir() {
            return Err(BertScoreError::NotDir(dir.display().to_string()));
        }
        let file = |n: &str| -> PathBuf { dir.join(n) };
        let config = Config::parse(&text_in(
            dir,
            "config.json",
            crate::base::fsread::MAX_SMALL,
        )?)
        .map_err(|e| invalid(&file("config.json"), e))?;
        // vocab.txt is what the Python BertTokenizer reads; the pip package ships only
        // tokenizer.json, which holds the same vocabulary.
        let (vocab_name, vocab) = if file("vocab.txt").exists() || !file("tokenizer.json").exists()
        {
            let text = text_in(dir, "vocab.txt", MAX_VOCAB_FILE)?;
            ("vocab.txt", WordPiece::from_vocab(&text))
        } else {
            let text = text_in(dir, "tokenizer.json", MAX_VOCAB_FILE)?;
            ("tokenizer.json", WordPiece::from_tokenizer_json(&text))
        };
        let vocab = vocab.map_err(|e| invalid(&file(vocab_name), e))?;
        if vocab.id_bound() > config.vocab_size {
            return Err(BertScoreError::VocabMismatch {
                path: file(vocab_name).display().to_string(),
                top: vocab.id_bound() - 1,
                size: config.vocab_size,
            });
        }
        let mut max_len = config.max_position_embeddings;
        let tc = file("tokenizer_config.json");
        if tc.exists() {
            let text = text_in(dir, "tokenizer_config.json", crate::base::fsread::MAX_SMALL)?;
            let v: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| invalid(&tc, format!("not JSON: {e}")))?;
            if v.get("do_lower_case").and_then(serde_json::Value::as_bool) == Some(false) {
                return Err(invalid(
                    &tc,
                    "do_lower_case is false; bertscore-minilm implements the uncased tokenizer only",
                ));
            }
            if let Some(m) = v
                .get("model_max_length")
                .and_then(serde_json::Value::as_u64)
            {
                max_len = max_len.min(m.max(2) as usize);
            }
        }
        if max_len < 2 {
            return Err(invalid(
                &file("config.json"),
                "max_position_embeddings below 2 leaves no room for [CLS] and [SEP]",
            ));
        }
        let bytes = read_in(dir, "model.safetensors", MAX_WEIGHTS)?;
        let tensors = candle_core::safetensors::load_buffer(&bytes, &Device::Cpu).map_err(|e| {
            invalid(
                &file("model.safetensors"),
                format!("not a readable safetensors file: {e}"),
            )
        })?;
        drop(bytes);
        let model =
            Bert::new(config, tensors).map_err(|e| invalid(&file("model.safetensors"), e))?;
        Ok(Self {
            vocab,
            model,
            max_len,
        })
    }

    /// Token ids of `text` as bert-score feeds them (`strip`, `[CLS] … [SEP]`, truncated
    /// to the model's maximum length).
    pub fn token_ids(&self, text: &str) -> Vec<u32> {
        self.vocab.encode(text.trim(), self.max_len)
    }

    /// `bertscore_minilm` F1 of each `(reference, candidate)` pair, in order.
    pub fn f1(&self, pairs: &[(&str, &str)]) -> Result<Vec<f64>> {
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut texts: Vec<&str> = Vec::new();
        for &(r, c) in pairs {
            for t in [r, c] {
                index.entry(t).or_insert_with(|| {
                    texts.push(t);
                    texts.len() - 1
                });
            }
        }
        let ids: Vec<Vec<u32>> = texts.iter().map(|t| self.token_ids(t)).collect();
        let embs = self.embed_all(&ids)?;
        Ok(pairs
            .iter()
            .map(|(r, c)| greedy_f1(&embs[index[r]], &embs[index[c]]))
            .collect())
    }

    /// L2-normalised last-layer embeddings of every sequence, batched by length; the
    /// batches run on every core (candle runs only its matrix products in parallel, so
    /// one batch at a time leaves a core idle through the element-wise steps).
    fn embed_all(&self, ids: &[Vec<u32>]) -> Result<Embeddings> {
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(ids[i].len()));
        let mut groups: Vec<&[usize]> = Vec::new();
        let mut start = 0;
        while start < order.len() {
            let longest = ids[order[start]].len().max(1);
            let take = BATCH_SEQS.min((BATCH_TOKENS / longest).max(1));
            let end = (start + take).min(order.len());
            groups.push(&order[start..end]);
            start = end;
        }
        let workers = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .clamp(1, MAX_WORKERS)
            .min(groups.len());
        let next = std::sync::atomic::AtomicUsize::new(0);
        let embed_group = |group: &[usize]| -> Result<Embeddings> {
            let seqs: Vec<&[u32]> = group.iter().map(|&i| ids[i].as_slice()).collect();
            let mut embs = self
                .model
                .embed(&seqs)
                .map_err(|e| BertScoreError::Inference(e.to_string()))?;
            for row in embs.iter_mut().flatten() {
                let norm = row.iter().map(|v| v * v).sum::<f32>().sqrt();
                for v in row.iter_mut() {
                    *v /= norm;
                }
            }
            Ok(embs)
        };
        // One worker (one batch, as when a run scores its samples one at a time, or one
        // core): no thread to start.
        let done: Vec<Result<Vec<(usize, Embeddings)>>> = if workers <= 1 {
            vec![
                groups
                    .iter()
                    .enumerate()
                    .map(|(g, group)| Ok((g, embed_group(group)?)))
                    .collect(),
            ]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..workers)
                    .map(|_| {
                        s.spawn(|| {
                            let mut mine = Vec::new();
                            loop {
                                let g = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                let Some(group) = groups.get(g) else {
                                    return Ok(mine);
                                };
                                mine.push((g, embed_group(group)?));
                            }
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or(Err(BertScoreError::WorkerPanicked)))
                    .collect()
            })
        };
        let mut out = vec![Vec::new(); ids.len()];
        for part in done {
            for (g, embs) in part? {
                for (&i, rows) in groups[g].iter().zip(embs) {
                    out[i] = rows;
                }
            }
        }
        Ok(out)
    }
}

/// bert-score's `greedy_cos_idf` without idf, on normalised rows that start with
/// `[CLS]` and end with `[SEP]`. A token's best cosine counts at least 0: bert-score
/// zero-fills the padded similarity matrix of its batches, so that is what it computes
/// for every pair but the longest of its batch.
fn greedy_f1(reference: &[Vec<f32>], candidate: &[Vec<f32>]) -> f64 {
    if reference.len() <= 2 || candidate.len() <= 2 {
        return 0.0;
    }
    let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    let sim: Vec<Vec<f32>> = candidate
        .iter()
        .map(|c| reference.iter().map(|r| dot(c, r)).collect())
        .collect();
    let inner = |n: usize| 1..n - 1;
    let precision = inner(candidate.len())
        .map(|i| sim[i].iter().copied().fold(0.0, f32::max) as f64)
        .sum::<f64>()
        / (candidate.len() - 2) as f64;
    let recall = inner(reference.len())
        .map(|j| sim.iter().map(|row| row[j]).fold(0.0, f32::max) as f64)
        .sum::<f64>()
        / (reference.len() - 2) as f64;
    let f = 2.0 * precision * recall / (precision + recall);
    if f.is_nan() { 0.0 } else { f }
}

#[cfg(test)]
mod tests {
    use super::greedy_f1;

    #[test]
    fn greedy_f1_matches_hand_computation() {
        let cls = vec![1.0, 0.0];
        let sep = vec![0.0, 1.0];
        let a = vec![0.6, 0.8];
        let b = vec![0.8, 0.6];
        // Identical sides score 1.
        let r = vec![cls.clone(), a.clone(), sep.clone()];
        assert!((greedy_f1(&r, &r) - 1.0).abs() < 1e-6);
        // Candidate [b]: its best match is `a` at 0.96 (cls 0.8, sep 0.6): P = 0.96.
        // Reference [a]: best is b at 0.96: R = 0.96.
        let c = vec![cls.clone(), b.clone(), sep.clone()];
        assert!((greedy_f1(&r, &c) - 0.96).abs() < 1e-6);
        // Candidate [a, b] against [a]: P = (1 + 0.96)/2, R = 1.
        let c2 = vec![cls.clone(), a.clone(), b.clone(), sep.clone()];
        let p = f64::midpoint(1.0, 0.96);
        assert!((greedy_f1(&r, &c2) - 2.0 * p / (p + 1.0)).abs() < 1e-6);
        // A best cosine below 0 counts 0: [-a]'s cosines are -0.6, -1, -0.8, so P = 0
        // (not -0.6) and F1 = 0 (not -4.8).
        let c3 = vec![cls.clone(), vec![-0.6, -0.8], sep.clone()];
        assert_eq!(greedy_f1(&r, &c3), 0.0);
        // An empty side scores 0, as bert-score does.
        assert_eq!(greedy_f1(&r, &[cls, sep]), 0.0);
    }
}
