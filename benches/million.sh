#!/usr/bin/env bash
# Makes the scale benchmark's runs with the offline `perturb` model: 10 run directories
# (4 PL, 3 FOL, 3 regex, each its own seed) under OUT/runs. Resumable: finished runs
# are kept, unfinished ones are resumed.
#
#   bash benches/million.sh                 # ≈ 1,000,000 samples (51 batches a run)
#   LIMIT=10000 bash benches/million.sh target/bench-data/100k   # ≈ 100,000
#   LIMIT=1000  bash benches/million.sh target/bench-data/10k    # ≈ 10,000
#
# Then measure with `cargo bench --bench scale -- --bench OUT/runs`.
set -euo pipefail
A=${AUTOEVAL:-target/release/autoeval}
OUT=${1:-target/bench-data/million}
BATCHES=${BATCHES:-51}
LIMIT=${LIMIT:-}
if [ ! -x "$A" ]; then
  echo "build first: cargo build --release (or set AUTOEVAL=path/to/autoeval)" >&2
  exit 2
fi
if [ -n "$LIMIT" ]; then
  # ~1,900 samples a batch: generate only what the limit needs.
  BATCHES=$(( (LIMIT + 1899) / 1900 ))
fi
mkdir -p "$OUT/ds" "$OUT/runs"
for spec in pl:1 pl:2 pl:3 pl:4 fol:1 fol:2 fol:3 regex:1 regex:2 regex:3; do
  kind=${spec%:*}
  seed=${spec#*:}
  name=$kind-$seed
  run=$OUT/runs/$name
  if [ -f "$run/run.json" ] && grep -q '"status": "finished"' "$run/run.json"; then
    echo "$name: finished already"
    continue
  fi
  ds=$OUT/ds/$name.json
  [ -f "$ds" ] || "$A" generate --kind "$kind" --seed "$seed" --batches "$BATCHES" --quiet --out "$ds"
  resume=()
  [ -f "$run/run.json" ] && resume=(--resume)
  limit=()
  [ -n "$LIMIT" ] && limit=(--limit "$LIMIT")
  start=$(date +%s)
  "$A" run --dataset "$ds" --model perturb --concurrency 32 --quiet --out "$run" \
    "${limit[@]}" "${resume[@]}"
  echo "$name: $(wc -l < "$run/samples.jsonl") samples in $(( $(date +%s) - start )) s"
done
du -sh "$OUT/runs"
