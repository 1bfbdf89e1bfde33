#!/usr/bin/env bash
# Seal-Tools with its own adapter (seal-135m, recipes/seal-135m.yaml) against the papers' shared
# adapter (tools-135m v3, the run the README's row comes from) and the base, on one fixed subset:
# shard 1/PART of test_in_domain + test_out_domain (every PART-th query; default 8: 170
# queries), constrained, the paper's 5 candidates, official scorer; the model's answers alone,
# then the dev-chosen post-processing (tool filter, foreign values, ISO dates) on each.
#   bash results/eval-seal-135m/run.sh   (ADAPTER default runs/train/seal-135m/adapter.gguf)
set -euo pipefail
ADAPTER=${ADAPTER:-runs/train/seal-135m/adapter.gguf}
PART=${PART:-8}
OUT=results/eval-seal-135m
TL=${TOOLLEARN:-.venv/bin/toollearn}
if [[ ! -f $OUT/constrained/scores.json ]]; then
  STEPS=seal-constrained LABEL="seal-135m (Seal-Tools only)" TOOLLEARN="$TL" \
    bash recipes/tools-135m-eval.sh "tuned:$ADAPTER" runs/eval-seal-135m "$PART"
  mkdir -p "$OUT/constrained"
  cp runs/eval-seal-135m/seal-constrained/{config.json,predictions.jsonl,sessions.jsonl,scores.json} \
    "$OUT/constrained/"
fi
# v3's post-processed answers: results/seal-size-gpu/v3-post (the same filter on the same run)
[[ -f $OUT/post/scores.json ]] || "$TL" eval seal-filter --run "$OUT/constrained" --margin 0 \
  --foreign-values all --iso-dates --out "$OUT/post" --data-root ../shared/data
"$TL" report compare results/seal/constrained results/seal-size/v3 results/seal-size-gpu/v3-post \
  "$OUT/constrained" "$OUT/post" --label "base (zero-shot)" \
  --label "tools-135m v3 (the papers' shared adapter)" --label "the same, post-processed" \
  --label "seal-135m (Seal-Tools only)" --label "the same, post-processed" \
  --data-root ../shared/data --bootstrap 2000 --out "$OUT/compare.md" --json "$OUT/compare.json"
# paired bootstrap of seal-135m against tools-135m v3, alone and post-processed
"$TL" report compare results/seal-size/v3 "$OUT/constrained" --label "tools-135m v3" \
  --label "seal-135m" --data-root ../shared/data --bootstrap 2000 --out "$OUT/bootstrap-alone.md"
"$TL" report compare results/seal-size-gpu/v3-post "$OUT/post" \
  --label "tools-135m v3, post-processed" --label "seal-135m, post-processed" \
  --data-root ../shared/data --bootstrap 2000 --out "$OUT/bootstrap-post.md"
