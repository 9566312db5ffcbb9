"""Oracle for `autoeval labels stats`: writes labels fixtures for tests/fixtures/runs/pl-small
and the agreement values the `krippendorff` and `statsmodels` packages compute for them.
Run once in a scratch venv (pip install krippendorff statsmodels); tests never call Python.
"""
import json, math, os
import numpy as np
import krippendorff
from statsmodels.stats.inter_rater import fleiss_kappa, cohens_kappa

HERE = os.path.dirname(os.path.abspath(__file__))

def rec(i, a, cats):
    return {"id": i, "categories": cats, "note": "", "annotator": a, "time": "2026-11-23T10:00:00Z"}

# Three annotators, all on the same ten samples (Fleiss needs a constant number), plus
# sample 13 labelled by alice alone (no pair: it never counts) naming a category
# nobody else uses ("arity": no variance on shared samples).
constant = {
    "alice": {"0": [], "1": ["negation-misplaced"], "2": [], "3": ["lucky-pass"], "4": ["and-or-swap"],
              "5": [], "6": ["negation-misplaced", "term-omitted"], "7": ["and-or-swap"], "8": [], "11": ["scope-not-conveyed"]},
    "bob":   {"0": [], "1": ["negation-misplaced"], "2": ["term-omitted"], "3": [], "4": ["negation-misplaced"],
              "5": [], "6": ["negation-misplaced"], "7": ["and-or-swap"], "8": [], "11": ["scope-not-conveyed", "term-omitted"]},
    "carol": {"0": ["lucky-pass"], "1": ["negation-misplaced"], "2": [], "3": ["lucky-pass"], "4": ["and-or-swap"],
              "5": [], "6": ["term-omitted"], "7": [], "8": [], "11": ["scope-not-conveyed"]},
}
extra = [rec("13", "alice", ["arity"])]

# Varying annotators per sample (α handles missing values; Cohen for a chosen pair).
varying = {
    "alice": {"0": [], "1": ["negation-misplaced"], "4": ["and-or-swap"], "6": ["term-omitted"], "7": ["and-or-swap"], "11": []},
    "bob":   {"1": ["negation-misplaced"], "2": [], "4": ["negation-misplaced"], "7": ["and-or-swap"], "11": ["term-omitted"]},
    "carol": {"0": [], "2": ["term-omitted"], "6": ["term-omitted"], "7": ["and-or-swap"], "12": []},
    "dave":  {"1": [], "4": ["and-or-swap"], "6": [], "12": ["lucky-pass"]},
}

def units_of(table):
    ann = sorted(table)
    ids = sorted({i for a in ann for i in table[a]})
    return ann, ids

def cats_of(table, extra_recs=()):
    cs = {c for a in table for v in table[a].values() for c in v}
    cs |= {c for r in extra_recs for c in r["categories"]}
    return sorted(cs)

def alpha_data(table, cats, ann, ids):
    """Per category: coders × samples (nan = not labelled). Overall: samples × categories pooled."""
    per = {}
    for c in cats:
        m = [[(1.0 if c in table[a][i] else 0.0) if i in table[a] else np.nan for i in ids] for a in ann]
        per[c] = np.array(m)
    overall = np.concatenate([per[c] for c in cats], axis=1)
    return per, overall

def alpha(m):
    vals = m[~np.isnan(m)]
    # Units with fewer than two values never pair; without variance α is undefined.
    pairable = np.sum(~np.isnan(m), axis=0) >= 2
    v = m[:, pairable]
    v = v[~np.isnan(v)]
    if v.size == 0 or v.min() == v.max():
        return None
    return float(krippendorff.alpha(reliability_data=m, level_of_measurement="nominal"))

def fleiss(per_tables):
    rows = np.concatenate(per_tables, axis=0)
    if rows[:, 1].sum() == 0 or rows[:, 0].sum() == 0:
        return None
    return float(fleiss_kappa(rows, method="fleiss"))

def counts(table, ann, ids, c):
    rows = []
    for i in ids:
        present = [a for a in ann if i in table[a]]
        if len(present) < 2:
            continue
        k = sum(1 for a in present if c in table[a][i])
        rows.append([len(present) - k, k])
    return np.array(rows, dtype=float)

def cohen(table, a, b, cats):
    both = sorted(set(table[a]) & set(table[b]))
    out = {}
    xs, ys = [], []
    for c in cats:
        x = [int(c in table[a][i]) for i in both]
        y = [int(c in table[b][i]) for i in both]
        xs += x; ys += y
        out[c] = kappa2(x, y)
    return out, kappa2(xs, ys), len(both)

def kappa2(x, y):
    t = np.zeros((2, 2))
    for p, q in zip(x, y):
        t[p, q] += 1
    if len(x) == 0:
        return None
    pe = (t.sum(1) / t.sum()) @ (t.sum(0) / t.sum())
    if abs(1 - pe) < 1e-12:
        return None
    return float(cohens_kappa(t).kappa)

def write(name, table, extra_recs, pair):
    ann, ids = units_of(table)
    cats = cats_of(table, extra_recs)
    per, overall = alpha_data(table, cats, ann, ids)
    exp = {"alpha": {c: alpha(per[c]) for c in cats}, "alpha_overall": alpha(overall)}
    constant_raters = len({sum(1 for a in ann if i in table[a]) for i in ids}) == 1
    if constant_raters:
        tabs = {c: counts(table, ann, ids, c) for c in cats}
        exp["fleiss"] = {c: fleiss([tabs[c]]) for c in cats}
        exp["fleiss_overall"] = fleiss(list(tabs.values()))
    k, ko, n = cohen(table, pair[0], pair[1], cats)
    exp["cohen"] = {"a": pair[0], "b": pair[1], "shared": n, "kappa": k, "overall": ko}
    with open(os.path.join(HERE, f"{name}.labels.jsonl"), "w") as f:
        for a in ann:
            for i in sorted(table[a], key=int):
                f.write(json.dumps(rec(i, a, table[a][i]), ensure_ascii=False) + "\n")
        for r in extra_recs:
            f.write(json.dumps(r) + "\n")
    with open(os.path.join(HERE, f"{name}.expected.json"), "w") as f:
        json.dump(exp, f, indent=1, sort_keys=True)
        f.write("\n")

write("constant", constant, extra, ("alice", "carol"))
write("varying", varying, [], ("bob", "dave"))
