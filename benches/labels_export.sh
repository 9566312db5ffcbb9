#!/usr/bin/env bash
# Benchmarks for issue 24 on the release binary, as processes (like `report` in the
# scale benchmark): `labels stats` with bootstrap intervals on 10,000 labels from
# 5 annotators, `leaderboard` over a folder of runs, `export --format inspect` and
# `--format jsonl-flat` of the largest run. Prints wall time and peak RSS.
#
#   bash benches/million.sh target/bench-data/million     # or LIMIT=10000 … 100k
#   bash benches/labels_export.sh target/bench-data/100k/runs
set -euo pipefail
A=${AUTOEVAL:-target/release/autoeval}
RUNS=${1:?usage: labels_export.sh RUNS_DIR}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
measure() { # label, command…
  local label=$1; shift
  /usr/bin/time -f "%e s, %M KB" -o "$WORK/time" "$@" > "$WORK/out" 2> "$WORK/err" || {
    cat "$WORK/err" >&2; exit 1; }
  printf '%-60s %s\n' "$label" "$(cat "$WORK/time")"
}
# The largest run, copied so its labels file is ours.
big=$(for r in "$RUNS"/*/; do printf '%s %s\n' "$(wc -l < "$r/samples.jsonl")" "$r"; done | sort -n | tail -1 | cut -d' ' -f2)
cp -r "$big" "$WORK/run"
# 10,000 labels: 2,000 samples × 5 annotators, categories drawn with a fixed seed so
# annotators agree often but not always.
grep -m 2000 -o '^{"id":"[^"]*"' "$WORK/run/samples.jsonl" | cut -d'"' -f4 |
  awk 'BEGIN { srand(7); split("negation-misplaced and-or-swap scope-not-conveyed incomplete term-omitted off-format quantifier-swap", C, " ") }
       { base = C[int(rand() * 7) + 1]
         for (a = 1; a <= 5; a++) {
           c = (rand() < 0.8) ? base : C[int(rand() * 7) + 1]
           extra = (rand() < 0.2) ? ",\"" C[int(rand() * 7) + 1] "\"" : ""
           printf "{\"id\":\"%s\",\"categories\":[\"%s\"%s],\"note\":\"\",\"annotator\":\"ann%d\",\"time\":\"2026-11-24T09:00:00Z\"}\n", $1, c, extra, a
         } }' > "$WORK/run/labels.jsonl"
echo "labels: $(wc -l < "$WORK/run/labels.jsonl") in $(basename "$big") ($(wc -l < "$WORK/run/samples.jsonl") samples)"
"$A" report "$WORK/run" > /dev/null 2>&1   # builds the copy's row index
measure "labels stats (10,000 labels, 5 annotators, 1,000 bootstrap)" "$A" labels stats "$WORK/run"
grep -E "^  overall" "$WORK/out" | head -1
measure "labels stats --json" "$A" labels stats --json "$WORK/run"
n=$(cat "$RUNS"/*/samples.jsonl | wc -l)
measure "leaderboard over $n samples in $(ls -d "$RUNS"/*/ | wc -l) runs" "$A" leaderboard "$RUNS"
measure "leaderboard --format latex" "$A" leaderboard --format latex "$RUNS"
measure "export --format inspect ($(wc -l < "$WORK/run/samples.jsonl") samples)" "$A" export "$WORK/run" --format inspect --out "$WORK/inspect"
ls -la "$WORK/inspect" | tail -1
measure "export --format jsonl-flat (same run)" "$A" export "$WORK/run" --format jsonl-flat --out "$WORK/flat"
