#!/usr/bin/env bash
# v3 end to end with our retrievers' top 5 of all 4,076 tools (results/seal-bm25-v3-all: BM25;
# results/seal-hybrid-trained-v3: BM25 + the fine-tuned MiniLM; whole test set) post-processed
# with the steps chosen on dev that need no model (results/seal-filter-dev): the tool filter
# at margin 0, foreign values dropped (all), cut words dropped, generic values, ISO dates.
# Refill and missing calls (which ask the model again) are not run here. Then the comparison
# with the unfiltered answers (paired bootstrap against the BM25 run).
set -euo pipefail
source .venv/bin/activate
OUT=results/seal-bm25-filter
for pair in bm25:results/seal-bm25-v3-all hybrid-trained:results/seal-hybrid-trained-v3; do
  name=${pair%%:*} src=${pair#*:}
  toollearn eval seal-filter --run "$src" --margin 0 --foreign-values all --whole-words \
    --generic-values --iso-dates --data-root ../shared/data --out "runs/seal-filter-e2e-$name"
  mkdir -p "$OUT/$name"
  cp runs/seal-filter-e2e-$name/{config.json,predictions.jsonl,sessions.jsonl,scores.json} \
    "$OUT/$name/"
done
toollearn report compare results/seal-bm25-v3-all "$OUT/bm25" results/seal-hybrid-trained-v3 \
  "$OUT/hybrid-trained" --label "v3, BM25 top 5" \
  --label "v3, BM25 top 5, post-processed (no model)" --label "v3, hybrid-trained top 5" \
  --label "v3, hybrid-trained top 5, post-processed (no model)" \
  --data-root ../shared/data --bootstrap 2000 --out "$OUT/compare.md" --json "$OUT/compare.json"
