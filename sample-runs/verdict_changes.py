#!/usr/bin/env python3
"""What `rescore` changed in each shipped run, by rule (used by sample-runs/rescore.sh).

Arguments: the autoeval binary, the folder holding `<run>/` rescored copies and
`<run>.txt` rescore outputs, and optionally --apply.
"""
import json, os, subprocess, sys

binary, tmp = sys.argv[1], sys.argv[2]
apply = '--apply' in sys.argv[3:]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)))


def latest(path):
    out = {}
    for line in open(path, encoding='utf-8'):
        if line.strip():
            r = json.loads(line)
            out[r['id']] = (r, line if line.endswith('\n') else line + '\n')
    return out


def totals(run_dir):
    o = subprocess.run([binary, 'report', run_dir, '--format', 'json'],
                       capture_output=True, text=True, check=True)
    t = json.loads(o.stdout)['runs'][0]['total']
    a2 = t['compliant'] / t['answered'] if t['answered'] else None
    a3 = t['accurate'] / t['n'] if t['n'] else None
    return t['n'], a2, a3


def pct(x):
    return '–' if x is None else f'{100 * x:.1f} %'


def deciding(r):
    rounds = r.get('rounds') or [{}]
    for rd in rounds:
        if rd.get('verdict', {}).get('verdict') != 'equivalent':
            return rd
    return rounds[-1]


def same_but_timing(a, b):
    strip = lambda r: {**r, 'rounds': [{k: v for k, v in rd.items() if k != 'verify_ms'}
                                       for rd in r.get('rounds', [])]}
    return strip(a) == strip(b)


def reason(v):
    return v.get('detail') or v.get('reason') or v.get('message') or ''


def short(s, n=70):
    s = ' '.join(str(s).split()).replace('|', '\\|')
    return s if len(s) <= n else s[:n - 1] + '…'


def why(old, new):
    ov, nv = old['verdict'], new['verdict']
    o, n = ov['verdict'], nv['verdict']
    if n == 'copied' and o != 'copied':
        return 'copy rule: ψ writes φ₀', reason(nv)
    if o == 'copied' and n != 'copied':
        return 'copy rule: ψ is a description', 'was: ' + reason(ov)
    if n == 'unparseable' and reason(nv).startswith('off-format: several different answers'):
        return 'extraction: several different answers', reason(nv)
    op, np_ = deciding(old).get('phi1'), deciding(new).get('phi1')
    notes = ' '.join(nv.get('notes') or [])
    raw = ((deciding(new).get('autoformalize') or {}).get('output') or '')
    if 'recased:' in notes:
        return 'notation: name recased to the vocabulary', notes
    if np_ and ('⊤' in np_ or '⊥' in np_):
        return 'notation: truth constants', f'φ₁ = {np_}'
    if 'introduces' in reason(ov) and '_' in reason(ov):
        return 'notation: subscripts outside LaTeX', 'was: ' + reason(ov)
    if new.get('syntax') == 'regex' and '{' in raw and o != n:
        return 'notation: bounded repetition', f'φ₁ = {np_}'
    if 'reading:' in notes:
        return 'notation: reading convention (noted)', notes
    if o == 'unparseable' and np_:
        return 'extraction: answer shape now read', f'φ₁ = {np_}'
    if n == 'unparseable':
        return 'extraction: answer refused', reason(nv)
    if op != np_:
        return 'extraction: another candidate', f'φ₁ {op} → {np_}'
    return 'verification', f'{reason(ov)} → {reason(nv)}'


runs = sorted(d for d in os.listdir(root) if os.path.exists(os.path.join(root, d, 'run.json')))
per_run, changes, needs = [], [], []
for name in runs:
    src = os.path.join(root, name)
    old = latest(os.path.join(src, 'samples.jsonl'))
    new = latest(os.path.join(tmp, name, 'samples.jsonl'))
    text = open(os.path.join(tmp, name + '.txt'), encoding='utf-8').read()
    left = {}
    for line in text.splitlines():
        if line.startswith('  ') and ': ' in line:
            i, w = line.strip().split(': ', 1)
            if i in old and i not in new:
                left[i] = w
    merged = []
    for i, (r, line) in old.items():
        if i in new:
            nr, nline = new[i]
            # Only the verification time differs: keep the line as it was.
            merged.append(line if same_but_timing(r, nr) else nline)
            if r['verdict']['verdict'] != nr['verdict']['verdict']:
                rule, detail = why(r, nr)
                changes.append((name, i, r['verdict']['verdict'], nr['verdict']['verdict'], rule, detail))
        else:
            merged.append(line)
            needs.append((name, i, r['verdict']['verdict'], left.get(i, 'left out')))
    with open(os.path.join(tmp, name, 'samples.jsonl'), 'w', encoding='utf-8') as f:
        f.writelines(merged)
    idx = os.path.join(tmp, name, '.autoeval-index')
    if os.path.exists(idx):
        os.remove(idx)
    before, after = totals(src), totals(os.path.join(tmp, name))
    per_run.append((name, before, after, sum(1 for c in changes if c[0] == name),
                    sum(1 for x in needs if x[0] == name)))
    if apply:
        with open(os.path.join(src, 'samples.jsonl'), 'w', encoding='utf-8') as f:
            f.writelines(merged)
        if os.path.exists(os.path.join(src, '.autoeval-index')):
            os.remove(os.path.join(src, '.autoeval-index'))

md = []
md.append('| run | n | A2 before → after | A3 before → after | verdicts changed | need a reply |')
md.append('|---|---|---|---|---|---|')
for name, b, a, nch, nneed in per_run:
    md.append(f'| {name} | {a[0]} | {pct(b[1])} → {pct(a[1])} | {pct(b[2])} → {pct(a[2])} | {nch} | {nneed} |')
md.append('')
by_rule = {}
for c in changes:
    by_rule[c[4]] = by_rule.get(c[4], 0) + 1
md.append('| rule | verdicts changed |')
md.append('|---|---|')
for r, k in sorted(by_rule.items(), key=lambda x: -x[1]):
    md.append(f'| {r} | {k} |')
md.append('')
md.append('| run | id | before | after | rule | detail |')
md.append('|---|---|---|---|---|---|')
for name, i, o, n, rule, detail in changes:
    md.append(f'| {name} | {i} | {o} | {n} | {rule} | {short(detail)} |')
md.append('')
if needs:
    md.append(f'{len(needs)} sample(s) keep their old record because the new rules need a model '
              'reply the run never asked for (listed in `needs-replies.tsv`; '
              '`autoeval run --resume` with the run\'s model and dataset asks for them):')
    md.append('')
    md.append('| run | ids |')
    md.append('|---|---|')
    grouped = {}
    for name, i, _, _ in needs:
        grouped.setdefault(name, []).append(i)
    for name, ids in grouped.items():
        md.append(f'| {name} | {", ".join(ids)} |')
    md.append('')
table = '\n'.join(md)
print(table)
if apply:
    with open(os.path.join(root, 'needs-replies.tsv'), 'w', encoding='utf-8') as f:
        f.write('run\tid\tverdict\twhy\n')
        for name, i, v, w in needs:
            f.write(f'{name}\t{i}\t{v}\t{w}\n')
    readme = os.path.join(root, 'README.md')
    text = open(readme, encoding='utf-8').read()
    begin, end = '<!-- rescore:begin -->', '<!-- rescore:end -->'
    if not changes:
        # The table records the last rescore that changed verdicts; a rescore that
        # changes none (closeness values only) keeps it rather than write all zeros.
        print('no verdict changed: the table in sample-runs/README.md is kept', file=sys.stderr)
    elif begin in text and end in text:
        a, b = text.index(begin) + len(begin), text.index(end)
        text = text[:a] + '\n' + table + '\n' + text[b:]
        open(readme, 'w', encoding='utf-8').write(text)
    else:
        print('sample-runs/README.md has no rescore markers: table not written', file=sys.stderr)
