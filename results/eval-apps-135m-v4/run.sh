#!/usr/bin/env bash
# apps-135m-v4 (results/train/apps-135m-v4/recipe.yaml, about 2,900 (goal, program) pairs) on the two apps'
# whole test sets, the fourth point of the apps' data-size curve, scored as apps-135m-v3 was:
# free (system + demos, raw text) and with the grammar (any order; on Trip Booking also typed,
# the setters its booking type takes), one 1-thread process per app. Then compare tables
# against the base and the curve's earlier adapters.
#   bash results/eval-apps-135m-v4/run.sh        (after `toollearn train --config
#                                                 results/train/apps-135m-v4/recipe.yaml`; resumes)
set -euo pipefail
source .venv/bin/activate
# (ENGINE, LIMIT, RUN and OUT may be set to check the script on a few goals.)
RUN=${RUN:-runs/eval-apps-135m-v4} OUT=${OUT:-results/eval-apps-135m-v4}
ENGINE=(--engine "${ENGINE:-tuned:runs/train/apps-135m-v4/adapter.gguf}" --threads 1
  --limit "${LIMIT:-1000}")
for app in home-search trip-booking; do
  ( toollearn eval apps-table --apps $app --configs system+demos --out $RUN "${ENGINE[@]}"
    toollearn eval apps-table --apps $app --configs constrained --grammar-order any \
      --out $RUN-anyorder "${ENGINE[@]}" ) &
done
wait
toollearn eval apps-table --apps trip-booking --configs constrained --grammar-order typed \
  --out $RUN-typed "${ENGINE[@]}"
for app in home-search trip-booking; do
  short=${app/home-search/hs}; short=${short/trip-booking/tb}
  mkdir -p $OUT/$app
  cp -r $RUN/$app/system+demos $RUN-anyorder/$app/constrained $OUT/$app/
  mv $OUT/$app/constrained $OUT/$app/anyorder
  toollearn report compare results/apps-table/$app/system+demos \
    results/eval-apps-135m-v2/apps-$short/$app/system+demos \
    results/eval-apps-135m-v3/$app/system+demos $OUT/$app/system+demos \
    --label "base (zero-shot)" --label apps-135m-v2 --label apps-135m-v3 --label apps-135m-v4 \
    --out $OUT/$app/system+demos/compare.md --json $OUT/$app/system+demos/compare.json
  toollearn report compare results/eval-apps-135m-v3-anyorder/$app/constrained \
    $OUT/$app/anyorder --label "apps-135m-v3, any order" --label "apps-135m-v4, any order" \
    --out $OUT/$app/anyorder/compare.md --json $OUT/$app/anyorder/compare.json
done
cp -r $RUN-typed/trip-booking/constrained $OUT/trip-booking/typed
toollearn report compare results/eval-apps-135m-v3-typed/trip-booking/constrained \
  $OUT/trip-booking/typed --label "apps-135m-v3, typed" --label "apps-135m-v4, typed" \
  --out $OUT/trip-booking/typed/compare.md --json $OUT/trip-booking/typed/compare.json
find "$OUT" -name .lock -delete
