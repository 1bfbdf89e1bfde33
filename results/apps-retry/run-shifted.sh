#!/usr/bin/env bash
# A second kind of try, after run.sh: try k shows the demos BM25 ranks after the first k
# (`--retry-demos shifted`), so tries differ by their demos as well as by sampling; 8 tries at
# temperature 0 (greedy) and 1.0 on the same dev runs. The rule, fixed here before these runs:
# a shifted setting replaces the chosen one (8 tries at 1.0, same demos: dev mean 85.94) only
# with a higher dev mean; then, and only then, it is applied to the shipped test runs.
#   bash results/apps-retry/run-shifted.sh      (after run.sh; about 30 minutes)
set -euo pipefail
source .venv/bin/activate
OUT=results/apps-retry RUN=runs/apps-retry
ENGINE=(--engine tuned-apps --threads 1)
dev() {
  for t in 0.0 1.0; do
    toollearn eval apps-retry --run "$RUN/dev/$1/greedy" --out "$RUN/dev/$1/shifted-n8-t$t" \
      --retries 8 --retry-temperature $t --retry-demos shifted "${ENGINE[@]}" > /dev/null
  done
}
dev home-search & dev trip-booking &
wait
for app in home-search trip-booking; do
  for t in 0.0 1.0; do
    rm -rf "$OUT/dev/$app/shifted-n8-t$t"
    cp -r "$RUN/dev/$app/shifted-n8-t$t" "$OUT/dev/$app/"
  done
done
python - "$OUT/dev" > "$OUT/dev/shifted.md" <<'PY'
import json, sys
from pathlib import Path
dev = Path(sys.argv[1])
def success(app, name):
    return json.loads((dev / app / name / "scores.json").read_text())["scores"]["success_rate"]
rows = {name: [success(a, name) for a in ("home-search", "trip-booking")]
        for name in ("n8-t1.0", "shifted-n8-t0.0", "shifted-n8-t1.0")}
print("| setting (dev) | Home Search | Trip Booking | mean |\n|---|---:|---:|---:|")
for name, (hs, tb) in rows.items():
    print(f"| {name} | {hs:.1f} | {tb:.1f} | {(hs + tb) / 2:.2f} |")
best = max(rows, key=lambda k: (sum(rows[k]), k == "n8-t1.0"))
print(f"\nChosen: {best}.")
PY
cat "$OUT/dev/shifted.md"
best=$(sed -n 's/^Chosen: \(.*\)\.$/\1/p' "$OUT/dev/shifted.md")
if [ "$best" = n8-t1.0 ]; then echo "the same-demos setting stays: no test runs"; exit 0; fi
t=${best##*-t}
CHECKED=results/apps-bounds/v5-retrained
test_runs() {
  for run in "$@"; do
    toollearn eval apps-retry --run "$CHECKED/$run" --out "$RUN/test-shifted/$run" --retries 8 \
      --retry-temperature "$t" --retry-demos shifted "${ENGINE[@]}" > /dev/null
  done
}
test_runs home-search/system+demos home-search/anyorder &
test_runs trip-booking/system+demos trip-booking/anyorder trip-booking/typed &
wait
rm -rf "$OUT/test-shifted" && cp -r "$RUN/test-shifted" "$OUT/test-shifted"
label=apps-135m-v5-retrained
for run in {home-search,trip-booking}/{system+demos,anyorder} trip-booking/typed; do
  setting=${run#*/} base=()
  [ "$setting" = system+demos ] && setting=free \
    base=("results/apps-table/$run" --label "base (zero-shot)")  # as the headline shows it
  [ "$setting" != free ] && setting="$setting grammar"
  toollearn report compare "${base[@]:0:1}" "results/eval-apps-135m-v5-retrained/$run" \
    "$CHECKED/$run" "$OUT/test/$run" "$OUT/test-shifted/$run" "${base[@]:1}" \
    --label "$label, $setting (model alone)" --label "$label, $setting, bound calls checked" \
    --label "$label, $setting, checked, asked again (8 tries at temperature 1.0)" \
    --label "$label, $setting, checked, asked again, other demos per try (8 at $t)" \
    --out "$OUT/test-shifted/$run/compare.md" --json "$OUT/test-shifted/$run/compare.json" \
    > /dev/null
done
python results/apps-bounds/coverage.py "$OUT"/test-shifted/*/system+demos \
  "$OUT"/test-shifted/trip-booking/typed > "$OUT/test-shifted/coverage.md"
find "$OUT" -name .lock -delete
