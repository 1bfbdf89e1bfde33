#!/usr/bin/env bash
# The shipped general agent (tuned-agent behind the call gate with its sure call, following the
# query's call plan: `--plan due`) with and without the plan's distinct margin (--plan-margin
# 0.06, chosen on dev's plans alone: results/agent-plan/plan_probe_distinct.md), on the held-out
# episodes whose plan the margin changes (results/agent-plan/plan_subset.py: the only ones
# it can change). Each set's subset runs twice on this machine: SET-plain (no margin, as
# before it: --plan-margin -1) and SET. The margin is the planner's default now.
#   bash results/agent-plan-distinct/run.sh [SET...]
set -euo pipefail
source .venv/bin/activate
HERE=results/agent-plan-distinct MARGIN=0.06
source results/agent-plan/sets.sh
mkdir -p runs/agent-plan-distinct
for set in ${*:-dev test fresh fresh2 fresh3}; do
  subset=runs/agent-plan-distinct/$set.json
  python results/agent-plan/plan_subset.py "${FILES[$set]}" "$subset" -/- $MARGIN/-
  toollearn eval episodes --agent tool-calls --engine tuned-agent --threads 1 --plan due \
    --plan-margin -1 --plan-unfit-gap -1 --file "$subset" --out "$HERE/$set-plain"
  toollearn eval episodes --agent tool-calls --engine tuned-agent --threads 1 --plan due \
    --plan-margin $MARGIN --plan-unfit-gap -1 --file "$subset" --out "$HERE/$set"
done
