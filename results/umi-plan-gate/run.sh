#!/usr/bin/env bash
# The alpha-UMi planner's role choice from the query's call plan (agents.plan_gate), scored on
# the planner steps already recorded: no model runs here.
# 1. choose.py: every rule on the held-out dev steps of the seed-0 and seed-1 planners
#    (results/umi-stop-gate/dev-seed*); the rule fixed before any test step was gated:
#    the highest Plan ACC on seed 0's dev steps, ties to the least overriding -> choice.md/.json
# 2. each committed test run (the 329 held-out steps, p400 planners of seeds 0-3, with their
#    callers and summarizers) copied into a new folder and scored with the chosen rule
#    (`eval stepwise --plan-gate RULE`: all steps recorded, so no model is loaded);
#    `toollearn score --run DIR --check` recomputes each.
# 3. compare: the test runs under every rule (choose.py again, for the record; chosen on dev).
#    bash results/umi-plan-gate/run.sh
set -euo pipefail
source .venv/bin/activate
HERE=results/umi-plan-gate
DEV=results/umi-stop-gate
python "$HERE/choose.py" "$DEV/dev-seed0" "$DEV/dev-seed1" --out "$HERE/choice.json" \
  > "$HERE/choice.md"
RULE=$(python -c "import json; print(json.load(open('$HERE/choice.json'))['rule'])")

gated() {  # $1: source run, $2: new folder, then the source run's engine options
  local src=$1 out=$2
  shift 2
  mkdir -p "$out"
  [ -f "$out/predictions.jsonl" ] || cp "$src/predictions.jsonl" "$src/sessions.jsonl" "$out/"
  toollearn eval stepwise --file "$FILE" --engine llama "$@" --plan-gate "$RULE" --out "$out" \
    > "$out/table.txt"
}
FILE=$DEV/dev-set/trajectories_dev.json
gated "$DEV/dev-seed0" "$HERE/dev-seed0" --roles planner --stop-scores --caller llama \
  --summarizer llama \
  --planner llama@runs/train/umi-135m-p400r/single/adapter.gguf+runs/train/umi-135m-p400r/planner/adapter.gguf
FILE=results/datagen/umi/trajectories_test.json
gated results/stepwise-umi-135m-p400 "$HERE/test-seed0" --role-adapters runs/train/umi-135m-p400
for k in 1 2 3; do
  gated "results/stepwise-umi-135m-p400-seed$k" "$HERE/test-seed$k" \
    --role-adapters "runs/train/umi-135m-p400-seed$k"
done
python "$HERE/choose.py" "$HERE"/test-seed{0,1,2,3} --compare --out "$HERE/test-rules.json" \
  > "$HERE/test-rules.md"
for run in "$HERE"/dev-seed0 "$HERE"/test-seed{0,1,2,3}; do
  toollearn score --run "$run" --check > /dev/null
done
# 4. where requests are not explicit: the 16 shipped demo trajectories (natural one-sentence
#    queries, "What is (3 + 4) * 5?"), the base model's committed stepwise runs, every rule
python "$HERE/choose.py" results/stepwise-multi-constrained results/stepwise-multi --compare \
  --out "$HERE/demo-rules.json" > "$HERE/demo-rules.md"
