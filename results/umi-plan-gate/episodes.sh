#!/usr/bin/env bash
# The multi-role agent end to end with the plan gate (`eval episodes --plan-gate RULE`, the
# rule chosen on the stepwise dev steps: choice.json): the query's call plan re-decides the
# planner's role, and while a planned tool is due the caller may call only it. Nothing is
# chosen here. The roles: the GLPFT adapters trained on the lent H100 (results/train/glpft-gpu;
# the CPU recipe's p400 adapters were not kept), against their committed run without the gate
# (results/episodes-umi-glpft-gpu). Two 1-thread shards per set, merged; reruns resume.
#   bash results/umi-plan-gate/episodes.sh            # the 100 held-out test queries
#   SPLIT=demo bash results/umi-plan-gate/episodes.sh # the 16 natural demo trajectories
#   GATE=none SPLIT=demo bash ...                      # the same roles without the gate
#   GATE=veto SPLIT=demo bash ...                      # another rule (not the dev choice)
set -euo pipefail
source .venv/bin/activate
HERE=results/umi-plan-gate
RULE=$(python -c "import json; print(json.load(open('$HERE/choice.json'))['rule'])")
SPLIT=${SPLIT:-test}
case $SPLIT in
  test) FILE=(--file results/datagen/umi/trajectories_test.json) ;;
  demo) FILE=() ;;  # eval episodes' default: the shipped demo trajectories
  *) echo "SPLIT: test or demo" >&2; exit 2 ;;
esac
GATE=${GATE:-$RULE}
OUT=$HERE/episodes-glpft-gpu-$SPLIT-$GATE
OPTS=(--plan-gate "$GATE")
[ "$GATE" = none ] && OPTS=()
episodes() {  # extra options, then the output folder last
  toollearn eval episodes "${FILE[@]}" --engine llama --role-adapters results/train/glpft-gpu \
    --threads 1 "${OPTS[@]}" "$@"
}
mkdir -p runs/logs runs/umi-plan-gate
for k in 1 2; do
  episodes --shard "$k/2" --out "runs/umi-plan-gate/$SPLIT-$GATE-s$k" \
    > "runs/logs/umi-plan-gate-$SPLIT-$GATE-s$k.log" 2>&1 &
done
wait
toollearn runs merge --out "$OUT" "runs/umi-plan-gate/$SPLIT-$GATE-s1" \
  "runs/umi-plan-gate/$SPLIT-$GATE-s2"
episodes --out "$OUT" > "$OUT/table.txt"
toollearn score --run "$OUT" --check > /dev/null
# the failures sorted, one kind per episode, beside the same roles without the gate
if [ "$SPLIT" = test ] && [ "$GATE" != none ]; then
  python results/umi-planner-spread/episode_errors.py results/episodes-umi-glpft-gpu "$OUT" \
    > "$HERE/episode_errors-test-$GATE.md"
elif [ "$SPLIT" = demo ] && [ -d "$HERE/episodes-glpft-gpu-demo-none" ] && [ "$GATE" != none ]; then
  python results/umi-planner-spread/episode_errors.py "$HERE/episodes-glpft-gpu-demo-none" \
    "$OUT" > "$HERE/episode_errors-demo-$GATE.md"
fi
