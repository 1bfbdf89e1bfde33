#!/usr/bin/env bash
# The general agent end to end (`toollearn run`'s default: the tool-calls format, constrained,
# behind the shipped call gate) on the 100 held-out alpha-UMi trajectories, tools simulated
# (`eval episodes --agent tool-calls`): the embedded model as released (base), with the shipped
# tools-135m adapter (tuned), and with tools-135m plus the tools-135m-agent adapter stacked on
# it (agent: `toollearn train --config recipes/tools-135m-agent.yaml` first), or with the
# GPU-trained second adapters instead (gpu-r16, gpu-r4: results/train/tools-135m-agent-gpu,
# their adapter.gguf in runs/train/agent-gpu-<r>-all), or with the CPU-trained rank-4 adapter
# of results/train/tools-135m-agent-r4/recipe.yaml (agent-r4: whole trajectories, the loss on every turn),
# or with the same recipe on every trajectory (agent-r4-all: recipes/tools-135m-agent-r4-all.yaml,
# a multi-session run; shipped as agent-135m.gguf, the `tuned-agent` engine), or with it on data
# whose tasks show 2-8 tools, give-ups alike (agent-r4-varied:
# recipes/tools-135m-agent-r4-varied.yaml), or with agent-r4-all's adapter trained further on
# episodes over ToolDEER's natural queries (agent-r5-natural:
# results/train/tools-135m-agent-r5-natural/recipe.yaml; agent-r6-close: its data without parallel requests,
# with close distractors and half replay, results/train/tools-135m-agent-r6-close/recipe.yaml; agent-r7-close-lr1e4:
# the same at half the learning rate, results/train/tools-135m-agent-r7-close-lr1e4/recipe.yaml).
# SPLIT=dev runs the 120 dev trajectories (results/umi-stop-gate/dev-set, out of the GPU runs'
# data) into dev-NAME instead; SPLIT=fresh runs 200 fresh held-out trajectories
# (results/datagen/umi-fresh-test: `datagen umi --seed 1`, none of their queries in the test or
# dev sets) into fresh-NAME, the test that settled r4-all against r6-close; SPLIT=fresh2 the
# second fresh set (results/datagen/umi-fresh-test-2, for r8-mixed) into fresh2-NAME; SPLIT=fresh3
# the third (results/datagen/umi-fresh-test-3, for the mixes of r4-all's and r8-mixed's adapters:
# `toollearn export mix` at 0.5 / 0.5 into runs/train/tools-135m-agent-mix-r4-r8, agent-mix-r4-r8,
# and at 0.25 / 0.75 into runs/train/tools-135m-agent-mix-r8-75, agent-mix-r8-75) into fresh3-NAME.
# The runs made before the call gate's sure-call threshold (2026-11-29) pass --no-sure-call so
# they run as they did; NAME-sure-call runs NAME's engine with it (the default now), and
# NAME-rerun runs NAME again into a new folder (agent-r4-all-rerun: the same run on this machine).
# NAME-plan-due and NAME-plan-order run NAME following the query's call plan (--plan due|order,
# agents.clause_plan; results/agent-plan), as they were made: without the plan's distinct
# margin and unfit gap (--plan-margin -1 --plan-unfit-gap -1; results/agent-plan-distinct,
# results/agent-plan-unfit). NAME-plan-gap runs NAME with the plan as `toollearn run` follows it
# now: --plan due --plan-margin 0.06 --plan-unfit-gap 0.15.
# Each run: two 1-thread shards side by side (runs/episodes-tool-calls), merged here and
# scored unsharded; reruns resume.      bash results/episodes-tool-calls/run.sh [NAME...]
set -euo pipefail
source .venv/bin/activate
HERE=results/episodes-tool-calls
FILE=results/datagen/umi/trajectories_test.json PREFIX=
if [[ ${SPLIT:-test} == dev ]]; then
  FILE=results/umi-stop-gate/dev-set/trajectories_dev.json PREFIX=dev-
elif [[ ${SPLIT:-test} == fresh ]]; then
  FILE=results/datagen/umi-fresh-test/trajectories_test.json PREFIX=fresh-
elif [[ ${SPLIT:-test} == fresh2 ]]; then
  FILE=results/datagen/umi-fresh-test-2/trajectories_test.json PREFIX=fresh2-
elif [[ ${SPLIT:-test} == fresh3 ]]; then
  FILE=results/datagen/umi-fresh-test-3/trajectories_test.json PREFIX=fresh3-
fi
AGENT=runs/train/tools-135m-agent/adapter.gguf
mkdir -p runs/logs

episodes() {  # $1: name, $2: engine spec; two shards, merged, scored
  local name=$PREFIX$1 engine=$2 k sure=(--no-sure-call)
  [[ $1 == *-sure-call* ]] && sure=()
  [[ $1 == *-plan-due ]] && sure+=(--plan due --plan-margin -1 --plan-unfit-gap -1)
  [[ $1 == *-plan-order ]] && sure+=(--plan order --plan-margin -1 --plan-unfit-gap -1)
  [[ $1 == *-plan-gap ]] && sure+=(--plan due --plan-margin 0.06 --plan-unfit-gap 0.15)
  for k in 1 2; do
    toollearn eval episodes --agent tool-calls --file "$FILE" --engine "$engine" --threads 1 \
      "${sure[@]}" --shard "$k/2" --out "runs/episodes-tool-calls/$name-s$k" \
      > "runs/logs/episodes-tool-calls-$name-s$k.log" 2>&1 &
  done
  wait
  toollearn runs merge --out "$HERE/$name" "runs/episodes-tool-calls/$name-s1" \
    "runs/episodes-tool-calls/$name-s2"
  toollearn eval episodes --agent tool-calls --file "$FILE" --engine "$engine" --threads 1 \
    "${sure[@]}" --out "$HERE/$name"
}

names=("$@")
[ $# -gt 0 ] || names=(tuned base agent)
for name in "${names[@]}"; do
  adapter=${name%-rerun}
  adapter=${adapter%-plan-due}
  adapter=${adapter%-plan-order}
  adapter=${adapter%-plan-gap}
  adapter=${adapter%-sure-call}
  case $adapter in
    tuned) episodes "$name" tuned ;;
    base) episodes "$name" base ;;
    agent) episodes "$name" "tuned:src/toollearn/models/tools-135m.gguf+$AGENT" ;;
    agent-r4 | agent-r4-all | agent-r4-varied | agent-r5-natural | agent-r6-close | agent-r7-close-lr1e4 | agent-r8-mixed \
      | agent-mix-r4-r8 | agent-mix-r8-75)
      episodes "$name" "tuned:src/toollearn/models/tools-135m.gguf+runs/train/tools-135m-$adapter/adapter.gguf" ;;
    gpu-r16 | gpu-r4)
      episodes "$name" "tuned:src/toollearn/models/tools-135m.gguf+runs/train/agent-${adapter}-all/adapter.gguf" ;;
    *) echo "unknown run $name" >&2; exit 2 ;;
  esac
done
