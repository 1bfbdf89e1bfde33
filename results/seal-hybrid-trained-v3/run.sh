#!/usr/bin/env bash
# v3 end to end on the whole Seal-Tools test set (1,354 queries; all 4,076 tools), as
# results/seal-bm25-v3 (which ran the quarter, shards 1 and 5 of 8) but with the candidates
# from the hybrid retriever whose dense half is the MiniLM fine-tuned by `toollearn retrieve
# train` (results/train/retriever-minilm), top 5, constrained, 1-thread processes.
# The v3 adapter is the one shipped in the package (sha256 517e2c5b..., as in eval-v3-*).
# --batch-size 8: what seal-bm25-v3 ran with (before a fix, `tuned:PATH` specs took the
# non-llama default batch, and their --threads/--n-seq never reached llama.cpp).
# Workers: `SHARDS="1 2 3 4" bash run.sh` and `SHARDS="5 6 7 8" bash run.sh` side by side
# (shards resume); then `bash run.sh merge` merges and scores the whole set (all/) and, for
# the comparison with seal-bm25-v3, its quarter (q1/: shards 1 and 5). `bash run.sh` alone
# runs every shard in turn, then merges.
set -euo pipefail
source .venv/bin/activate
ADAPTER=tuned:src/toollearn/models/tools-135m.gguf
CANDIDATES=hybrid:runs/retriever-minilm/model
OUT=runs/seal-hybrid-trained-v3
seal() {
  toollearn eval seal-tools --split all --constrained --candidates "$CANDIDATES" --n-seq 8 \
    --data-root ../shared/data --engine "$ADAPTER" --threads 1 --batch-size 8 "$@"
}
if [ "${1:-}" != merge ]; then
  for k in ${SHARDS:-1 2 3 4 5 6 7 8}; do
    seal --shard "$k/8" --out "$OUT/s$k"
  done
  [ -n "${SHARDS:-}" ] && exit 0  # one worker of several: merge once all shards are done
fi
toollearn runs merge --out "$OUT/q1" --shard 1/4 "$OUT/s1" "$OUT/s5"
seal --shard 1/4 --out "$OUT/q1" --score-only
toollearn runs merge --out "$OUT/all" "$OUT"/s[1-8]
seal --out "$OUT/all" --score-only
