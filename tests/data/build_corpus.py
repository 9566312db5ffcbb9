#!/usr/bin/env python3
"""Collects real model replies into the extraction corpus (tests/data/extraction-corpus.jsonl).

Sources: the shipped real-model runs in sample-runs/ (every stored model reply: the
informalization continuations of the Gemma base model, the autoformalization replies of
the Qwen runs) and hand-written hostile cases (tests/data/hostile-replies.jsonl).
Existing entries keep their reviewed expectations; new entries get none until
`AUTOEVAL_BLESS=1 cargo test --test it extraction_corpus::` fills them in for review.
"""
import glob, json, os, sys

root = os.path.join(os.path.dirname(__file__), '..', '..')
out_path = os.path.join(root, 'tests', 'data', 'extraction-corpus.jsonl')
old = {}
if os.path.exists(out_path):
    for l in open(out_path, encoding='utf-8'):
        e = json.loads(l)
        old[(e['reply'], e['phi0'], e.get('psi'))] = e

entries = []
def add(e):
    key = (e['reply'], e['phi0'], e.get('psi'))
    if key in old:
        e['expect'] = old[key].get('expect')
    if any((x['reply'], x['phi0'], x.get('psi')) == key for x in entries):
        return
    entries.append(e)

runs = sorted(glob.glob(os.path.join(root, 'sample-runs', '*', 'run.json')))
for extra in sys.argv[1:]:
    runs += sorted(glob.glob(os.path.join(extra, '*', 'run.json')))
for m in runs:
    d = os.path.dirname(m)
    man = json.load(open(m, encoding='utf-8'))
    if man['model'].get('synthetic') or man['model']['provider'] in ('perturb', 'imported'):
        continue
    shots = man['prompts']['shots']
    src = os.path.basename(d)
    for l in open(os.path.join(d, 'samples.jsonl'), encoding='utf-8'):
        r = json.loads(l)
        for rd in r['rounds']:
            psi = rd.get('psi')
            a = rd.get('autoformalize') or {}
            if a.get('output') is not None:
                add({'source': f'{src}#{r["id"]}/autoformalize', 'syntax': r['syntax'], 'phi0': rd['input'],
                     'psi': psi, 'shots': shots, 'reply': a['output']})
            elif psi:
                # A reply to the informalization prompt, read as if it answered the
                # autoformalization: the base model's template continuations are the
                # hostile chatter extraction must refuse or read correctly.
                add({'source': f'{src}#{r["id"]}/informalize', 'syntax': r['syntax'], 'phi0': rd['input'],
                     'psi': None, 'shots': None, 'reply': psi})

hostile = os.path.join(root, 'tests', 'data', 'hostile-replies.jsonl')
for l in open(hostile, encoding='utf-8'):
    if l.strip():
        e = json.loads(l)
        e.setdefault('source', 'hand-written')
        e.setdefault('psi', None)
        e.setdefault('shots', None)
        add(e)

with open(out_path, 'w', encoding='utf-8') as f:
    for e in entries:
        f.write(json.dumps(e, ensure_ascii=False) + '\n')
print(f'{len(entries)} entries ({sum(1 for e in entries if e.get("expect") is None)} without expectation)', file=sys.stderr)
