#!/usr/bin/env python3
"""Settle disagreements through the viewer's adjudication layer (`A`) in tmux.

usage: adjudicate.py RUN_DIR PLAN ADJUDICATOR
PLAN lines are `ID KEYS NOTE` (KEYS: the taxonomy keys of the settled label). The layer
starts from the categories every annotator named, so the script types the keys of the
categories to add or remove, then Enter. The decisions are the adjudicator's; the
script only types them. Set AUTOEVAL=path to choose the binary."""
import json, os, re, subprocess, sys, time, tomllib
run, plan_file, who = sys.argv[1:4]
binary = os.environ.get('AUTOEVAL', 'autoeval')
here = os.path.dirname(os.path.abspath(__file__))
tax = tomllib.load(open(os.path.join(here, '../../src/labels/taxonomy.toml'), 'rb'))['category']
key_of = {c['id']: c['key'] for c in tax}
plan = {}
for line in open(plan_file):
    p = line.split()
    if len(p) >= 2:
        plan[p[0]] = p[1]
# The newest label per (sample, annotator), adjudicated ones aside.
last = {}
for line in open(os.path.join(run, 'labels.jsonl')):
    r = json.loads(line)
    if r['annotator'] != 'adjudicated':
        last[(r['id'], r['annotator'])] = set(r['categories'])
S = 'adj'
def sh(*a): return subprocess.run(['tmux', *a], capture_output=True, text=True).stdout
def keys(*k): sh('send-keys', '-t', S, *k)
def screen(): return sh('capture-pane', '-p', '-t', S)
def sel():
    for _ in range(40):
        m = re.search(r'[┌┏] Sample (\S+) ·', screen())
        if m: return m.group(1)
        time.sleep(0.05)
    return None
sh('kill-session', '-t', S)
sh('new', '-d', '-s', S, '-x', '160', '-y', '45', f'AUTOEVAL_ANNOTATOR={who} {binary} view {run}')
time.sleep(1.5)
keys('g'); time.sleep(0.3)
done = set(); last_id = None; steps = 0
while len(done) < len(plan) and steps < 10000:
    steps += 1
    i = sel()
    if i is None: print('no selection visible'); break
    if i in plan and i not in done:
        sets = [c for (sid, _), c in last.items() if sid == i]
        start = set.intersection(*sets) if sets else set()
        target_keys = set(plan[i])
        start_keys = {key_of[c] for c in start}
        keys('A'); time.sleep(0.3)
        if 'Adjudicate sample' not in screen():
            print(f'{i}: the layer did not open'); keys('Escape'); done.add(i); continue
        for ch in sorted(start_keys ^ target_keys):
            keys('-l', ch); time.sleep(0.12)
        keys('Enter'); time.sleep(0.3)
        done.add(i)
    if i == last_id and steps > 1:
        break
    last_id = i
    keys('j'); time.sleep(0.15)
keys('q'); time.sleep(0.5)
sh('kill-session', '-t', S)
print(f'{run}: settled {len(done)} of {len(plan)}; missing {sorted(set(plan) - done)}')
