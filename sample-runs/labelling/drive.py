#!/usr/bin/env python3
"""Apply a label plan through the real viewer in tmux: usage drive.py RUN_DIR PLAN ANNOTATOR [--blind]

With --blind the viewer runs as `autoeval view --blind` (the annotator's own shuffled
order, outcomes hidden until labelled); set AUTOEVAL=path to choose the binary."""
import os, subprocess, sys, time, re
run, plan_file, who = sys.argv[1:4]
blind = '--blind' in sys.argv[4:]
binary = os.environ.get('AUTOEVAL', 'autoeval')
plan = {}
for line in open(plan_file):
    parts = line.split()
    if len(parts) >= 2: plan[parts[0]] = (parts[1], ' '.join(parts[2:]))
S = 'drv'
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
sh('new', '-d', '-s', S, '-x', '160', '-y', '45', f'AUTOEVAL_ANNOTATOR={who} {binary} view {"--blind " if blind else ""}{run}')
time.sleep(1.5)
keys('g'); time.sleep(0.3); keys('a'); time.sleep(0.3)
done = set(); last = None; steps = 0
while len(done) < len(plan) and steps < 100000:
    steps += 1
    i = sel()
    if i is None: print('no selection visible'); break
    if i in plan and i not in done:
        ks, note = plan[i]
        for ch in ks:
            keys('-l', ch); time.sleep(0.12)
        if note:
            keys('-l', 'm'); time.sleep(0.15); keys('-l', note); time.sleep(0.15); keys('Enter'); time.sleep(0.2)
        time.sleep(0.2)
        done.add(i)
    if i == last and i in done and steps > 1:
        # bottom of the list reached
        break
    last = i
    keys('j'); time.sleep(0.15)
keys('Escape'); time.sleep(0.2); keys('q'); time.sleep(0.5)
sh('kill-session', '-t', S)
missing = set(plan) - done
print(f'{run}: applied {len(done)} of {len(plan)}; missing {sorted(missing)}')
