#!/usr/bin/env bash
# The whole Seal-Tools test set (1,354), constrained, paper candidates, shipped tuned engine,
# as 8 resumable shards on one thread.
set -euo pipefail
source .venv/bin/activate
for k in 1 2 3 4 5 6 7 8; do
  toollearn eval seal-tools --split all --constrained --n-seq 8 --data-root ../shared/data \
    --engine tuned --threads 1 --shard "$k/8" --out "runs/seal-full-tuned/s$k"
done
