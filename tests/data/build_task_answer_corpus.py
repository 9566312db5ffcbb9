#!/usr/bin/env python3
"""Builds tests/data/task-answer-corpus.jsonl: replies to the reference tasks (FOLIO:
True/False/Uncertain; Multi-LogiEval: yes/no) in the shapes models write, each with the
answer a person reads in it, by construction. Reasoning bodies mention labels in passing
on purpose (premises that are "true", "no" inside sentences), so a reader that takes the
first label mentioned fails. Run it again after editing; the Rust test reads the file."""
import json
import itertools

out = []

folio_bodies = [
    "Reasoning Steps:\n1. Premise 1 is true for everyone who drinks coffee.\n2. Rina is a student, so premise 4 applies.\n3. Nothing says whether she wants to be addicted.",
    "Let's check each premise. It is true that all talent-show performers are engaged. It is false that Bonnie is inactive, by premise 6. We cannot conclude the claim either way from the rest.",
    "Step 1: From premise 2, either A or B.\nStep 2: If B, then C (premise 4), and C implies not D.\nStep 3: So the conclusion would be false if B held, true if A held.",
    "The premises establish that every dog is a mammal. The conclusion talks about cats, which no premise mentions; no, we cannot tell from the premises alone.",
    "Reasoning:\n- From P1 and P3, Tom is a student.\n- From P5, students are not chaperones.\n- Hence the conclusion follows directly.",
]
yesno_bodies = [
    "Reasoning steps: If James studies hard, he gets a good grade. James studies hard. No other condition is needed, so by modus ponens he gets a good grade.",
    "Reasoning steps:\n1. The context says whenever Katie follows the recipe the dish turns out well.\n2. Katie followed the recipe exactly.\n3. Is there anything saying no? No.",
    "Let's think step by step. Either Priya studies hard or she does not develop leadership skills. She has no free time, so she does not participate. Yes, the disjunction holds.",
    "The rule requires both conditions. Only one is given in the context; the other is not. We cannot say yes based on the context.",
    "Reasoning steps: The context gives a conditional and its consequent, not its antecedent. Affirming the consequent is invalid, so the answer cannot be derived that way.",
]

folio_formats = [
    ("Answer: {L}", "Answer:"),
    ("**Answer:** {L}", "bold Answer:"),
    ("Answer: **{L}**", "bold label"),
    ("Final Answer: {L}", "Final Answer:"),
    ("The answer is {L}.", "the answer is"),
    ("Therefore, the answer is **{L}**.", "therefore the answer is"),
    ("ANSWER: {l}", "upper marker, lower label"),
    ("$\\boxed{{{L}}}$", "boxed"),
    ("So the conclusion is {L}.", "the conclusion is (no Answer:)"),
    ("{L}", "closing label alone"),
    ("Answer - {L}", "Answer -"),
]
yesno_formats = [
    ("Answer: {L}", "Answer:"),
    ("**Answer:** {l}", "bold Answer:"),
    ("Answer: {L}.", "Answer: with full stop"),
    ("The answer is {l}.", "the answer is"),
    ("Final answer: {L}", "final answer:"),
    ("So my answer is {L}.", "my answer is"),
    ("\\boxed{{{l}}}", "boxed"),
    ("{L}", "closing label alone"),
    ("Answer: {L}, because the rule applies directly.", "label then reason on the line"),
]
folio_labels = [("True", "True"), ("False", "False"), ("Uncertain", "Uncertain"), ("Unknown", "Uncertain")]
yesno_labels = [("Yes", "yes"), ("No", "no")]

for body, (fmt, note), (word, want) in itertools.product(folio_bodies, folio_formats, folio_labels):
    if note == "boxed" and word == "Unknown":
        continue
    ans = fmt.format(L=word, l=word.lower())
    out.append({"set": "folio", "reply": body + "\n\n" + ans, "expect": want, "note": note})
for body, (fmt, note), (word, want) in itertools.product(yesno_bodies, yesno_formats, yesno_labels):
    ans = fmt.format(L=word, l=word.lower())
    out.append({"set": "yesno", "reply": body + "\n\n" + ans, "expect": want, "note": note})

# Corrections: the later, marked answer wins.
for body in folio_bodies[:3]:
    out.append({"set": "folio", "reply": body + "\nAnswer: True\nWait, premise 3 contradicts step 2.\nAnswer (corrected): False", "expect": "False", "note": "corrected answer"})
    out.append({"set": "folio", "reply": body + "\nMy first thought: Answer: False.\nOn reflection, premise 5 settles it.\nFinal Answer: True", "expect": "True", "note": "final after first"})
for body in yesno_bodies[:3]:
    out.append({"set": "yesno", "reply": body + "\nAnswer: Yes\nHmm, the antecedent is not given.\nCorrected answer: No", "expect": "no", "note": "corrected answer"})

# Reasoning models: a label inside the thinking, the answer after it.
for body, (word, want) in itertools.product(folio_bodies[:4], folio_labels[:3]):
    other = "False" if want != "False" else "True"
    out.append({"set": "folio", "reply": "<think>\nDraft: Answer: " + other + "\n" + body + "\n</think>\n\nAnswer: " + word, "expect": want, "note": "think block with a draft"})
    out.append({"set": "folio", "reply": "Draft: Answer: " + other + "\n" + body + "\n</think>\n\nAnswer: " + word, "expect": want, "note": "closing tag only (DeepSeek-R1)"})
for body, (word, want) in itertools.product(yesno_bodies[:3], yesno_labels):
    other = "No" if want == "yes" else "Yes"
    out.append({"set": "yesno", "reply": "<think>" + body + " Answer: " + other + "?</think>The answer is " + word.lower() + ".", "expect": want, "note": "think block with a draft"})

# No answer: unknown, never guessed.
none_folio = [
    ("Reasoning Steps:\n1. Premise 1 is true.\n2. Premise 2 is false for Rina.\n3. Let me consider premise 4", "truncated mid-reasoning"),
    ("Reasoning Steps:\n...\n\nAnswer: True/False/Uncertain", "template echoed"),
    ("Answer: True or False, depending on whether Rina is a student.", "two labels after the marker"),
    ("I cannot answer questions about people.", "refusal"),
    ("<think>\nThe conclusion is true by premise 2.\nLet me check premise 3", "unclosed think block"),
    ("", "empty reply"),
    ("The premises are consistent and the conclusion is interesting.", "no label"),
    ("Answer: It depends on premise 4 which is ambiguous here.", "marker without a label"),
]
none_yesno = [
    ("Reasoning steps: The context says if A then B. We know A", "truncated"),
    ("Answer: Yes/No", "template echoed"),
    ("I am not able to determine this from the context.", "no label"),
    ("<think>Yes, since A implies B... but wait", "unclosed think block"),
    ("The answer is that we cannot know from the context given here.", "marker without a label"),
]
for r, note in none_folio:
    out.append({"set": "folio", "reply": r, "expect": None, "note": note})
for r, note in none_yesno:
    out.append({"set": "yesno", "reply": r, "expect": None, "note": note})

# Hand-written shapes.
hand = [
    ("folio", "Step 1: premise 1 says all people who regularly drink coffee depend on caffeine, which is true of Rina.\nStep 2: ...\nAnswer:\nFalse", "False", "label on the line after the marker"),
    ("folio", "Based on the premises, the conclusion is **Uncertain**.", "Uncertain", "the conclusion is, bold"),
    ("folio", "Thus, the statement is false.", "False", "the statement is"),
    ("folio", "Reasoning Steps: ...\nAnswer: true", "True", "lowercase label"),
    ("folio", "Answer: FALSE", "False", "uppercase label"),
    ("folio", "The conclusion is true if Bonnie performs. Answer: Uncertain", "Uncertain", "weak marker then Answer:"),
    ("folio", "Answer: Uncertain. The premises do not determine whether it is true or false.", "Uncertain", "label then labels in the explanation"),
    ("folio", "> Answer: True", "True", "quoted"),
    ("folio", "### Answer\nTrue", "True", "heading then label"),
    ("yesno", "Yes.", "yes", "one word with a stop"),
    ("yesno", "**No**", "no", "bold alone"),
    ("yesno", "Reasoning steps: no rule gives it.\nAnswer: no", "no", "lower-case answer"),
    ("yesno", "Answer: Yes\n\nExplanation: no other premise blocks it.", "yes", "answer then explanation with no"),
    ("yesno", "Based on the context, the answer is yes.", "yes", "the answer is at the end"),
    ("yesno", "The answer is: No", "no", "answer is:"),
    ("yesno", "Reasoning steps: ... Therefore, yes, he will get a good grade.\n\nAnswer: Yes", "yes", "yes in the reasoning too"),
    ("yesno", "Is there a rule saying no? There is not.\nAnswer: Yes", "yes", "a 'no' in a question first"),
]
for s, r, want, note in hand:
    out.append({"set": s, "reply": r, "expect": want, "note": note})

with open("tests/data/task-answer-corpus.jsonl", "w", encoding="utf-8") as f:
    for o in out:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(len(out), "replies")
