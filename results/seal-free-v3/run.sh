#!/usr/bin/env bash
# v3 on the whole Seal-Tools test set (1,354), free generation (no grammar), paper candidates,
# as 8 resumable 1-thread shards. Shards 1 and 5 were made by the quarter-set run
# (`STEPS=seal-free LABEL="tools-135m v3" bash recipes/tools-135m-eval.sh
# tuned:runs/train/tools-135m-v3/adapter.gguf runs/seal-size/v3 4`, i.e. this command with
# --shard 1/8 and 5/8); the other six ran as below, two workers at once.
set -euo pipefail
source .venv/bin/activate
ADAPTER=tuned:runs/train/tools-135m-v3/adapter.gguf
for k in 2 3 4 6 7 8; do
  toollearn eval seal-tools --split all --free --n-seq 8 --data-root ../shared/data \
    --engine "$ADAPTER" --threads 1 --shard "$k/8" --out "runs/seal-free-v3/s$k"
done
toollearn runs merge --out runs/seal-free-v3/all runs/seal-size/v3/seal-free-s1 \
  runs/seal-size/v3/seal-free-s5 runs/seal-free-v3/s{2,3,4,6,7,8}
toollearn eval seal-tools --split all --free --n-seq 8 --data-root ../shared/data \
  --engine "$ADAPTER" --threads 1 --out runs/seal-free-v3/all --score-only
