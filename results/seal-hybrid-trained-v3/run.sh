#!/usr/bin/env bash
# v3 end to end on the Seal-Tools quarter (shard 1/4: shards 1 and 5 of 8, 339 queries), as
# results/seal-bm25-v3 but with the candidates from the hybrid retriever whose dense half is
# the fine-tuned MiniLM (results/train/retriever-minilm; `toollearn retrieve train`), top 5 of
# all 4,076 tools, constrained, 1-thread processes (the two shards can run side by side).
set -euo pipefail
source .venv/bin/activate
ADAPTER=tuned:runs/train/tools-135m-v3/adapter.gguf
CANDIDATES=hybrid:runs/retriever-minilm/model
for k in ${SHARDS:-1 5}; do
  toollearn eval seal-tools --split all --constrained --candidates "$CANDIDATES" --n-seq 8 \
    --data-root ../shared/data --engine "$ADAPTER" --threads 1 --shard "$k/8" \
    --out "runs/seal-hybrid-trained-v3/s$k"
done
[ -n "${SHARDS:-}" ] && exit 0  # one worker of several: merge once all shards are done
toollearn runs merge --out runs/seal-hybrid-trained-v3/q1 --shard 1/4 \
  runs/seal-hybrid-trained-v3/s1 runs/seal-hybrid-trained-v3/s5
toollearn eval seal-tools --split all --constrained --candidates "$CANDIDATES" --n-seq 8 \
  --data-root ../shared/data --engine "$ADAPTER" --threads 1 --shard 1/4 \
  --out runs/seal-hybrid-trained-v3/q1 --score-only
