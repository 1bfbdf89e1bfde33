#!/usr/bin/env bash
# The shipped model (tools-135m v3, `--engine tuned`) on the whole Seal-Tools test set (1,354),
# constrained, paper candidates, with --distinct-tools. The answers of results/seal-full-v3
# (same model, same settings, no --distinct-tools) that call no tool twice are carried
# (carry.py; check.sh shows they regenerate byte for byte); the rest are generated, as two
# resumable 1-thread shards, merged and scored.
set -euo pipefail
source .venv/bin/activate
for k in 1 2; do
  [[ -d runs/seal-distinct/s$k ]] || python results/seal-distinct/carry.py results/seal-full-v3 \
    runs/seal-distinct/s$k --engine tuned --shard "$k/2" --distinct-tools
done
for k in 1 2; do
  toollearn eval seal-tools --split all --constrained --distinct-tools --n-seq 8 \
    --data-root ../shared/data --engine tuned --threads 1 --shard "$k/2" \
    --out "runs/seal-distinct/s$k" &
done
wait
toollearn runs merge --out runs/seal-distinct/all runs/seal-distinct/s1 runs/seal-distinct/s2
toollearn eval seal-tools --split all --constrained --distinct-tools --n-seq 8 \
  --data-root ../shared/data --engine tuned --threads 1 --out runs/seal-distinct/all --score-only
