#!/usr/bin/env bash
# The shipped model (tools-135m v3, `--engine tuned`) with --copy-strings on the quarter of the
# Seal-Tools test set the data-size curve uses (shards 1/8 and 5/8: 339 queries), constrained,
# paper candidates. The answers of results/seal-full-v3 whose string values are all spans of the
# query are carried (results/seal-distinct/carry.py; `bash results/seal-distinct/check.sh
# results/seal-full-v3 runs/seal-copy/check --copy-strings` shows they regenerate byte for
# byte: results/seal-copy/check); the rest are generated.
set -euo pipefail
source .venv/bin/activate
for k in 1 5; do
  [[ -d runs/seal-copy/s$k ]] || python results/seal-distinct/carry.py results/seal-full-v3 \
    runs/seal-copy/s$k --engine tuned --shard "$k/8" --copy-strings
done
for k in 1 5; do
  toollearn eval seal-tools --split all --constrained --copy-strings --n-seq 8 \
    --data-root ../shared/data --engine tuned --threads 1 --shard "$k/8" \
    --out "runs/seal-copy/s$k" &
done
wait
toollearn runs merge --out runs/seal-copy/quarter --shard 1/4 runs/seal-copy/s1 runs/seal-copy/s5
toollearn eval seal-tools --split all --constrained --copy-strings --n-seq 8 \
  --data-root ../shared/data --engine tuned --threads 1 --shard 1/4 --out runs/seal-copy/quarter \
  --score-only
