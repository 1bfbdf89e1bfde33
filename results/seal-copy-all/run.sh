#!/usr/bin/env bash
# The shipped model (tools-135m v3, `--engine tuned`) with --copy-strings on the whole Seal-Tools
# test set (1,354 queries, constrained, the paper's candidates): the four quarters' runs merged
# (results/seal-copy and results/seal-copy-q{2,3,4}; each made by
# `bash results/seal-copy/run-quarter.sh Q`, quarter 4 first), scored whole, and compared with
# the plain grammar's whole-set run (results/seal-full-v3) by a paired bootstrap.
set -euo pipefail
RUN=runs/seal-copy-all OUT=results/seal-copy-all
source .venv/bin/activate
[[ -d runs/seal-copy-q4/quarter ]] || bash results/seal-copy/run-quarter.sh 4
rm -rf "$RUN"
toollearn runs merge --out "$RUN" results/seal-copy results/seal-copy-q2/quarter \
  results/seal-copy-q3/quarter results/seal-copy-q4/quarter
toollearn eval seal-tools --split all --constrained --copy-strings --n-seq 8 \
  --data-root ../shared/data --engine tuned --threads 1 --out "$RUN" --score-only
cp "$RUN"/{config.json,predictions.jsonl,sessions.jsonl,scores.json} "$OUT/"
toollearn report compare results/seal-full-v3 "$OUT" \
  --label "tools-135m v3" --label "v3, --copy-strings" --data-root ../shared/data \
  --bootstrap 2000 --out "$OUT/compare.md" --json "$OUT/compare.json"
