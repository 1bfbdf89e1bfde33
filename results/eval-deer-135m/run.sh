#!/usr/bin/env bash
# DEER's headline row with DEER's own adapter (deer-135m, recipes/deer-135m.yaml) beside the row
# the README showed until 2026-12-03 (results/eval-dec-gate: the same agent and gates with the
# papers' shared adapter tools-135m). The default DEER agent: the shipped call gate decides
# Call/NoCall and picks the tool (threshold -0.2913, chosen on ToolDEER valid), the model writes
# the call in DEER's released format; Decision-Call only (--skip-search), whole unseen-tool sets.
# Two 1-thread processes: test (743 queries), then ToolBench (200) and ToolCorpus (126).
#   bash results/eval-deer-135m/run.sh          (ENGINE: the engine spec, default tuned-deer)
set -euo pipefail
ENGINE=${ENGINE:-tuned-deer}
OUT=${OUT:-results/eval-deer-135m}
TL=${TOOLLEARN:-.venv/bin/toollearn}
run() {  # split
  [[ -f $OUT/deer-$1-dc/scores.json ]] && return
  "$TL" eval deer --split "$1" --engine "$ENGINE" --threads 1 --gates shipped --skip-search \
    --data-root ../shared/data --out "$OUT/deer-$1-dc"
}
run test &
{ run tool_bench && run tool_corpus; }
wait
for split in test tool_bench tool_corpus; do
  "$TL" report compare "results/eval-dec-gate/deer-$split-dc" "$OUT/deer-$split-dc" \
    --label "tools-135m (the papers' shared adapter)" --label "deer-135m (DEER only)" \
    --data-root ../shared/data --out "$OUT/deer-$split-dc/compare.md"
done
