#!/usr/bin/env bash
# seal-135m on the whole Seal-Tools test set (1,354), constrained, the paper's candidates, as
# the README row's model-alone run was made (results/seal-full-v3): shards K/8 in two 1-thread
# processes (shard 1/8 is run.sh's, merged from 1/16 and 9/16), joined with `runs merge` and
# scored by the unsharded command; a stopped run resumes where its shards stopped.
#   bash results/eval-seal-135m/full.sh
# Made on 2026-12-04 over two sessions (shards 2, 3, 6, 7 whole and 4, 8 in part in the first,
# the rest resumed in the second): all/scores.json, official Tool F1 85.51, Param F1 51.21.
set -euo pipefail
ADAPTER=${ADAPTER:-results/train/seal-135m/adapter.gguf}
RUNS=${RUNS:-results/eval-seal-135m/full}  # shards s2-s8 (resumable); merged into all/, then
# removed from the tree (git keeps them: commit ecb47c7^)
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
# scored under the merged run's config, which names shard 1's engine (nothing is generated)
"$TL" eval seal-tools --split all --constrained --n-seq 8 --data-root ../shared/data \
  --engine tuned:runs/train/seal-135m/adapter.gguf --threads 1 --out "$RUNS/all" --score-only
# paired bootstrap against the README's row of the model alone (tools-135m v3, whole test set)
"$TL" report compare results/seal-full-v3 "$RUNS/all" --label "tools-135m v3" \
  --label "seal-135m" --data-root ../shared/data --bootstrap 2000 --out "$RUNS/bootstrap.md"
