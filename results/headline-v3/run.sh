#!/usr/bin/env bash
# The headline with v3 (shipped): every panel from its whole-set run folder's compare.json.
set -euo pipefail
source .venv/bin/activate
A=results/eval-v3-apps
toollearn report headline \
  --panel seal-constrained=results/seal-full-v3 \
  --panel seal-free=results/seal-free-v3 \
  --panel deer-test-dc=results/eval-v3-dc/deer-test-dc \
  --panel deer-tool_bench-dc=results/eval-v3-dc/deer-tool_bench-dc \
  --panel deer-tool_corpus-dc=results/eval-v3-dc/deer-tool_corpus-dc \
  --panel deer-valid=results/eval-v3-gates/deer-valid \
  --panel "apps-hs/home-search/system+demos=$A/apps-hs/home-search/system+demos" \
  --panel "apps-hs/home-search/constrained=$A/apps-hs/home-search/constrained" \
  --panel "apps-tb/trip-booking/system+demos=$A/apps-tb/trip-booking/system+demos" \
  --panel "apps-tb/trip-booking/constrained=$A/apps-tb/trip-booking/constrained" \
  --out results/headline-v3/headline.md --figure results/headline-v3/headline.png
