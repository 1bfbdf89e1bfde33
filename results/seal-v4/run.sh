#!/usr/bin/env bash
# tools-135m v4 (recipes/tools-135m-v4.yaml: v3's mixture, varied Seal-Tools wording) on the
# curve's 339 Seal-Tools queries (shards 1/8 and 5/8, merged as 1/4), constrained, the paper's
# 5 candidates, the engine every v3 quarter run used (the adapter merged, `tuned:FILE`); then
# base, v3 (results/seal-size/v3) and v4 compared on the same ids.
set -euo pipefail
source .venv/bin/activate
STEPS=seal-constrained LABEL="tools-135m v4" bash recipes/tools-135m-eval.sh \
  tuned:runs/train/tools-135m-v4/adapter.gguf runs/seal-v4 4
mkdir -p results/seal-v4/quarter
cp runs/seal-v4/seal-constrained/{config.json,predictions.jsonl,sessions.jsonl,scores.json} \
  results/seal-v4/quarter/
toollearn report compare results/seal/constrained results/seal-size/v3 \
  results/seal-varied/320 results/seal-v4/quarter --label "base (zero-shot)" \
  --label "tools-135m v3" --label "Seal-only 320, varied" --label "tools-135m v4" \
  --data-root ../shared/data --out results/seal-v4/compare.md --json results/seal-v4/compare.json
python results/seal-distinct/duplicates.py results/seal/constrained results/seal-size/v3 \
  results/seal-varied/320 results/seal-v4/quarter > results/seal-v4/duplicates.md
python results/seal-varied/value_kinds.py results/seal-size/v3 results/seal-v4/quarter \
  > results/seal-v4/value_kinds.md
toollearn report compare results/seal-size/v3 results/seal-v4/quarter --label "tools-135m v3" \
  --label "tools-135m v4" --data-root ../shared/data --bootstrap 2000 \
  --out results/seal-v4/bootstrap.md --json results/seal-v4/bootstrap.json
