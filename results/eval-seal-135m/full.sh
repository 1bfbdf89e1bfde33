#!/usr/bin/env bash
# seal-135m on the whole Seal-Tools test set (1,354), constrained, the paper's candidates, as
# the README row's model-alone run was made (results/seal-full-v3): shards K/8 in two 1-thread
# processes (shard 1/8 is run.sh's, merged from 1/16 and 9/16), joined with `runs merge` and
# scored by the unsharded command; a stopped run resumes where its shards stopped.
#   bash results/eval-seal-135m/full.sh
# Made on 2026-12-04 in one session beside nothing else up to shards 2, 3, 6, 7 whole and 4, 8
# in part (96 of about 169 each); a rerun continues from there.
set -euo pipefail
ADAPTER=${ADAPTER:-results/train/seal-135m/adapter.gguf}
RUNS=${RUNS:-results/eval-seal-135m/full}  # its shards are committed as they finish (resumable)
TL=${TOOLLEARN:-.venv/bin/toollearn}
shard() {
  "$TL" eval seal-tools --split all --constrained --n-seq 8 --data-root ../shared/data \
    --engine "tuned:$ADAPTER" --threads 1 --shard "$1/8" --out "$RUNS/s$1"
}
{ shard 2; shard 3; shard 4; shard 5; } &
{ shard 6; shard 7; shard 8; }
wait
# shard 1/8 ran on runs/train/seal-135m/adapter.gguf, the same file as the committed copy
"$TL" runs merge --out "$RUNS/all" --allow-diff engine results/eval-seal-135m/constrained \
  "$RUNS"/s{2..8}
"$TL" eval seal-tools --split all --constrained --n-seq 8 --data-root ../shared/data \
  --engine "tuned:$ADAPTER" --threads 1 --out "$RUNS/all" --score-only
