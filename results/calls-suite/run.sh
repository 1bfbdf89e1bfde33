#!/usr/bin/env bash
# The general suite on the whole test split (1,423 items), in process: the base model, the
# papers' adapter that `tuned` was before (tools-135m, now `tuned-papers`) without and with the
# call gate, `tuned-agent`, and the shipped general adapter (`tuned`) with each gate and the
# clause plan on and off. Runs with a variant take the plain run's answers where the variant
# would not change them (`--reuse`: exact under greedy constrained decoding), so run the plain
# one first. `general` runs as two shards, one per core, merged. `default` is the default
# preset (`toollearn.policy`: the general adapter behind the call gate, the clause plan's calls
# in one turn, the repair loop with its grounded check), as `call`, `run` and `serve` run it;
# `general-gate-plan-batch` the default before the grounded check, `general-gate-plan-reply`
# the one before that (one planned call a turn). The dev-* runs (the dev split's quick subset, 200
# items) chose what ships: which adapter is `tuned`, which gates and plan the default preset
# keeps.
# `tuned` was the first stage (recipes/data/general-135m-stage1.gguf) until the second stage
# shipped on 2026-12-03 (`more`, `more-default`), the second until the GPU-trained adapter
# shipped on 2026-12-04 (`gpu`, `gpu-default`; `dev-gpu*` chose it): to predict an earlier run
# again from scratch, name its adapter's file (`--engine tuned:$STAGE1` for `--model tuned`); a
# run folder refuses to continue with another adapter than the one that wrote it.
# Usage: bash results/calls-suite/run.sh [NAME ...]   (default: all; resumable)
set -euo pipefail
cd "$(dirname "$0")/../.."
TL=${TL:-.venv/bin/toollearn}
R=results/calls-suite
MORE=${MORE:-results/train/general-135m-more/adapter.gguf}  # the second stage
STAGE1=recipes/data/general-135m-stage1.gguf  # the first stage (general-135m's adapter before)
GPU=results/train/general-135m-gpu/adapter.gguf  # the GPU recipe's (recipes/general-135m-gpu)
run() {  # NAME ARGS...
  local name=$1; shift
  "$TL" eval calls --split test --threads 1 --out "$R/$name" "$@"  # a later --split wins
}
sharded() {  # NAME ARGS...: two shards side by side, then merged into NAME
  local name=$1; shift
  [ -f "$R/$name/scores.json" ] && return
  run "$name.shard1" --shard 1/2 "$@" & local first=$!
  run "$name.shard2" --shard 2/2 "$@"
  wait "$first"
  "$TL" runs merge "$R/$name.shard1" "$R/$name.shard2" --out "$R/$name"
  rm -r "$R/$name.shard1" "$R/$name.shard2"
  run "$name" "$@"  # nothing left to predict: scores the merged run (scores.json)
}
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(base tools-135m tools-135m-gate tuned-agent general general-gate
  general-gate-nosure general-plan general-gate-plan-reply general-gate-plan-batch default)
for name in "${names[@]}"; do
  case $name in
    base) run base --model base ;;
    tools-135m) run tools-135m --model tuned-papers ;;
    tools-135m-gate) run tools-135m-gate --model tuned-papers --call-gate --reuse "$R/tools-135m" ;;
    tuned-agent) sharded tuned-agent --model tuned-agent ;;
    general) sharded general --model tuned ;;
    general-gate) sharded general-gate --model tuned --call-gate --reuse "$R/general" ;;
    general-gate-nosure)
      sharded general-gate-nosure --model tuned --call-gate --no-sure-call --reuse "$R/general" ;;
    general-plan) sharded general-plan --model tuned --plan due --reuse "$R/general" ;;
    general-gate-plan-reply)
      sharded "$name" --model tuned --call-gate --plan due-reply --reuse "$R/general" ;;
    general-gate-plan-batch)
      sharded "$name" --model tuned --call-gate --plan batch --repairs --reuse "$R/general" ;;
    default) sharded default --model tuned --call-gate --plan batch \
      --repairs cut_off,schema,grounded,uses_results --reuse "$R/general" ;;
    dev-base) run "$name" --model base --split dev --quick ;;
    dev-tools-135m) run "$name" --model tuned-papers --split dev --quick ;;
    dev-tuned-agent) run "$name" --model tuned-agent --split dev --quick ;;
    dev-general) run "$name" --model tuned --split dev --quick ;;
    dev-general-gate) run "$name" --model tuned --split dev --quick --call-gate \
      --reuse "$R/dev-general" ;;
    dev-general-plan) run "$name" --model tuned --split dev --quick --plan due \
      --reuse "$R/dev-general" ;;
    dev-general-gate-plan) run "$name" --model tuned --split dev --quick --call-gate --plan due \
      --reuse "$R/dev-general" ;;
    dev-general-gate-plan-reply) run "$name" --model tuned --split dev --quick --call-gate \
      --plan due-reply --reuse "$R/dev-general" ;;
    dev-general-gate-plan-batch) run "$name" --model tuned --split dev --quick --call-gate \
      --plan batch --reuse "$R/dev-general" ;;
    dev-general-gate-plan-batch-repairs) run "$name" --model tuned --split dev --quick \
      --call-gate --plan batch --repairs --reuse "$R/dev-general" ;;
    dev-grounded) run "$name" --model tuned --split dev --quick --call-gate --plan batch \
      --repairs cut_off,schema,grounded --reuse "$R/dev-general" ;;
    dev-multi-turn-grounded) run "$name" --model tuned --split dev --category multi-turn \
      --call-gate --plan batch --repairs cut_off,schema,grounded ;;
    dev-multi-turn-default) run "$name" --model tuned --split dev --category multi-turn \
      --call-gate --plan batch --repairs cut_off,schema,grounded,uses_results ;;
    dev-default) run "$name" --model tuned --split dev --quick --call-gate --plan batch \
      --repairs cut_off,schema,grounded,uses_results --reuse "$R/dev-general" ;;
    dev-multi-turn-facts) run "$name" --model tuned --split dev --category multi-turn \
      --call-gate --plan batch --repairs cut_off,schema,grounded,uses_results ;;
    dev-more) run "$name" --engine "tuned:$MORE" --split dev --quick ;;
    dev-more-default) run "$name" --engine "tuned:$MORE" --split dev --quick --call-gate \
      --plan batch --repairs cut_off,schema,grounded,uses_results --reuse "$R/dev-more" ;;
    dev-chat-base) run "$name" --model base --split dev --category chat ;;
    dev-chat-general) run "$name" --engine "tuned:$STAGE1" --split dev --category chat ;;
    dev-chat-more) run "$name" --engine "tuned:$MORE" --split dev --category chat ;;
    dev-gpu) run "$name" --engine "tuned:$GPU" --split dev --quick ;;
    dev-gpu-default) run "$name" --engine "tuned:$GPU" --split dev --quick --call-gate \
      --plan batch --repairs cut_off,schema,grounded,uses_results --reuse "$R/dev-gpu" ;;
    dev-chat-gpu) run "$name" --engine "tuned:$GPU" --split dev --category chat ;;
    dev-gpu-gate) run "$name" --engine "tuned:$GPU" --split dev --quick --call-gate \
      --reuse "$R/dev-gpu" ;;
    dev-gpu-plan) run "$name" --engine "tuned:$GPU" --split dev --quick --plan batch \
      --reuse "$R/dev-gpu" ;;
    dev-gpu-repairs) run "$name" --engine "tuned:$GPU" --split dev --quick \
      --repairs cut_off,schema,grounded,uses_results --reuse "$R/dev-gpu" ;;
    dev-gpu-gate-repairs) run "$name" --engine "tuned:$GPU" --split dev --quick --call-gate \
      --repairs cut_off,schema,grounded,uses_results --reuse "$R/dev-gpu" ;;
    gpu) sharded gpu --engine "tuned:$GPU" ;;
    gpu-default) sharded gpu-default --engine "tuned:$GPU" --call-gate --plan batch \
      --repairs cut_off,schema,grounded,uses_results --reuse "$R/gpu" ;;
    gpu-default-open) sharded "$name" --engine "tuned:$GPU" --call-gate --plan batch \
      --repairs cut_off,schema,grounded,uses_results --reuse "$R/gpu" ;;
    dev-gpu-default-open) run "$name" --engine "tuned:$GPU" --split dev --quick --call-gate \
      --plan batch --repairs cut_off,schema,grounded,uses_results --reuse "$R/dev-gpu" ;;
    more) sharded more --engine "tuned:$MORE" ;;
    more-default) sharded more-default --engine "tuned:$MORE" --call-gate --plan batch \
      --repairs cut_off,schema,grounded,uses_results --reuse "$R/more" ;;
    dev-general-gate-nosure) run "$name" --model tuned --split dev --quick --call-gate \
      --no-sure-call --reuse "$R/dev-general" ;;
    dev-tuned-agent-gate-plan) run "$name" --model tuned-agent --split dev --quick --call-gate \
      --plan due --reuse "$R/dev-tuned-agent" ;;
    *) echo "unknown run $name" >&2; exit 2 ;;
  esac
done
