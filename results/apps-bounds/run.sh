#!/usr/bin/env bash
# The bound check (toollearn.apps.bounds) on the apps adapters' finished test runs, no model:
# each program's min/max calls turned to the side its goal states, executed and judged again
# (`toollearn eval apps-bounds`), compared with the model's own programs; and the check on
# label programs (validate.md: right programs left alone, broken ones restored).
# apps-135m-v4 was shipped first; v5 is the twice-the-data run stopped at 0.82 of its epoch
# (adapter lost), v5-retrained the same recipe trained again to the end (shipped since).
set -euo pipefail
source .venv/bin/activate
OUT=results/apps-bounds
python "$OUT/validate.py" > "$OUT/validate.md"
for v in v4 v5 v5-retrained; do
  for run in {home-search,trip-booking}/{system+demos,anyorder} trip-booking/typed; do
    src=results/eval-apps-135m-$v/$run
    dst=$OUT/$v/$run
    rm -rf "$dst"
    toollearn eval apps-bounds --run "$src" --out "$dst" > /dev/null
  done
  for app in home-search trip-booking; do  # compare.md in each checked run's folder
    toollearn report compare results/apps-table/$app/system+demos \
      "results/eval-apps-135m-$v/$app/system+demos" "$OUT/$v/$app/system+demos" \
      --label "base (zero-shot)" --label "apps-135m-$v, free (model alone)" \
      --label "apps-135m-$v, free, bound calls checked" \
      --out "$OUT/$v/$app/system+demos/compare.md" \
      --json "$OUT/$v/$app/system+demos/compare.json" > /dev/null
  done
  for run in {home-search,trip-booking}/anyorder trip-booking/typed; do  # the grammars
    grammar=${run#*/}
    toollearn report compare "results/eval-apps-135m-$v/$run" "$OUT/$v/$run" \
      --label "apps-135m-$v, $grammar grammar (model alone)" \
      --label "apps-135m-$v, $grammar grammar, bound calls checked" \
      --out "$OUT/$v/$run/compare.md" --json "$OUT/$v/$run/compare.json" > /dev/null
  done
done
python results/apps-errors/criteria_errors.py results/eval-apps-135m-v4/*/system+demos \
  "$OUT"/v4/*/system+demos results/eval-apps-135m-v4/trip-booking/typed "$OUT"/v4/trip-booking/typed \
  results/eval-apps-135m-v5/*/system+demos "$OUT"/v5/*/system+demos \
  results/eval-apps-135m-v5/trip-booking/typed "$OUT"/v5/trip-booking/typed \
  results/eval-apps-135m-v5-retrained/*/system+demos "$OUT"/v5-retrained/*/system+demos \
  results/eval-apps-135m-v5-retrained/trip-booking/typed "$OUT"/v5-retrained/trip-booking/typed \
  > "$OUT/criteria_errors.md"
python results/apps-bounds/coverage.py "$OUT"/{v4,v5-retrained}/*/system+demos \
  "$OUT"/{v4,v5-retrained}/trip-booking/typed > "$OUT/coverage.md"
