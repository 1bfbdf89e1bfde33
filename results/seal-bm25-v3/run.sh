#!/usr/bin/env bash
# v3 end to end on the Seal-Tools quarter (shard 1/4: shards 1 and 5 of 8, 339 queries):
# our BM25 top 5 from all 4,076 tools as the candidates, constrained, 1-thread processes.
set -euo pipefail
source .venv/bin/activate
ADAPTER=tuned:runs/train/tools-135m-v3/adapter.gguf
for k in 1 5; do
  toollearn eval seal-tools --split all --constrained --candidates bm25 --n-seq 8 \
    --data-root ../shared/data --engine "$ADAPTER" --threads 1 --shard "$k/8" \
    --out "runs/seal-bm25-v3/s$k"
done
toollearn runs merge --out runs/seal-bm25-v3/q1 --shard 1/4 runs/seal-bm25-v3/s1 runs/seal-bm25-v3/s5
toollearn eval seal-tools --split all --constrained --candidates bm25 --n-seq 8 \
  --data-root ../shared/data --engine "$ADAPTER" --threads 1 --shard 1/4 \
  --out runs/seal-bm25-v3/q1 --score-only
