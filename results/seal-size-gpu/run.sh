#!/usr/bin/env bash
# The Seal-Tools data-size curve carried past the CPU's budget: Seal-only adapters trained on
# the lent H100 (recipes/seal-size-gpu.sh; train/seal-gpu-<n>: 1,280 / 5,120 / 10,000 samples
# drawn by draw.py from the curve's pool, runs/data/seal-v2, sha256 1afbedaf...), each scored
# here on the CPU like the curve's adapters: the same 339 test queries (shard 1/4 of the whole
# set, made as shards 1 and 5 of 8), constrained, the paper's 5 candidates, official scorer.
# The adapters are in runs/train/seal-gpu-<n>/adapter.gguf (the device's output; not
# committed). curve.md/.json/.png: the CPU curve's points and these, on the same queries.
#   bash results/seal-size-gpu/run.sh        (finished evaluations are kept; SIZES picks some)
set -euo pipefail
source .venv/bin/activate
OUT=results/seal-size-gpu
runs=(results/seal/constrained results/seal-size/80 results/seal-size/160 results/seal-size/320)
labels=(--label "base (zero-shot)" --label "80 (CPU)" --label "160 (CPU)" --label "320 (CPU)")
for n in ${SIZES:-1312 5152 10032}; do
  label="$((n - 32)) (GPU)"
  if [[ ! -f $OUT/$n/scores.json ]]; then
    STEPS=seal-constrained LABEL="Seal-only, $label" bash recipes/tools-135m-eval.sh \
      "tuned:runs/train/seal-gpu-$n/adapter.gguf" "runs/seal-size-gpu/$n" 4
    mkdir -p "$OUT/$n"
    cp runs/seal-size-gpu/$n/seal-constrained/{config.json,predictions.jsonl,sessions.jsonl,scores.json,compare.md,compare.json} "$OUT/$n/"
  fi
  runs+=("$OUT/$n") labels+=(--label "$label")
done
toollearn report compare "${runs[@]}" results/seal-size/v3 "${labels[@]}" \
  --label "tools-135m v3 (mixture, CPU)" --data-root ../shared/data \
  --out "$OUT/curve.md" --json "$OUT/curve.json" --figure "$OUT/curve.png" \
  --metric "Tool F1" --metric "Param F1" --title "Seal-Tools data-size curve, CPU and GPU (339 queries)"
# The dev-chosen post-processing (tool filter margin 0, foreign values dropped, ISO dates) on
# the GPU adapters' answers and on v3's answers to the same queries: does the extra data add to
# what the post-processing fixes? post.md/.json
post=(results/seal-size/v3)
post_labels=(--label "tools-135m v3 (mixture, CPU)")
for src in results/seal-size/v3 "$OUT/5152" "$OUT/10032"; do
  name=$(basename "$src"); [[ $name == v3 ]] || post+=("$src")
  [[ $name == v3 ]] || post_labels+=(--label "Seal-only, $((name - 32)) (GPU)")
  toollearn eval seal-filter --run "$src" --margin 0 --foreign-values all --iso-dates \
    --out "$OUT/$name-post" --data-root ../shared/data
  post+=("$OUT/$name-post")
  post_labels+=(--label "the same, post-processed")
done
toollearn report compare "${post[@]}" "${post_labels[@]}" --data-root ../shared/data \
  --bootstrap 2000 --out "$OUT/post.md" --json "$OUT/post.json"
