#!/usr/bin/env bash
# The search classifier with the query's length as a feature (`eval deer-calibrate
# --length-feature`): fitted and calibrated on the same generated branches as the Evol-style
# one (datagen deer --general evol; nothing of ToolDEER's valid or test splits), then run gates
# only on valid (Search/NoSearch: P_DS) and the unseen-tool sets, with the plain MiniLM call
# gate as the Evol-style classifier's runs were (*-evol-length-classifier) and with the shipped
# call gate (*-dec2000-evol-length). The feature was chosen after reading valid's no-search
# queries (long evolved instructions; median 69 words against 11 for its tool requests), so
# valid is not a clean test of it; its threshold comes from the held-out generated branches.
set -euo pipefail
source .venv/bin/activate
toollearn datagen deer --general evol --answer-engine none --data-root ../shared/data \
  --out runs/data/deer-evol  # sha256 1f6b8741..., the Evol-style classifier's data
C=runs/deer-calibrate/search-classifier-evol-length
toollearn eval deer-calibrate --decision search --search-gate classifier --length-feature \
  --data runs/data/deer-evol --train-run results/train/tools-135m/train.json \
  --train-datasets runs/data/natural -n 1000 --threads 1 --out $C
T=$(python -c "import json; print(json.load(open('$C/calibration.json'))['threshold'])")
SEARCH=(--search-gate "classifier:$C/search_gate.npz" --search-threshold "$T")
G=results/deer-gates-only R=runs/deer-gates-only
for s in valid test tool_bench tool_corpus; do
  toollearn eval deer-gate --split $s --call-gate similarity --call-threshold -0.2553 \
    "${SEARCH[@]}" --data-root ../shared/data --threads 1 --out $R/$s-evol-length-classifier
  toollearn eval deer-gate --split $s --call-gate similarity:src/toollearn/models/deer-call-gate \
    --call-threshold -0.2913 "${SEARCH[@]}" --data-root ../shared/data --threads 1 \
    --out $R/$s-dec2000-evol-length
done
rm -rf results/deer-calibrate/search-classifier-evol-length
cp -r $C results/deer-calibrate/
for s in valid test tool_bench tool_corpus; do
  rm -rf $G/$s-evol-length-classifier $G/$s-dec2000-evol-length
  cp -r $R/$s-evol-length-classifier $R/$s-dec2000-evol-length $G/
done
# compare.md in each *-evol-length-classifier folder: against the earlier search classifiers
# (the *-dec2000-evol-length runs differ from the shipped gate's gates-only runs in the search
# setting itself, which `report compare` refuses: their scores.json are read as they are)
toollearn report compare $G/valid-full-classifier-search $G/valid-evol-classifier-search \
  $G/valid-evol-length-classifier --label "plain general queries" \
  --label "Evol-style general queries" --label "Evol-style + length" \
  --data-root ../shared/data --out $G/valid-evol-length-classifier/compare.md \
  --json $G/valid-evol-length-classifier/compare.json
for s in test tool_bench tool_corpus; do
  toollearn report compare $G/$s-evol-classifier $G/$s-evol-length-classifier \
    --label "Evol-style general queries" --label "Evol-style + length" \
    --data-root ../shared/data --out $G/$s-evol-length-classifier/compare.md \
    --json $G/$s-evol-length-classifier/compare.json
done
find $G results/deer-calibrate -name .lock -delete
