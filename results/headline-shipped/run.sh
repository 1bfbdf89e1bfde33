#!/usr/bin/env bash
# The headline of what ships: tools-135m v3 (`tuned`) on Seal-Tools and DEER, as in
# results/headline-v3, and the apps adapter apps-135m (`tuned-apps`, apps-135m-v4) on the two
# apps, free (system + demos), each against the base model on the same examples.
set -euo pipefail
source .venv/bin/activate
A=results/eval-apps-135m-v4
toollearn report headline \
  --panel seal-constrained=results/seal-full-v3 \
  --panel seal-free=results/seal-free-v3 \
  --panel deer-test-dc=results/eval-v3-dc/deer-test-dc \
  --panel deer-tool_bench-dc=results/eval-v3-dc/deer-tool_bench-dc \
  --panel deer-tool_corpus-dc=results/eval-v3-dc/deer-tool_corpus-dc \
  --panel deer-valid=results/eval-v3-gates/deer-valid \
  --panel "apps-hs/home-search/system+demos=$A/home-search/system+demos" \
  --panel "apps-tb/trip-booking/system+demos=$A/trip-booking/system+demos" \
  --out results/headline-shipped/headline.md --figure results/headline-shipped/headline.png
