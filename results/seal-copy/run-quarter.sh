#!/usr/bin/env bash
# The shipped model (tools-135m v3, `--engine tuned`) with --copy-strings on quarter Q of the
# Seal-Tools test set (shards Q/8 and Q+4/8, merged as Q/4), constrained, the paper's
# candidates; results/seal-copy is quarter 1.
#   bash results/seal-copy/run-quarter.sh Q      (Q: 2, 3 or 4; writes results/seal-copy-qQ)
# The answers of results/seal-full-v3 whose string values are all spans of the query are
# carried (results/seal-distinct/carry.py; checked byte for byte in results/seal-copy/check),
# the rest generated. Then the quarter against v3 with a paired bootstrap (`compare.md`), and
# quarters 1..Q pooled (`pooled.md`, results/seal-copy-q2/pooled.py).
set -euo pipefail
Q=$1
RUN=runs/seal-copy-q$Q OUT=results/seal-copy-q$Q
FLAGS=(--split all --constrained --copy-strings --n-seq 8 --data-root ../shared/data
  --engine tuned --threads 1)
source .venv/bin/activate
for k in $Q $((Q + 4)); do
  [[ -d $RUN/s$k ]] || python results/seal-distinct/carry.py results/seal-full-v3 \
    "$RUN/s$k" --engine tuned --shard "$k/8" --copy-strings
done
for k in $Q $((Q + 4)); do
  toollearn eval seal-tools "${FLAGS[@]}" --shard "$k/8" --out "$RUN/s$k" &
done
wait
toollearn runs merge --out "$RUN/quarter" --shard "$Q/4" "$RUN/s$Q" "$RUN/s$((Q + 4))"
toollearn eval seal-tools "${FLAGS[@]}" --shard "$Q/4" --out "$RUN/quarter" --score-only
mkdir -p "$OUT/quarter"
cp "$RUN"/quarter/{config.json,predictions.jsonl,sessions.jsonl,scores.json} "$OUT/quarter/"
toollearn report compare results/seal-full-v3 "$OUT/quarter" \
  --label "tools-135m v3" --label "v3, --copy-strings" --data-root ../shared/data \
  --bootstrap 2000 --out "$OUT/compare.md" --json "$OUT/compare.json"
QUARTERS=(--quarter results/seal-copy)
for ((q = 2; q <= Q; q++)); do QUARTERS+=(--quarter "results/seal-copy-q$q/quarter"); done
python results/seal-copy-q2/pooled.py "${QUARTERS[@]}" > "$OUT/pooled.md"
