#!/usr/bin/env bash
# The ship decision for Seal-Tools' own adapter, made on the dev split (700 queries; shard 1/4:
# 175): seal-135m against the papers' shared adapter (tools-135m, the `eval seal-tools` default
# today), each constrained with the paper's 5 candidates, one 1-thread process each side by side;
# then the dev-chosen post-processing on each and a paired bootstrap.
#   bash results/eval-seal-135m/dev.sh
set -euo pipefail
TL=${TOOLLEARN:-.venv/bin/toollearn}
OUT=results/eval-seal-135m/dev
RUN=runs/eval-seal-135m-dev
SHARD=${SHARD:-1/4}
run() {  # NAME ADAPTER
  "$TL" eval seal-tools --split dev --constrained --n-seq 8 --data-root ../shared/data \
    --engine "tuned:$2" --threads 1 --shard "$SHARD" --out "$RUN/$1" > "$RUN/$1.log" 2>&1
}
mkdir -p "$RUN" "$OUT"
run tools-135m src/toollearn/models/tools-135m.gguf &
run seal-135m results/train/seal-135m/adapter.gguf &
wait
for name in tools-135m seal-135m; do
  mkdir -p "$OUT/$name"
  cp "$RUN/$name"/{config.json,predictions.jsonl,sessions.jsonl,scores.json} "$OUT/$name/"
  "$TL" eval seal-filter --run "$OUT/$name" --margin 0 --foreign-values all --iso-dates \
    --out "$OUT/$name-post" --data-root ../shared/data
done
"$TL" report compare "$OUT/tools-135m" "$OUT/seal-135m" "$OUT/tools-135m-post" "$OUT/seal-135m-post" \
  --label "tools-135m (shared)" --label "seal-135m (own)" --label "tools-135m, post-processed" \
  --label "seal-135m, post-processed" --data-root ../shared/data --bootstrap 2000 \
  --out "$OUT/compare.md" --json "$OUT/compare.json"
