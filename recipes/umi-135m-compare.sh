#!/usr/bin/env bash
# alpha-UMi on this CPU: GLPFT against the direct multi-role baseline at the same budget.
# Trains both (recipes/umi-135m.yaml, and the same with --glpft direct; one thread each, side by
# side), then scores both on the 329 held-out steps with alpha-UMi's step-level protocol, as four
# 1-thread shards each, as many workers as cores free up, then merged and scored unsharded.
# Rerunning resumes everything: finished stages and shards are kept (RESUME=true after a cut).
#   bash recipes/umi-135m-compare.sh          -> runs/stepwise-umi-135m{,-direct}
#   bash recipes/umi-135m-compare.sh worker   one more evaluation worker (a core set free)
#   bash recipes/umi-135m-compare.sh score    merge the shards and score both runs
set -uo pipefail
source .venv/bin/activate
R=${RESUME:-false}
TEST=results/datagen/umi/trajectories_test.json
declare -A TRAIN=([glpft]=runs/train/umi-135m [direct]=runs/train/umi-135m-direct)
declare -A OUT=([glpft]=runs/stepwise-umi-135m [direct]=runs/stepwise-umi-135m-direct)
mkdir -p runs/logs runs/locks

train() {  # $1: glpft|direct
  local extra=()
  [ "$1" = direct ] && extra=(--glpft direct --output-dir "${TRAIN[direct]}")
  toollearn train --config recipes/umi-135m.yaml "${extra[@]}" --threads 1 --max-minutes 150 \
    --resume "$R" > "runs/logs/umi-$1.log" 2>&1
}

shard() {  # $1: glpft|direct, $2: K
  toollearn eval stepwise --file "$TEST" --threads 1 --engine llama \
    --role-adapters "${TRAIN[$1]}" --shard "$2/4" --out "${OUT[$1]}-s$2" \
    > "runs/logs/umi-eval-$1-s$2.log" 2>&1
}

worker() {  # takes the next unclaimed shard whose adapters are trained
  for job in direct:1 direct:2 direct:3 direct:4 glpft:1 glpft:2 glpft:3 glpft:4; do
    local mode=${job%:*} k=${job#*:}
    mkdir "runs/locks/umi-$mode-$k" 2>/dev/null || continue
    until [ -f "${TRAIN[$mode]}/adapters.json" ]; do sleep 60; done
    shard "$mode" "$k"
  done
}

score() {
  for mode in glpft direct; do
    out=${OUT[$mode]}
    toollearn runs merge --out "$out" "$out"-s{1,2,3,4}
    toollearn eval stepwise --file "$TEST" --threads 1 --engine llama \
      --role-adapters "${TRAIN[$mode]}" --out "$out"
  done
}

case "${1:-all}" in
  worker) worker ;;
  score) score ;;
  all) rm -rf runs/locks/umi-*; (train direct; worker) & (train glpft; worker) & wait; score ;;
esac
