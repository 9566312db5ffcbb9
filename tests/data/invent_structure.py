"""Writes the invented replies of issue 33's structural extraction rule (source
`invented-33s/…`) into tests/data/extraction-corpus.jsonl: each template filled with
formulas of PL, FOL and regex runs; the expectation is the formula the template
puts where a reader finds the answer (its byte span), or the several-answers refusal.
Run once; re-running replaces the `invented-33s` entries."""
import json, os, re

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
path = os.path.join(root, 'tests', 'data', 'extraction-corpus.jsonl')

# (syntax, φ₀ = the right answer, a wrong answer over the same vocabulary)
SETS = [
    ('pl', '¬(p6 ∨ p7) ∧ p2', '(p6 ∨ p7) ∧ p2'),
    ('fol', '∀x1.∃x2.pred2(x1,x2)', '∃x2.∀x1.pred2(x1,x2)'),
    ('regex', '(01)*1', '(01)*'),
    ('pl', 'p9 ↔ (p1 ∨ ¬p4)', 'p9 → (p1 ∨ ¬p4)'),
    ('fol', '∃x1.(likes(x1,vera) ∧ ¬hates(vera,x1))', '∃x1.(likes(x1,vera) ∧ hates(vera,x1))'),
    ('regex', '0(10)*', '0(10*)'),
]

# name, template ({f}: the answer, {g}: a wrong one, {noun}), expectation ('f', 'several'
# for the several-answers refusal, 'refused' for unparseable: two different formulas in
# prose are no answer, the reason is the first parse error and is blessed by the test
# (AUTOEVAL_BLESS=1) and reviewed into REFUSED below), syntaxes it applies to
T = [
    ('span-sentence', 'Reading it again, I get {f} as the formalization.', 'f', 'all'),
    ('span-go-with', "I'd go with {f} here.", 'f', 'all'),
    ('span-yields-parens', 'Putting the pieces together yields {f} (checked against the description).', 'f', 'all'),
    ('span-becomes', 'Since the description negates the first part, the {noun} becomes {f}, as required.', 'f', 'all'),
    ('span-arrow', "Here's my translation ➜ {f}", 'f', 'all'),
    ('span-fat-arrow', 'Formal version => {f}', 'f', 'all'),
    ('span-semicolon', 'Mapping each clause gives us {f}; nothing else is needed.', 'f', 'all'),
    ('span-we-need', 'We need the {noun} {f} to capture the description.', 'f', 'all'),
    ('span-emoji', '✅ Looks right: {f} ✅', 'f', 'all'),
    ('span-twice', 'In symbols: {f}. Written plainly that is {f} again.', 'f', 'all'),
    ('actually', 'Answer: {g}\n\nHmm, no. The answer is actually {f}.', 'f', 'all'),
    ('second-thought', 'I initially thought {g}. On second thought, {f} fits better.', 'f', 'all'),
    ('update', "Answer: {g}\nUpdate: the description says 'not', so the answer becomes {f}.", 'f', 'all'),
    ('fixed', 'Draft: {g}\nThat misses a part, so the fixed version reads {f}.', 'f', 'all'),
    ('finally', 'First attempt: {g}\nSecond attempt: {g}\nFinally, {f} is what the description says.', 'f', 'all'),
    ('correction-paren', 'Answer: {g}\n(Correction: {f})', 'f', 'all'),
    ('final-inline', 'My final {noun} is {f} and I am confident in it.', 'f', 'all'),
    ('hence', 'Step 1: {g}\nStep 2: fix the part the description negates.\nHence {f}.', 'f', 'all'),
    ('so-tail', 'The description says it twice, so {f}', 'f', 'all'),
    ('which-gives', 'Combine the clauses, which gives {f}.', 'f', 'all'),
    ('so-explains-after', 'Answer: {f}\nSo {g} would be wrong.', 'f', 'all'),
    ('quote-mid', 'The expression "{f}" is my answer.', 'f', 'all'),
    ('backtick-mid', 'I believe `{f}` matches the description best.', 'f', 'all'),
    ('latex-paren-mid', 'The answer reads \\({f}\\) in the end.', 'f', 'all'),
    ('walrus-aside', 'Let φ₁ := {f} (this is the answer).', 'f', 'all'),
    ('regex-fullmatch', 're.fullmatch(r"{f}", s) is what I would use.', 'f', 'regex'),
    ('regex-slashes-mid', 'Use /{f}/ for this.', 'f', 'regex'),
    ('two-unmarked', 'Either {g} could be meant, or perhaps {f}.', 'refused', 'logic'),
    # "tempting" rejects its clause (issue 47): the other formula is the answer.
    ('two-unmarked-still', '{g} is tempting. Still, {f} is closer.', 'f', 'logic'),
    ('two-unmarked-lines', '{g} is tempting.\nStill, {f} is closer.', 'f', 'all'),
]


# The reviewed parse errors of the refused replies: (template, φ₀) → reason. Two
# different formulas in prose are no answer; the reply is unparseable as written.
REFUSED = {
    ('two-unmarked', '¬(p6 ∨ p7) ∧ p2'): "expected ',' or ')' in arguments, found '∨'",
    ('two-unmarked', '∀x1.∃x2.pred2(x1,x2)'): "unexpected '∃'",
    ('two-unmarked', 'p9 ↔ (p1 ∨ ¬p4)'): "unexpected name 'p9'",
    ('two-unmarked', '∃x1.(likes(x1,vera) ∧ ¬hates(vera,x1))'): "unexpected '∃'",
}


def short(s):
    return s[:40] + ('…' if len(s) > 40 else '')


def fill(template, f, g, noun):
    """The reply and the character offsets of each {f} and {g}."""
    out, spans = '', {'f': [], 'g': []}
    for part in re.split(r'(\{f\}|\{g\}|\{noun\})', template):
        if part == '{f}':
            spans['f'].append(len(out)); out += f
        elif part == '{g}':
            spans['g'].append(len(out)); out += g
        elif part == '{noun}':
            out += noun
        else:
            out += part
    return out, spans


def byte(s, i):
    return len(s[:i].encode())


entries = []
for name, template, want, which in T:
    sets = [s for s in SETS if which == 'all' or s[0] == which or (which == 'logic' and s[0] != 'regex')]
    for syntax, f, g in sets:
        noun = 'regular expression' if syntax == 'regex' else 'formula'
        reply, at = fill(template, f, g, noun)
        if want == 'f':
            # The answer is the only {f}; written twice, the first, except that a regex
            # token in prose is read last first (rule 4).
            i = at['f'][-1] if syntax == 'regex' else at['f'][0]
            expect = {'formula': f, 'span': [byte(reply, i), byte(reply, i + len(f))]}
        elif want == 'refused':
            expect = {'unparseable': REFUSED.get((name, f), "unexpected name 'is'")}
        else:
            expect = {'off_format': "off-format: several different answers ('%s' and '%s') and none marked as the answer" % (short(g), short(f))}
        entries.append({'expect': expect, 'phi0': f, 'psi': None, 'reply': reply,
                        'shots': None, 'source': 'invented-33s/' + name, 'syntax': syntax})

kept = [l for l in open(path, encoding='utf-8') if l.strip() and '"invented-33s/' not in l]
with open(path, 'w', encoding='utf-8') as out:
    out.writelines(kept)
    for e in entries:
        out.write(json.dumps(e, ensure_ascii=False, sort_keys=True) + '\n')
print(len(entries), 'invented-33s entries;', len(kept) + len(entries), 'in all')
