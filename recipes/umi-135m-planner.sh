#!/usr/bin/env bash
# alpha-UMi GLPFT on this CPU with more planner data: recipes/umi-135m.yaml, except that the
# planner stage draws N samples (default 432: 400 to train + 32 held out) instead of 232. The
# 200-sample planner missed Plan ACC 85 (results/stepwise-umi-135m); the GPU run with 2,000 per
# stage reached 91. Stage 1 first (one thread, as in the 200-sample run, so its adapter can be
# compared bit for bit); then the planner on one core beside the caller and the summarizer on
# the other; then the 329 held-out steps as two 1-thread shards, merged and scored unsharded.
# Rerunning resumes: finished stages and predicted steps are kept. REUSE=DIR copies stage 1,
# the caller and the summarizer from an earlier run of this script (they do not depend on the
# planner's sample count) and trains only the planner, on THREADS threads (default 1). SEED=K
# (default 0) draws the planner's samples and their order with another seed (tag suffix -seedK).
# STYLE=counted trains on recipes/umi-135m-counted.yaml (numbered planner rationales) and scores
# on its test set (results/datagen/umi-counted): tag prefix counted-.
#   bash recipes/umi-135m-planner.sh [N]   -> runs/train/umi-135m-p$((N-32)), runs/stepwise-...
#   REUSE=runs/train/umi-135m-p400 THREADS=2 bash recipes/umi-135m-planner.sh 632
#   REUSE=runs/train/umi-135m-p400 SEED=1 bash recipes/umi-135m-planner.sh   -> ...-p400-seed1
#   REUSE=runs/train/umi-135m-p400 STYLE=counted bash recipes/umi-135m-planner.sh
#     -> runs/train/umi-135m-counted-p400, runs/stepwise-umi-135m-counted-p400
set -euo pipefail
source .venv/bin/activate
N=${1:-432}
CONFIG=recipes/umi-135m.yaml
TEST=results/datagen/umi/trajectories_test.json
TAG=p$((N - 32))${SEED:+-seed$SEED}
if [ "${STYLE:-plain}" = counted ]; then
  CONFIG=recipes/umi-135m-counted.yaml
  TEST=results/datagen/umi-counted/trajectories_test.json
  TAG=counted-$TAG
fi
OUT=runs/train/umi-135m-$TAG
EVAL=runs/stepwise-umi-135m-$TAG
mkdir -p runs/logs

train() {  # the recipe with the planner's sample count; "$@": which stages now
  toollearn train --config "$CONFIG" --output-dir "$OUT" --threads "${THREADS:-1}" \
    --max-minutes 150 --stage-samples "planner=$N" --seed "${SEED:-0}" "$@"
}

shard() {  # $1: K of 2
  toollearn eval stepwise --file "$TEST" --threads 1 --engine llama --role-adapters "$OUT" \
    --shard "$1/2" --out "$EVAL-s$1" > "runs/logs/umi-$TAG-eval-s$1.log" 2>&1
}

if [ -n "${REUSE:-}" ]; then
  mkdir -p "$OUT"
  for stage in single caller summarizer; do
    [ -d "$OUT/$stage" ] || cp -r "$REUSE/$stage" "$OUT/$stage"
  done
  train --set stages=planner > "runs/logs/umi-$TAG-planner.log" 2>&1
else
  train --set stages=single > "runs/logs/umi-$TAG-single.log" 2>&1
  train --set stages=planner > "runs/logs/umi-$TAG-planner.log" 2>&1 &
  train --set stages=caller,summarizer > "runs/logs/umi-$TAG-roles.log" 2>&1 &
  wait
fi
train > "runs/logs/umi-$TAG-join.log" 2>&1  # every stage kept: writes adapters.json
shard 1 & shard 2 & wait
toollearn runs merge --out "$EVAL" "$EVAL-s1" "$EVAL-s2"
toollearn eval stepwise --file "$TEST" --threads 1 --engine llama --role-adapters "$OUT" \
  --out "$EVAL"
