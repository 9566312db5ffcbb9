"""Oracle for autoeval's METEOR (exact + Porter stem, no WordNet): run once offline in a
scratch venv with nltk 3.7 (the version the paper pins), never in tests or CI.

    python make.py FOLIO_DIR METRICS_ORACLE_JSONL OUT_DIR

Writes, from every FOLIO v0.0 string (premises, conclusions, their FOL) and both sides of
every pair in tests/data/metrics-oracle.jsonl:
  tokens.jsonl  {"text", "tokens"}: nltk word_tokenize(text, preserve_line=True)
  stems.tsv     word<TAB>PorterStemmer().stem(word) for every distinct lowercased token
  pairs.jsonl   {"a", "b", "meteor", "source"}: meteor_score([tok(a)], tok(b)) with a
                WordNet stand-in that has no synsets (so only the exact and stem stages
                can match; nltk's synonym stage then adds nothing, see README)
"""
import json, random, sys, os
from nltk.tokenize import word_tokenize
from nltk.stem.porter import PorterStemmer
from nltk.translate.meteor_score import meteor_score

class NoWordnet:
    def synsets(self, *a, **k):
        return []

def tok(s):
    return word_tokenize(s, preserve_line=True)

def meteor(ref, cand):
    return meteor_score([tok(ref)], tok(cand), wordnet=NoWordnet())

folio_dir, oracle, out = sys.argv[1:4]
random.seed(2023)
texts, seen = [], set()
def add(t, src):
    if t not in seen:
        seen.add(t); texts.append((t, src))
records = []
for name in ["folio-train.jsonl", "folio-validation.jsonl"]:
    for line in open(os.path.join(folio_dir, name), encoding="utf-8"):
        r = json.loads(line)
        records.append(r)
        for p in r["premises"]: add(p, "folio-nl")
        add(r["conclusion"], "folio-nl")
        for p in r["premises-FOL"]: add(p, "folio-fol")
        if r.get("conclusion-FOL"): add(r["conclusion-FOL"], "folio-fol")
oracle_pairs = [json.loads(l) for l in open(oracle, encoding="utf-8")]
for p in oracle_pairs:
    add(p["a"], "oracle"); add(p["b"], "oracle")
hostile = [
    '"Quoted" text, and \'single\' quotes don\'t break it.', "``Tick'' quotes at the end.''",
    "I cannot and won't: gonna, wanna go, gimme more'n lemme 'tis 'twas.",
    "Ends with a period.", "Ends with periods...", "A(x) ∧ B(x).", "¬P(a) → Q(b)!", "Is it? Yes!",
    "Costs $3.88 (roughly 3,36 euros) at 5:30, 10% off & more; #1 @home.",
    "Mixed--dashes -- and * stars *", "«Guillemets» “curly” ‘single’ „low“ ’tail’",
    "He's, she'd, we'll, they're, I've, I'M, YOU'RE, CAN'T, ain't", "x,y,z,", "a:b:",
    "Trailing newline.\n", "tabs\tand\nnewlines\r\n", "  ", "", "'Quote at start", "O'Neil's",
    "Owns(x, l-2021) ∧ x1.pred1(x)", "∀x1 ∃x2 (pred1(x1,x2) ↔ ¬p3)", "Ünïcödé Straße ΣΑΣ İstanbul",
    "ℌ² ½ ‿join_ed", "[Brackets]{braces}<angles>", "'re 've 'll 'm 't 's 'd 'n 'x 'reason",
    "Running runs ran runner RUNNING happily happiness generalization relational",
    "skies dying lying tying news innings outings cannings howe proceed exceed succeed",
]
for h in hostile: add(h, "crafted")
with open(os.path.join(out, "tokens.jsonl"), "w", encoding="utf-8") as f:
    # Every FOL string, crafted and oracle string; 1,000 of the ~3,500 English sentences
    # (stems.tsv still covers every token of all of them).
    keep_nl = set(random.sample([t for t, s in texts if s == "folio-nl"], 1000))
    for t, src in texts:
        if src == "folio-nl" and t not in keep_nl: continue
        f.write(json.dumps({"text": t, "tokens": tok(t)}, ensure_ascii=False, separators=(",", ":")) + "\n")
stemmer = PorterStemmer()
words = sorted({w.lower() for t, _ in texts for w in tok(t)})
extra = ["a", "ab", "sky", "Sky", "skies", "dies", "lies", "ties", "cried", "tied", "feed", "agreed",
         "plastered", "motoring", "sing", "hopping", "hoping", "filing", "falling", "fizzed", "happy",
         "sky", "by", "say", "relational", "conditional", "rational", "valenci", "hesitanci",
         "digitizer", "conformabli", "radicalli", "differentli", "vileli", "analogousli",
         "vietnamization", "predication", "operator", "feudalism", "decisiveness", "hopefulness",
         "callousness", "formaliti", "sensitiviti", "sensibiliti", "fulli", "logi", "apologi",
         "triplicate", "formative", "formalize", "electriciti", "electrical", "hopeful",
         "goodness", "revival", "allowance", "inference", "airliner", "gyroscopic", "adjustable",
         "defensible", "irritant", "replacement", "adjustment", "dependent", "adoption",
         "homologou", "communism", "activate", "angulariti", "homologous", "effective",
         "bowdlerize", "probate", "rate", "cease", "controll", "roll", "generalli", "a*d", "ba*d",
         "yyy", "yoyo", "quiet", "queue", "ies", "eed", "ing", "ied", "tied", "y", "ly"]
words = sorted(set(words) | set(w.lower() for w in extra))
with open(os.path.join(out, "stems.tsv"), "w", encoding="utf-8") as f:
    for w in words:
        if "\t" in w or "\n" in w: continue
        f.write(f"{w}\t{stemmer.stem(w)}\n")
pairs = []
fol = [t for t, s in texts if s == "folio-fol"]
nl = [t for t, s in texts if s == "folio-nl"]
# FOLIO premises against another premise of the same story, and NL sentences likewise.
for r in random.sample(records, 80):
    ps = r["premises-FOL"] + [r.get("conclusion-FOL") or r["premises-FOL"][0]]
    pairs.append({"a": random.choice(ps), "b": random.choice(ps), "source": "folio-fol-story"})
    ns = r["premises"] + [r["conclusion"]]
    pairs.append({"a": random.choice(ns), "b": random.choice(ns), "source": "folio-nl-story"})
# Inflected predicate names: only the stem stage can match these.
infl = [("Drinks", "Drinking"), ("Jokes", "Joked"), ("Likes", "Liked"), ("Owns", "Owning"),
        ("Dependent", "Dependence"), ("Student", "Students"), ("Happy", "Happiness"),
        ("Runs", "Running"), ("Eats", "Eaten"), ("Plays", "Played")]
for _ in range(120):
    a = random.choice(fol)
    b = a
    for x, y in random.sample(infl, 4):
        b = b.replace(x, y)
    words_a = a.split()
    if len(words_a) > 2 and random.random() < 0.5:
        i = random.randrange(len(words_a))
        b2 = b.split(); random.shuffle(b2); b = " ".join(b2)
    pairs.append({"a": a, "b": b, "source": "inflected"})
# Random NL against FOL and against NL: ragged lengths and no matches.
for _ in range(60):
    pairs.append({"a": random.choice(nl), "b": random.choice(fol), "source": "nl-fol"})
for h in hostile:
    pairs.append({"a": h, "b": random.choice(hostile), "source": "crafted"})
    pairs.append({"a": random.choice(nl), "b": h, "source": "crafted"})
with open(os.path.join(out, "pairs.jsonl"), "w", encoding="utf-8") as f:
    for p in pairs:
        p["meteor"] = meteor(p["a"], p["b"])
        f.write(json.dumps(p, ensure_ascii=False) + "\n")
# The existing oracle's meteor column must agree with this script's definition.
bad = sum(1 for p in oracle_pairs if abs(meteor(p["a"], p["b"]) - p["meteor"]) > 1e-12)
print(len(texts), "texts,", len(words), "words,", len(pairs), "pairs; oracle meteor disagreements:", bad, file=sys.stderr)
