#!/usr/bin/env bash
# The baselines' tables (rescored from the stored answers) into results/calls-suite/tables.md:
# the finished in-process runs on the whole test split, the dev runs that chose the default
# preset, then the served runs (quick subset) with the item-by-item comparison against the
# in-process answers.
set -euo pipefail
cd "$(dirname "$0")/../.."
TL=${TL:-.venv/bin/toollearn}
PY=${PY:-.venv/bin/python}
report() {  # [--by-kind] NAME...: the finished ones
  local runs=() labels=() by=()
  if [ "$1" = --by-kind ]; then by=(--by-kind); shift; fi
  for name in "$@"; do
    if [ -f "results/calls-suite/$name/scores.json" ]; then
      runs+=("results/calls-suite/$name"); labels+=(--label "$name")
    fi
  done
  [ ${#runs[@]} -eq 0 ] || "$TL" report calls "${by[@]}" "${runs[@]}" "${labels[@]}"
}
{
  echo "## In process, the whole test split (1,423 items)"; echo
  report base tools-135m tools-135m-gate tuned-agent general general-gate general-gate-nosure \
    general-plan general-gate-plan-reply general-gate-plan-batch default more more-default gpu \
    gpu-default gpu-default-open; echo
  echo "## In process, per category and kind (multi-turn/answer: answering after tool results)"
  echo; report --by-kind base tools-135m tools-135m-gate tuned-agent general general-gate \
    general-gate-nosure general-plan general-gate-plan-reply general-gate-plan-batch default \
    more more-default gpu gpu-default gpu-default-open; echo
  echo "## The dev split's quick subset (200 items): what chose the default preset"; echo
  report dev-tools-135m dev-tuned-agent dev-tuned-agent-gate-plan dev-general dev-general-gate \
    dev-general-gate-nosure dev-general-plan dev-general-gate-plan dev-general-gate-plan-reply \
    dev-general-gate-plan-batch dev-general-gate-plan-batch-repairs dev-grounded dev-default \
    dev-more dev-more-default dev-gpu dev-gpu-gate dev-gpu-plan dev-gpu-repairs \
    dev-gpu-gate-repairs dev-gpu-default dev-gpu-default-open
  echo
  echo "## The dev split's chat category (98 items): the chat-quality proxy (answers)"; echo
  report dev-chat-base dev-chat-general dev-chat-more dev-chat-gpu
  echo
  echo "## The dev split's multi-turn category (60 items): the results check"; echo
  report dev-multi-turn-grounded dev-multi-turn-default dev-multi-turn-facts
  echo
  echo "## Through toollearn serve and the openai client, the quick subset (200 items)"; echo
  report served-base served-tools-135m served-general served-default served-more-default \
    served-gpu-default served-gpu-default-open; echo
  for name in base tools-135m general default more-default gpu-default gpu-default-open; do
    if [ -f "results/calls-suite/served-$name/scores.json" ]; then
      echo "served-$name against $name in process, item by item:"; echo; echo '```'
      "$PY" results/calls-suite/same_answers.py "results/calls-suite/$name" \
        "results/calls-suite/served-$name"
      echo '```'; echo
    fi
  done
} > results/calls-suite/tables.md
cat results/calls-suite/tables.md
