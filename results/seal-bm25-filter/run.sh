#!/usr/bin/env bash
# v3 end to end with BM25's top 5 of all 4,076 tools (results/seal-bm25-v3-all, whole test set)
# post-processed with the steps chosen on dev that need no model (results/seal-filter-dev):
# the tool filter at margin 0, foreign values dropped (all), cut words dropped, generic values,
# ISO dates. Refill and missing calls (which ask the model again) are not run here. Then the
# comparison with the unfiltered answers (paired bootstrap).
set -euo pipefail
source .venv/bin/activate
OUT=results/seal-bm25-filter
toollearn eval seal-filter --run results/seal-bm25-v3-all --margin 0 --foreign-values all \
  --whole-words --generic-values --iso-dates --data-root ../shared/data --out runs/seal-bm25-filter
cp runs/seal-bm25-filter/{config.json,predictions.jsonl,sessions.jsonl,scores.json} "$OUT/"
toollearn report compare results/seal-bm25-v3-all "$OUT" \
  --label "v3, BM25 top 5" --label "v3, BM25 top 5, post-processed (no model)" \
  --data-root ../shared/data --bootstrap 2000 --out "$OUT/compare.md" --json "$OUT/compare.json"
