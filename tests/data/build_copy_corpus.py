#!/usr/bin/env python3
"""Collects every real informalization ψ in sample-runs/ with its φ₀ into the copy corpus
(tests/data/copy-corpus.jsonl). Existing entries keep their reviewed expectations; new
ones get none until `AUTOEVAL_BLESS=1 cargo test --test it copy_corpus::` fills them in for
review (`{"copied": [start, end, detail]}` or `{"copied": null}`).
"""
import glob, json, os

root = os.path.join(os.path.dirname(__file__), '..', '..')
out_path = os.path.join(root, 'tests', 'data', 'copy-corpus.jsonl')
old = {}
if os.path.exists(out_path):
    for l in open(out_path, encoding='utf-8'):
        e = json.loads(l)
        old[(e['psi'], e['phi0'])] = e
entries, seen = [], set()
for m in sorted(glob.glob(os.path.join(root, 'sample-runs', '*', 'run.json'))):
    d = os.path.dirname(m)
    man = json.load(open(m, encoding='utf-8'))
    if man['model'].get('synthetic') or man['model']['provider'] in ('perturb', 'imported'):
        continue
    for l in open(os.path.join(d, 'samples.jsonl'), encoding='utf-8'):
        r = json.loads(l)
        for rd in r['rounds']:
            psi = rd.get('psi')
            key = (psi, rd['input'])
            if not psi or key in seen:
                continue
            seen.add(key)
            e = {'source': f'{os.path.basename(d)}#{r["id"]}', 'syntax': r['syntax'],
                 'phi0': rd['input'], 'psi': psi}
            e['expect'] = old.get(key, {}).get('expect')
            entries.append(e)
with open(out_path, 'w', encoding='utf-8') as f:
    for e in entries:
        f.write(json.dumps(e, ensure_ascii=False, sort_keys=True) + '\n')
print(f'{len(entries)} entries', flush=True)
