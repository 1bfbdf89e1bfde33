#!/usr/bin/env bash
# The shipped model (tools-135m v3, `--engine tuned`) with --copy-strings on a second quarter of
# the Seal-Tools test set (shards 2/8 and 6/8, merged as 2/4: 339 queries), constrained, the
# paper's candidates: the check that results/seal-copy's gain on the first quarter holds. The
# answers of results/seal-full-v3 whose string values are all spans of the query are carried
# (results/seal-distinct/carry.py; checked byte for byte in results/seal-copy/check), the rest
# generated. Then both quarters pooled with a paired bootstrap (pooled.py).
set -euo pipefail
source .venv/bin/activate
for k in 2 6; do
  [[ -d runs/seal-copy-q2/s$k ]] || python results/seal-distinct/carry.py results/seal-full-v3 \
    runs/seal-copy-q2/s$k --engine tuned --shard "$k/8" --copy-strings
done
for k in 2 6; do
  toollearn eval seal-tools --split all --constrained --copy-strings --n-seq 8 \
    --data-root ../shared/data --engine tuned --threads 1 --shard "$k/8" \
    --out "runs/seal-copy-q2/s$k" &
done
wait
toollearn runs merge --out runs/seal-copy-q2/quarter --shard 2/4 runs/seal-copy-q2/s2 runs/seal-copy-q2/s6
toollearn eval seal-tools --split all --constrained --copy-strings --n-seq 8 \
  --data-root ../shared/data --engine tuned --threads 1 --shard 2/4 --out runs/seal-copy-q2/quarter \
  --score-only
mkdir -p results/seal-copy-q2/quarter
cp runs/seal-copy-q2/quarter/{config.json,predictions.jsonl,sessions.jsonl,scores.json} \
  results/seal-copy-q2/quarter/
toollearn report compare results/seal-full-v3 results/seal-copy-q2/quarter \
  --label "tools-135m v3" --label "v3, --copy-strings" --data-root ../shared/data \
  --bootstrap 2000 --out results/seal-copy-q2/compare.md --json results/seal-copy-q2/compare.json
python results/seal-copy-q2/pooled.py > results/seal-copy-q2/pooled.md
