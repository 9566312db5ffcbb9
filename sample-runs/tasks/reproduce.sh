#!/usr/bin/env bash
# Rebuilds the reference-task sample runs (issue 34) with the offline model: three
# synthetic "models" (perturb at rates 0.1, 0.3, 0.5 with model seeds 1, 2, 3), each on
# a small ∀uto∃∨∧L FOL run and on 30 items of every reference task. Run from the
# repository root: bash sample-runs/tasks/reproduce.sh
set -euo pipefail
AE=${AUTOEVAL:-target/debug/autoeval}
D=sample-runs/tasks
for spec in "0.1 1" "0.3 2" "0.5 3"; do
  set -- $spec
  rate=$1; seed=$2
  m=(--model perturb --perturb-rate "$rate" --model-seed "$seed" --quiet)
  rm -rf "$D/fol-perturb-$rate"
  "$AE" run --kind fol --seed 1 --per-category 2 "${m[@]}" --out "$D/fol-perturb-$rate"
  for task in folio-r-nl folio-r-fol folio-a folio-i multi-logieval-pl multi-logieval-fol; do
    rm -rf "$D/$task-perturb-$rate"
    "$AE" run --task "$task" --limit 30 "${m[@]}" --out "$D/$task-perturb-$rate" 2>/dev/null
  done
done
rm -f "$D"/*/run.lock
