# Shared by run.sh and run-shifted.sh (sourced; needs CHECKED and a venv).
APPS_RUNS=({home-search,trip-booking}/{system+demos,anyorder} trip-booking/typed)

# retry_tests DEST ARGS...: `toollearn eval apps-retry` on every shipped checked test run of
# $CHECKED into DEST/<app>/<setting>, with ARGS; one process per app.
retry_tests() {
  local dest=$1
  shift
  one_app() {
    local app=$1
    shift
    for run in "${APPS_RUNS[@]}"; do
      [ "${run%/*}" = "$app" ] || continue
      toollearn eval apps-retry --run "$CHECKED/$run" --out "$dest/$run" "$@" > /dev/null
    done
  }
  one_app home-search "$@" &
  one_app trip-booking "$@" &
  wait
}

# compare_tests OUT_DIR "DIR=LABEL"...: OUT_DIR/<app>/<setting>/compare.md (and .json) of the
# base model (free only, as the headline shows it), the model alone, its checked programs and
# each DIR/<app>/<setting> with its label.
compare_tests() {
  local out=$1 name=apps-135m-v5-retrained
  shift
  for run in "${APPS_RUNS[@]}"; do
    local setting=${run#*/} runs=() labels=()
    if [ "$setting" = system+demos ]; then
      setting=free runs=("results/apps-table/$run") labels=(--label "base (zero-shot)")
    else
      setting="$setting grammar"
    fi
    runs+=("results/eval-apps-135m-v5-retrained/$run" "$CHECKED/$run")
    labels+=(--label "$name, $setting (model alone)" --label "$name, $setting, bound calls checked")
    for pair in "$@"; do
      runs+=("${pair%%=*}/$run")
      labels+=(--label "$name, $setting, ${pair#*=}")
    done
    toollearn report compare "${runs[@]}" "${labels[@]}" --out "$out/$run/compare.md" \
      --json "$out/$run/compare.json" > /dev/null
  done
}
