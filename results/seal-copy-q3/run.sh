#!/usr/bin/env bash
# The shipped model (tools-135m v3, `--engine tuned`) with --copy-strings on a third quarter of
# the Seal-Tools test set (shards 3/8 and 7/8, merged as 3/4: 338 queries), constrained, the
# paper's candidates: with results/seal-copy and seal-copy-q2, three quarters. The
# answers of results/seal-full-v3 whose string values are all spans of the query are carried
# (results/seal-distinct/carry.py; checked byte for byte in results/seal-copy/check), the rest
# generated. Then the three quarters pooled with a paired bootstrap (seal-copy-q2/pooled.py).
set -euo pipefail
source .venv/bin/activate
for k in 3 7; do
  [[ -d runs/seal-copy-q3/s$k ]] || python results/seal-distinct/carry.py results/seal-full-v3 \
    runs/seal-copy-q3/s$k --engine tuned --shard "$k/8" --copy-strings
done
for k in 3 7; do
  toollearn eval seal-tools --split all --constrained --copy-strings --n-seq 8 \
    --data-root ../shared/data --engine tuned --threads 1 --shard "$k/8" \
    --out "runs/seal-copy-q3/s$k" &
done
wait
toollearn runs merge --out runs/seal-copy-q3/quarter --shard 3/4 runs/seal-copy-q3/s3 runs/seal-copy-q3/s7
toollearn eval seal-tools --split all --constrained --copy-strings --n-seq 8 \
  --data-root ../shared/data --engine tuned --threads 1 --shard 3/4 --out runs/seal-copy-q3/quarter \
  --score-only
mkdir -p results/seal-copy-q3/quarter
cp runs/seal-copy-q3/quarter/{config.json,predictions.jsonl,sessions.jsonl,scores.json} \
  results/seal-copy-q3/quarter/
toollearn report compare results/seal-full-v3 results/seal-copy-q3/quarter \
  --label "tools-135m v3" --label "v3, --copy-strings" --data-root ../shared/data \
  --bootstrap 2000 --out results/seal-copy-q3/compare.md --json results/seal-copy-q3/compare.json
python results/seal-copy-q2/pooled.py --quarter results/seal-copy --quarter results/seal-copy-q2/quarter \
  --quarter results/seal-copy-q3/quarter > results/seal-copy-q3/pooled.md
