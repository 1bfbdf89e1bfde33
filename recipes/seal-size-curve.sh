#!/usr/bin/env bash
# The Seal-Tools data-size curve: adapters trained on 25 / 50 / 100% of a 320-sample Seal-Tools
# budget (recipes/seal-size-135m.yaml), each evaluated on the same fixed test subset (shard 1/4
# of the whole Seal-Tools test set, 339 queries, constrained, paper candidates) and compared on
# the ids all runs finished, the zero-shot base first.
#   bash recipes/seal-size-curve.sh [OUT]     (default runs/seal-size; finished steps are kept)
# EXTRA_RUNS: more finished run directories of the same subset to put in the table, with
# EXTRA_LABELS (comma list), e.g. the shipped tools-135m mixture's run.
set -euo pipefail
OUT=${1:-runs/seal-size}
DATA=${DATA_ROOT:-../shared/data}
SIZES=${SIZES:-80 160 320}
BASE=${BASE_RUN:-results/seal/constrained}
mkdir -p "$OUT"
runs=("$BASE") labels=(--label "base (zero-shot)")
for n in $SIZES; do
  train=runs/train/seal-size-$n
  if [[ ! -f $train/adapter.gguf ]]; then
    toollearn train --config recipes/seal-size-135m.yaml --samples $((n + 32)) \
      --output-dir "$train"
  fi
  STEPS=seal-constrained DATA_ROOT=$DATA bash recipes/tools-135m-eval.sh \
    "tuned:$train/adapter.gguf" "$OUT/$n" 4
  runs+=("$OUT/$n/seal-constrained") labels+=(--label "Seal-only, $n samples")
done
if [[ -n ${EXTRA_RUNS:-} ]]; then
  IFS=, read -ra extra_labels <<< "${EXTRA_LABELS:-}"
  i=0
  for run in $EXTRA_RUNS; do
    runs+=("$run") labels+=(--label "${extra_labels[$i]:-$(basename "$run")}")
    i=$((i + 1))
  done
fi
toollearn report compare "${runs[@]}" "${labels[@]}" --data-root "$DATA" \
  --out "$OUT/curve.md" --json "$OUT/curve.json" --figure "$OUT/curve.png" \
  --metric "Tool F1" --metric "Param F1" --title "Seal-Tools data-size curve (same test subset)"
