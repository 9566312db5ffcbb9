"""Oracle: how NLTK's logic parser (the original's, via its str_to_expr) groups formulas.
Writes tests/data/nltk-reading.jsonl lines {"text", "nltk", "source"} where "nltk" is
NLTK's tree written fully parenthesised in our Unicode syntax."""
import json, glob, os, re, sys
from nltk.sem.logic import (read_logic, AllExpression, ExistsExpression, AndExpression,
    OrExpression, ImpExpression, IffExpression, NegatedExpression, ApplicationExpression,
    AbstractVariableExpression)

def str_to_expr(string):  # the original's conversion, verbatim in behaviour
    string = string.lower()
    for a, b in [(" ∨ ", " or "), (" v ", " or "), (")v ", ") or "), (" v(", " or ("),
                 (")v(", ") or ("), ("∧", " and "), ("¬", " not "), ("∀", " all "),
                 ("∃", " exists "), ("\n", ""), ("[", "("), ("]", ")"), ("→", "->"),
                 ("↔", "<->")]:
        string = string.replace(a, b)
    return read_logic(string)[0]

def show(e):
    if isinstance(e, AllExpression): return f"(∀{e.variable}.{show(e.term)})"
    if isinstance(e, ExistsExpression): return f"(∃{e.variable}.{show(e.term)})"
    if isinstance(e, NegatedExpression): return f"¬({show(e.term)})"
    for k, v in [(AndExpression, '∧'), (OrExpression, '∨'), (ImpExpression, '→'), (IffExpression, '↔')]:
        if isinstance(e, k): return f"({show(e.first)} {v} {show(e.second)})"
    if isinstance(e, ApplicationExpression):
        f, args = e.uncurry()
        return f"{f}({','.join(str(a) for a in args)})"
    if isinstance(e, AbstractVariableExpression): return str(e)
    raise ValueError(type(e))

texts = []
crafted = [
 "∃x1 ∃x2 ∃x3 ¬pred5(p3) ∧ pred5(x2)", "p1 → p2 → p3", "p1 ↔ p2 ↔ p3", "p1 ↔ p2 → p3",
 "p1 → p2 ↔ p3", "p1 ∧ p2 ∨ p3 → p4 ↔ p5", "p1 ∨ p2 ∧ p3", "¬p1 ∧ p2", "¬∀x1.pred1(x1) ∧ p2",
 "∀x1.pred1(x1) ∧ p2", "∀x1.(pred1(x1) ∧ p2)", "∀x1 x2.pred1(x1,x2) ∧ p2", "p1 ∧ ∀x1.pred1(x1) ∧ p2",
 "∀x1.∃x2.pred1(x1,x2) → pred2(x1)", "∃x1.¬pred1(x1) ∨ pred2(x1) ∨ p3", "p1 ^ p2 ∨ p3", "p1 ∨ p2 ^ p3",
 "p1 ^ p2 → p3", "p1 → p2 → p3 → p4", "(p1 → p2) → p3", "p1 → (p2 → p3)", "¬(p1 → p2) → p3",
 "∀x1.pred1(x1) → ∃x2.pred2(x2) → p3", "∃x1.pred1(x1) ↔ p2", "¬¬p1 ∧ p2", "p1 -> p2 -> p3",
 "p1 & p2 | p3", "p1 | p2 & p3 -> p4", "all x1.pred1(x1) & p2", "exists x1.(pred1(x1) | p2) & p3",
 "∀x1 ∀x2 pred1(x1,x2) ∨ p2".replace("pred1(x1,x2) ∨ p2", "(pred1(x1,x2) ∨ p2)"),
 "∃x1. ¬pred3(p5, p1) ∧ pred7(p10, x1) ∧ ¬pred7(x1, p10)", "∀x1.¬pred1(x1) ∧ ¬pred2(x1) → p1",
 "p1 ↔ ¬p2 ∧ p3 ∨ p4", "(∀x1.pred1(x1)) ∧ p2", "∀x1.(∃x2.pred1(x1,x2)) ∨ pred2(x1)",
]
texts += [(t, "crafted") for t in crafted]
seen = set(t for t, _ in texts)
for f in sorted(glob.glob(sys.argv[1] + "/*/samples.jsonl")):
    run = f.split("/")[-2]
    if not (run.startswith("fol") or run.startswith("pl") or run.startswith("ksat")): continue
    if "perturb" in run: continue  # synthetic replies: not what models write
    for line in open(f, encoding="utf-8"):
        s = json.loads(line)
        for r in s["rounds"]:
            sp = r.get("phi1_span"); out = (r.get("autoformalize") or {}).get("output")
            if not sp or out is None: continue
            t = out.encode("utf-8")[sp[0]:sp[1]].decode("utf-8", "replace").strip()
            if t in seen or "_" in t or "\\" in t or "\n" in t: continue
            if re.search(r"\b(true|false|t|f)\b", t, re.I): continue
            seen.add(t); texts.append((t, f"{run}#{s['id']}"))
out = []
for t, src in texts:
    if src != "crafted" and sum(1 for o in out if o["source"] != "crafted") >= 400: break
    low = t.lower()
    try:
        e = str_to_expr(low)
        out.append({"text": low, "nltk": show(e), "source": src})
    except Exception:
        pass
for o in out:
    print(json.dumps(o, ensure_ascii=False))
print(len(out), "of", len(texts), file=sys.stderr)
