#!/usr/bin/env bash
# The shipped model (tools-135m v3, `--engine tuned`) with --distinct-tools and --copy-strings
# together, on the curve's 339 Seal-Tools queries (shards 1/8 and 5/8), constrained, paper
# candidates. The answers of results/seal-distinct (whole set, --distinct-tools) whose string
# values are all spans of the query are carried (results/seal-distinct/carry.py), the rest
# generated one shard after the other on one thread, merged as shard 1/4 and scored.
set -euo pipefail
source .venv/bin/activate
FLAGS=(--distinct-tools --copy-strings)
for k in 1 5; do
  [[ -d runs/seal-distinct-copy/s$k ]] || python results/seal-distinct/carry.py \
    results/seal-distinct runs/seal-distinct-copy/s$k --engine tuned --shard "$k/8" "${FLAGS[@]}"
  toollearn eval seal-tools --split all --constrained "${FLAGS[@]}" --n-seq 8 \
    --data-root ../shared/data --engine tuned --threads 1 --shard "$k/8" \
    --out "runs/seal-distinct-copy/s$k"
done
toollearn runs merge --out runs/seal-distinct-copy/quarter --shard 1/4 \
  runs/seal-distinct-copy/s1 runs/seal-distinct-copy/s5
toollearn eval seal-tools --split all --constrained "${FLAGS[@]}" --n-seq 8 \
  --data-root ../shared/data --engine tuned --threads 1 --shard 1/4 \
  --out runs/seal-distinct-copy/quarter --score-only
