#!/usr/bin/env bash
# The shipped general agent (tuned-agent behind the call gate with its sure call, `--plan due`,
# the plan's distinct margin on) with and without the plan's unfit gap (--plan-unfit-gap 0.15,
# chosen on dev's plans: results/agent-plan/plan_probe_unfit.md), on the held-out episodes
# whose plan the gap changes (results/agent-plan/plan_subset.py: the only ones it can change):
# SET-plain (no gap) and SET, each set's two runs side by side on one core each.
#   bash results/agent-plan-unfit/run.sh [SET...]
set -euo pipefail
source .venv/bin/activate
HERE=results/agent-plan-unfit GAP=0.15 MARGIN=0.06
source results/agent-plan/sets.sh
mkdir -p runs/agent-plan-unfit runs/logs
for set in ${*:-dev test fresh fresh2 fresh3}; do
  subset=runs/agent-plan-unfit/$set.json
  python results/agent-plan/plan_subset.py "${FILES[$set]}" "$subset" $MARGIN/- $MARGIN/$GAP
  toollearn eval episodes --agent tool-calls --engine tuned-agent --threads 1 --plan due \
    --plan-margin $MARGIN --plan-unfit-gap -1 --file "$subset" --out "$HERE/$set-plain" \
    > runs/logs/agent-plan-unfit-$set-plain.txt 2>&1 &
  toollearn eval episodes --agent tool-calls --engine tuned-agent --threads 1 --plan due \
    --plan-margin $MARGIN --plan-unfit-gap $GAP --file "$subset" --out "$HERE/$set" \
    > runs/logs/agent-plan-unfit-$set.txt 2>&1 &
  wait
done
