#!/usr/bin/env bash
# The call gate with twice the decision branches: `bash results/deer-gates-only/run-decision.sh
# 4000` (trains, calibrates and runs it like the 1,000 and 2,000 ones), then this compares it
# with the shipped 2,000-branch gate on every set (compare-decision.md in each
# *-mix100-lora-e2-dec4000-validT folder).
set -euo pipefail
source .venv/bin/activate
G=results/deer-gates-only
for s in valid test tool_bench tool_corpus; do
  toollearn report compare $G/$s-mix100-lora-e2-dec2000 $G/$s-mix100-lora-e2-dec2000-validT \
    $G/$s-mix100-lora-e2-dec4000 $G/$s-mix100-lora-e2-dec4000-validT \
    --label "2,000 decision branches, held-out T" --label "2,000, valid T (shipped)" \
    --label "4,000 decision branches, held-out T" --label "4,000, valid T" \
    --data-root ../shared/data --out $G/$s-mix100-lora-e2-dec4000-validT/compare-decision.md \
    --json $G/$s-mix100-lora-e2-dec4000-validT/compare-decision.json > /dev/null
done
find $G -name .lock -delete
