#!/usr/bin/env bash
# Rescores every run in this folder with the current scoring rules (copy check,
# extraction, verification; no model calls) and says what changed: per run A2/A3
# before → after, and every sample whose verdict changed, with the rule that changed it.
#
#   bash sample-runs/rescore.sh           # report only (markdown on stdout)
#   bash sample-runs/rescore.sh --apply   # also rewrite each run's samples.jsonl and the
#                                         # table in sample-runs/README.md
#
# A sample whose new score needs a model reply that was never asked for (ψ is no longer
# a copy, so the autoformalization was never called) keeps its old record; it is listed
# in needs-replies.tsv, and `autoeval run --resume` with the run's model asks for it.
set -euo pipefail
cd "$(dirname "$0")/.."
# AUTOEVAL=path uses that binary (e.g. a release build); otherwise a debug build.
if [ -z "${AUTOEVAL:-}" ]; then cargo build --quiet; fi
A=${AUTOEVAL:-./target/debug/autoeval}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in sample-runs/*/run.json; do
  d=$(dirname "$m")
  n=$(basename "$d")
  "$A" rescore "$d" --out "$tmp/$n" > "$tmp/$n.txt"
done
python3 sample-runs/verdict_changes.py "$A" "$tmp" "$@"
