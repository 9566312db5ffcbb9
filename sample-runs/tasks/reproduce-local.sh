#!/usr/bin/env bash
# Runs the six reference tasks (issue 34) with a real local model served by
# ../shared/tools/local-llm.sh (llama.cpp, OpenAI-compatible, loopback), N items each
# (`--limit` spreads them over the task's categories), resumable: run it again after a
# kill and it resumes. Run from the repository root:
#   AUTOEVAL_LLM_MODEL=qwen-0.5b bash ../shared/tools/local-llm.sh start 8088
#   bash sample-runs/tasks/reproduce-local.sh qwen2.5-coder-0.5b-instruct qwen-0.5b 20
set -euo pipefail
ALIAS=${1:?served model alias}; NAME=${2:?short name for the run folders}; N=${3:-20}
AE=${AUTOEVAL:-target/debug/autoeval}
BASE=${BASE_URL:-http://127.0.0.1:8088/v1}
D=sample-runs/tasks
export LOCAL_LLM_KEY=${LOCAL_LLM_KEY:-local}
for task in ${TASKS:-folio-r-nl folio-r-fol multi-logieval-pl multi-logieval-fol folio-a folio-i}; do
  out=$D/$task-$NAME
  resume=()
  [ -f "$out/run.json" ] && resume=(--resume)
  "$AE" run --task "$task" --limit "$N" --model "openai:$ALIAS" --base-url "$BASE" \
    --api-key-env LOCAL_LLM_KEY --concurrency 1 --request-timeout 300 --max-tokens 512 \
    --temperature 0 --no-cache --quiet "${resume[@]}" --out "$out"
  rm -f "$out/run.lock"
done
