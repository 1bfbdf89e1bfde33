#!/usr/bin/env bash
# The alpha-UMi planner's stop gate (agents.stop_gate): conclude only when the planner's
# log p(conclusion thought) is above a threshold chosen on a dev set, then the test set once.
# 1. the dev set: 120 trajectories of the training pool that no p400 stage (nor the seed-1
#    planner) drew (dev-set/)
# 2. p400's planner again: stage 1 and the planner stage of recipes/umi-135m-planner.sh (400
#    planner samples, one thread: p400's settings) in runs/train/umi-135m-p400r; SEED=1 trains
#    the seed-1 planner on that stage 1 (as REUSE=... SEED=1 in the recipe) in ...-p400r-seed1
# 3. the planner alone (--roles planner) on dev with its stop scores; choose.py picks the
#    threshold by the rule fixed before it ran (highest dev Plan ACC, ties to the lowest)
# 4. the test set, the planner alone, gated at that threshold (greedy's Plan ACC beside it)
# Each eval runs as two 1-thread shards (runs/umi-stop-gate), merged here and scored unsharded;
# reruns resume.   bash results/umi-stop-gate/run.sh;  SEED=1 bash results/umi-stop-gate/run.sh
set -euo pipefail
source .venv/bin/activate
HERE=results/umi-stop-gate
BASE=runs/train/umi-135m-p400r
SEED=${SEED:-0}
TAG=seed$SEED
RUN=$BASE
[ "$SEED" = 0 ] || RUN=$BASE-seed$SEED
PLANNER="llama@$RUN/single/adapter.gguf+$RUN/planner/adapter.gguf"
mkdir -p runs/logs

[ -f "$HERE/dev-set/trajectories_dev.json" ] || toollearn datagen umi-dev \
  --trajectories runs/data/umi/trajectories_train.json \
  --trained results/train/umi-135m-p400/{single,planner,caller,summarizer}/train.json \
  results/train/umi-135m-p400-seed1/planner/train.json \
  --test results/datagen/umi/trajectories_test.json -n 120 --seed 1 --out "$HERE/dev-set"

train() {  # $1: output folder, then stages; p400's recipe, samples and thread count
  local out=$1
  shift
  toollearn train --config recipes/umi-135m.yaml --output-dir "$out" --threads 1 \
    --max-minutes 150 --stage-samples planner=432 "$@"
}
[ -f "$BASE/single/train.json" ] || train "$BASE" --seed 0 --set stages=single \
  > runs/logs/umi-p400r-single.log 2>&1
if [ ! -f "$RUN/planner/train.json" ]; then
  mkdir -p "$RUN"
  [ -d "$RUN/single" ] || cp -r "$BASE/single" "$RUN/single"
  train "$RUN" --seed "$SEED" --set stages=planner > "runs/logs/umi-p400r-$TAG-planner.log" 2>&1
fi

stepwise() {  # $1: trajectory file, $2: out, then options; two shards, merged, scored
  local file=$1 out=$2 name
  name=$(basename "$out")
  shift 2
  for k in 1 2; do
    toollearn eval stepwise --file "$file" --threads 1 --engine llama --planner "$PLANNER" \
      --caller llama --summarizer llama --roles planner "$@" --shard "$k/2" \
      --out "runs/umi-stop-gate/$name-s$k" > "runs/logs/umi-stop-gate-$name-s$k.log" 2>&1 &
  done
  wait
  toollearn runs merge --out "$out" "runs/umi-stop-gate/$name-s1" "runs/umi-stop-gate/$name-s2"
  toollearn eval stepwise --file "$file" --threads 1 --engine llama --planner "$PLANNER" \
    --caller llama --summarizer llama --roles planner "$@" --out "$out"
}

[ -f "$HERE/dev-$TAG/scores.json" ] || stepwise "$HERE/dev-set/trajectories_dev.json" \
  "$HERE/dev-$TAG" --stop-scores
python "$HERE/choose.py" "$HERE/dev-$TAG" "$HERE/choice-$TAG.json" > "$HERE/choice-$TAG.md"
T=$(python -c "import json; print(json.load(open('$HERE/choice-$TAG.json'))['threshold'])")
stepwise results/datagen/umi/trajectories_test.json "$HERE/test-$TAG" --stop-threshold "$T"
