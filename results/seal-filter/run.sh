#!/usr/bin/env bash
# The answer post-processing chosen on dev (results/seal-filter-dev/choice.json: the tool
# filter's margin, whether to write dates copied in words as YYYY-MM-DD, and which arguments
# copied from another tool's clause to drop) on the whole
# Seal-Tools test set (1,354 queries, the paper's 5 candidates), applied to the answers of the
# shipped model's committed runs: results/seal-full-v3 (plain grammar) and results/seal-stated
# (--copy-strings --stated-optional). The steps read only the query, the candidates and the
# answer, after generation: nothing is generated again. Each post-processed run is compared with
# the unfiltered ones (paired bootstrap), and the headline's Seal-Tools panel gets base / v3 /
# v3 post-processed (headline/compare.*, read by results/headline-shipped/run.sh).
set -euo pipefail
source .venv/bin/activate
OUT=results/seal-filter CHOICE=results/seal-filter-dev/choice.json
M=$(python -c "import json; print(json.load(open('$CHOICE'))['margin'])")
DATES=$(python -c "import json; print('--iso-dates' if json.load(open('$CHOICE')).get('iso_dates') else '')")
FOREIGN=$(python -c "import json; s = json.load(open('$CHOICE')).get('foreign_values'); print(f'--foreign-values {s}' if s else '')")
for src in seal-full-v3 seal-stated; do  # the margin and dates alone (the earlier choice)...
  toollearn eval seal-filter --run "results/$src" --margin "$M" $DATES --out "$OUT/$src" \
    --data-root ../shared/data
done
# ... and with the foreign values dropped too (the whole choice)
toollearn eval seal-filter --run results/seal-stated --margin "$M" $DATES $FOREIGN \
  --out "$OUT/seal-stated-foreign" --data-root ../shared/data
toollearn report compare results/seal-stated "$OUT/seal-stated" "$OUT/seal-stated-foreign" \
  --label "v3, --copy-strings --stated-optional" --label "the same, filtered + ISO dates" \
  --label "the same, filtered + ISO dates + foreign values dropped" --data-root ../shared/data \
  --bootstrap 2000 --out "$OUT/compare-foreign.md" --json "$OUT/compare-foreign.json"
toollearn report compare results/seal-full-v3 "$OUT/seal-full-v3" results/seal-stated \
  "$OUT/seal-stated" --label "tools-135m v3" --label "v3, post-processed" \
  --label "v3, --copy-strings --stated-optional" \
  --label "v3, --copy-strings --stated-optional, post-processed" \
  --data-root ../shared/data --bootstrap 2000 --out "$OUT/compare.md" --json "$OUT/compare.json"
toollearn report compare results/seal-stated "$OUT/seal-stated" \
  --label "v3, --copy-strings --stated-optional" \
  --label "v3, --copy-strings --stated-optional, post-processed" --data-root ../shared/data \
  --bootstrap 2000 --out "$OUT/compare-stated.md" --json "$OUT/compare-stated.json"
toollearn report compare results/seal/constrained results/seal-full-v3 "$OUT/seal-stated" \
  --label "base (zero-shot)" --label "tools-135m v3" \
  --label "v3, --copy-strings --stated-optional, post-processed" --data-root ../shared/data \
  --out "$OUT/headline/compare.md" --json "$OUT/headline/compare.json"
