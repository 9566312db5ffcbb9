"""Writes the invented replies of issue 47 (source `invented-47/…`) into
tests/data/extraction-corpus.jsonl: the status of each candidate in a reply —
rejected ("tempting but wrong", "not", "instead of", "first attempt"), superseded
("Wait, actually", a code line before one commented `# corrected`), chosen by
reference ("I choose candidate 2", "option B", "the second one") — and the shapes
`\\boxed{}`, inline code spans and "complete/full/final formula". Each template is
filled with formulas of PL, FOL and regex runs; the expectation is the formula a
careful reader takes (its byte span), or the off-format reason when the reply's only
formula is rejected. Run once; re-running replaces the `invented-47` entries."""
import json, os, re

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
path = os.path.join(root, 'tests', 'data', 'extraction-corpus.jsonl')

# (syntax, φ₀ = the right answer, a wrong answer, a part of the right one)
SETS = [
    ('pl', '¬(p6 ∨ p7) ∧ p2', '(p6 ∨ p7) ∧ p2', '¬(p6 ∨ p7)'),
    ('fol', '∀x1.∃x2.pred2(x1,x2)', '∃x2.∀x1.pred2(x1,x2)', '∃x2.pred2(x1,x2)'),
    ('regex', '(01)*1', '(01)+1', '(01)*'),
    ('pl', 'p9 ↔ (p1 ∨ ¬p4)', 'p9 → (p1 ∨ ¬p4)', 'p1 ∨ ¬p4'),
    ('fol', '∃x1.(likes(x1,vera) ∧ ¬hates(vera,x1))', '∃x1.(likes(x1,vera) ∧ hates(vera,x1))', '¬hates(vera,x1)'),
    ('regex', '0(10)*', '0(10*)', '(10)*'),
]

# name, template ({f}: the answer, {g}: a wrong one, {p}: a part of the answer,
# {noun}), which {f} holds the answer (index, -1 the last), or 'rejected' (the only
# formula is rejected: off-format)
T = [
    # The shapes of the issue.
    ('tempting-but-wrong', 'The {noun} is {f}. A tempting but wrong alternative would be {g} …', 0),
    ('code-first-attempt', '```\n{g}   # first attempt\n{f}   # corrected\n```', 0),
    ('wait-actually', 'The {noun} is {g}. Wait, actually … so it is {f}.', 0),
    ('complete-after-part', 'The first part is {p}. The complete {noun} is {f}.', 0),
    ('backtick-mid-sentence', 'Reading the description again, `{f}` is what I would submit.', 0),
    ('boxed-dollar', 'Therefore the answer is $\\boxed{{f}}$.', 0),
    ('candidate-choice', 'Candidate 1: {g}\nCandidate 2: {f}\nI choose candidate 2, i.e. {f}.', 0),
    # Rejected in prose.
    ('not-comma', 'The {noun} is {f}, not {g}.', 0),
    ('not-but', 'Not {g}, but {f}.', 0),
    ('not-backticks-but', 'Not `{g}` but `{f}`.', 0),
    ('instead-of', 'Use {f} instead of {g}.', 0),
    ('instead-of-front', 'Instead of {g}, the {noun} should read {f}.', 0),
    ('rather-than', 'I would write {f} rather than {g}.', 0),
    ('unlike', 'Unlike {g}, the {noun} {f} keeps every part of the description.', 0),
    ('wrong-sentence', '{g} is wrong. The right {noun} is {f}.', 0),
    ('incorrect-label', 'Incorrect: {g}\nCorrect: {f}', 0),
    ('first-attempt-label', 'First attempt: {g}\nThat misses a part.\nSecond attempt: {f}', 0),
    ('mistake-anaphor', 'My first instinct was {g}, but that is a mistake; the answer is {f}.', 0),
    ('that-is-wrong', 'Answer: {g}\nHmm, that is wrong. Answer: {f}', 0),
    ('scratch-that', 'The {noun} is {g}. Scratch that: the {noun} is {f}.', 0),
    ('too-weak', '{g} is too weak; {f} captures the description.', 0),
    ('not-quite', '{g} is not quite right. The {noun} is {f}.', 0),
    ('tempting-comma', '{g} is tempting, but the {noun} is {f}.', 0),
    ('would-be-wrong', 'The {noun} is {f}; writing {g} would be wrong.', 0),
    ('does-not-work', 'Trying {g} first: that does not work. The {noun} is {f}.', 0),
    ('wrong-after-answer', 'Answer: {f}\n\nA common wrong answer is {g}.', 0),
    ('incorrect-note', 'Note that {g} would be incorrect here, so I give {f}.', 0),
    ('misread', 'I first wrote {g}. I misread it, so it is {f}.', 0),
    ('only-rejected', 'A tempting answer would be {g}, but I am not sure.', 'rejected'),
    ('only-wrong', '{g} is wrong.', 'rejected'),
    # Superseded.
    ('wait-no', 'The {noun} is {g}.\nWait, no: {f}.', 0),
    ('hmm-actually', 'Answer: {g}\nHmm, actually {f}.', 0),
    ('should-be', 'I wrote {g} above, but it should be {f}.', 0),
    ('correct-noun', 'My draft was {g}. The correct {noun} is {f}.', 0),
    ('wait-actually-newline', 'The {noun} is {g}.\nWait, actually, that misses something. It is {f}.', 0),
    # Markers of the whole answer after its parts.
    ('full-after-part', 'First, {p} covers the first clause. The full {noun} is {f}.', 0),
    ('final-after-part', 'We start from {p}. Adding the rest, the final {noun} is {f}.', 0),
    ('complete-bold', 'The inner part is {p}.\n\n**Complete formula:** {f}', 0),
    ('complete-lines', 'Part: {p}\nComplete formula:\n{f}', 0),
    # Code blocks and their comments.
    ('code-comment-lines', '```\n# wrong\n{g}\n# right\n{f}\n```', 0),
    ('code-fixed', '```\n{g}\n{f}  // fixed\n```', 0),
    ('code-draft-final', '```\n{g}  # draft\n{f}  # final\n```', 0),
    ('code-answer-comment', '```\n{g}\n{f}  # answer\n```', 0),
    ('code-own-line-attempt', '```\n# first attempt: {g}\n{f}\n```', 0),
    ('code-incorrect-inline', '```\n{f}\n{g}  # incorrect, kept for reference\n```', 0),
    # Chosen by reference.
    ('option-letter', 'Option A: {g}\nOption B: {f}\nOption B is correct.', 0),
    ('second-one', 'Option 1: {g}\nOption 2: {f}\nThe second one matches the description, so I pick it.', 0),
    ('choose-first', 'Candidate A: {f}\nCandidate B: {g}\nI choose candidate A.', 0),
    ('last-one', 'Version 1: {g}\nVersion 2: {f}\nI will go with the last one.', 0),
    ('bold-options', '**Option A:** {g}\n**Option B:** {f}\n\nI select option B.', 0),
    ('candidate-dashes', 'Candidate 1: {f} — keeps the negation\nCandidate 2: {g} — drops it\nThe answer is candidate 1.', 0),
    ('alternative-right-one', 'Alternative 1: {g}\nAlternative 2: {f}\nAlternative 2 is the right one.', 0),
    ('prefer', 'Option A: {f}\nOption B: {g}\nI prefer option A because it keeps every part.', 0),
    ('first-option', 'Option 1: {f}\nOption 2: {g}\nThe first option is correct.', 0),
    # Boxed answers and inline code.
    ('boxed-bare', '\\boxed{{f}}', 0),
    ('boxed-display', '$$\n\\boxed{{f}}\n$$', 0),
    ('boxed-mid', 'The answer is \\boxed{{f}} after simplifying.', 0),
    ('boxed-after-part', 'The part {p} comes first.\n\nFinal answer: $\\boxed{{f}}$', 0),
    ('backtick-comma', 'The {noun} we want is `{f}`, matching both clauses.', 0),
    ('backtick-after-rejected', 'Not `{g}`: the {noun} is `{f}`.', 0),
    ('backtick-choose', 'I settle on `{f}` for this one.', 0),
]


def short(s):
    return s[:40] + ('…' if len(s) > 40 else '')


def fill(template, f, g, p, noun):
    """The reply and the character offsets of each {f}."""
    out, at = '', []
    for part in re.split(r'(\{f\}|\{g\}|\{p\}|\{noun\})', template):
        if part == '{f}':
            at.append(len(out)); out += f
        elif part == '{g}':
            out += g
        elif part == '{p}':
            out += p
        elif part == '{noun}':
            out += noun
        else:
            out += part.replace('{{', '{').replace('}}', '}')
    return out, at


def byte(s, i):
    return len(s[:i].encode())


entries = []
for name, template, want in T:
    for syntax, f, g, p in SETS:
        noun = 'regular expression' if syntax == 'regex' else 'formula'
        reply, at = fill(template, f, g, p, noun)
        if want == 'rejected':
            expect = {'off_format': "off-format: the reply rejects '%s'" % short(g)}
        else:
            i = at[want]
            expect = {'formula': f, 'span': [byte(reply, i), byte(reply, i + len(f))]}
        entries.append({'expect': expect, 'phi0': f, 'psi': None, 'reply': reply,
                        'shots': None, 'source': 'invented-47/' + name, 'syntax': syntax})

kept = [l for l in open(path, encoding='utf-8') if l.strip() and '"invented-47/' not in l]
with open(path, 'w', encoding='utf-8') as out:
    out.writelines(kept)
    for e in entries:
        out.write(json.dumps(e, ensure_ascii=False, sort_keys=True) + '\n')
print(len(T), 'templates,', len(entries), 'invented-47 entries;', len(kept) + len(entries), 'in all')
