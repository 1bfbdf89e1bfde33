#!/usr/bin/env bash
# The tool filter on the whole Seal-Tools test set (1,354 queries, the paper's 5 candidates):
# the answers of the shipped model's committed runs (results/seal-full-v3, plain grammar;
# results/seal-stated, --copy-strings --stated-optional) with the calls dropped whose tool is
# more than the dev-chosen margin (results/seal-filter-dev/choice.json) behind the closest
# candidate of every clause of the query (embedded MiniLM). The filter reads only the query,
# the candidates and the answer, after generation: nothing is generated again. Each filtered
# run is compared with its unfiltered one (paired bootstrap), and the headline's Seal-Tools
# panel gets base / v3 / v3 + filter (compare-headline.*).
set -euo pipefail
source .venv/bin/activate
OUT=results/seal-filter
M=$(python -c 'import json; print(json.load(open("results/seal-filter-dev/choice.json"))["margin"])')
for src in seal-full-v3 seal-stated; do
  toollearn eval seal-filter --run "results/$src" --margin "$M" --out "$OUT/$src" \
    --data-root ../shared/data
done
toollearn report compare results/seal-full-v3 "$OUT/seal-full-v3" results/seal-stated \
  "$OUT/seal-stated" --label "tools-135m v3" --label "v3 + tool filter" \
  --label "v3, --copy-strings --stated-optional" --label "v3, --copy-strings --stated-optional + tool filter" \
  --data-root ../shared/data --bootstrap 2000 --out "$OUT/compare.md" --json "$OUT/compare.json"
toollearn report compare results/seal/constrained results/seal-full-v3 "$OUT/seal-stated" \
  --label "base (zero-shot)" --label "tools-135m v3" \
  --label "v3, --copy-strings --stated-optional + tool filter" --data-root ../shared/data \
  --out "$OUT/compare-headline.md" --json "$OUT/compare-headline.json"
