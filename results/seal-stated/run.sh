#!/usr/bin/env bash
# The shipped model (tools-135m v3, `--engine tuned`) on the whole Seal-Tools test set (1,354
# queries, constrained, the paper's candidates) with --copy-strings --stated-optional: an
# optional parameter is written only with a value the query states (decoding/seal_tools.py
# `stated_value_rule`; the rule follows the dev answers, where 85% of the optional values
# appear verbatim in the query and none is a boolean, list or object).
# The answers of results/seal-copy-all that the narrower grammar admits are carried
# (results/seal-distinct/carry.py --copy-strings --stated-optional; checked byte for byte by
# results/seal-distinct/check.sh on shard 1/64), the rest generated as two 1-thread shards,
# merged, scored whole, and compared with the plain and the --copy-strings runs.
set -euo pipefail
RUN=runs/seal-stated OUT=results/seal-stated
FLAGS=(--split all --constrained --copy-strings --stated-optional --n-seq 8
  --data-root ../shared/data --engine tuned --threads 1)
source .venv/bin/activate
for k in 1 2; do
  [[ -d $RUN/s$k ]] || python results/seal-distinct/carry.py results/seal-copy-all "$RUN/s$k" \
    --engine tuned --shard "$k/2" --copy-strings --stated-optional
done
for k in 1 2; do
  toollearn eval seal-tools "${FLAGS[@]}" --shard "$k/2" --out "$RUN/s$k" &
done
wait
rm -rf "$RUN/all"
toollearn runs merge --out "$RUN/all" "$RUN/s1" "$RUN/s2"
toollearn eval seal-tools "${FLAGS[@]}" --out "$RUN/all" --score-only
cp "$RUN"/all/{config.json,predictions.jsonl,sessions.jsonl,scores.json} "$OUT/"
toollearn report compare results/seal-full-v3 results/seal-copy-all "$OUT" \
  --label "tools-135m v3" --label "v3, --copy-strings" \
  --label "v3, --copy-strings --stated-optional" --data-root ../shared/data \
  --bootstrap 2000 --out "$OUT/compare.md" --json "$OUT/compare.json"
