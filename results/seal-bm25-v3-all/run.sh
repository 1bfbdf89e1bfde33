#!/usr/bin/env bash
# v3 end to end on the whole Seal-Tools test set (1,354 queries) with our BM25 top 5 of all
# 4,076 tools as the candidates, constrained: the quarter already run (results/seal-bm25-v3,
# shards 1 and 5 of 8) joined with the other six shards made the same way, 1-thread processes.
# The engine spec names the shipped adapter, the same file as the quarter's
# runs/train/tools-135m-v3/adapter.gguf (sha256 517e2c5b..., the sessions record it), hence
# --allow-diff engine (the new shards go first, so the merged config names the engine that
# scores it); --batch-size 8 is what the quarter ran with (see results/README.md).
# Workers: `SHARDS="2 3 4" bash run.sh` and `SHARDS="6 7 8" bash run.sh` side by side (shards
# resume); then `bash run.sh merge` merges and scores. `bash run.sh` alone runs every shard in
# turn, then merges.
set -euo pipefail
source .venv/bin/activate
OUT=runs/seal-bm25-v3-all
seal() {
  toollearn eval seal-tools --split all --constrained --candidates bm25 --n-seq 8 \
    --data-root ../shared/data --engine tuned:src/toollearn/models/tools-135m.gguf \
    --threads 1 --batch-size 8 "$@"
}
if [ "${1:-}" != merge ]; then
  for k in ${SHARDS:-2 3 4 6 7 8}; do
    seal --shard "$k/8" --out "$OUT/s$k"
  done
  [ -n "${SHARDS:-}" ] && exit 0  # one worker of several: merge once all shards are done
fi
toollearn runs merge --out "$OUT/all" --allow-diff engine "$OUT"/s[234678] results/seal-bm25-v3
seal --out "$OUT/all" --score-only
