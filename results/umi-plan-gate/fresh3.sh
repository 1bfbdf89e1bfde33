#!/usr/bin/env bash
# A check on the third fresh held-out set (results/datagen/umi-fresh-test-3; no choice was
# ever made on it for the multi-role agent): its first 50 queries, the GPU-trained GLPFT roles
# with the plan gate (the stepwise dev choice) and without, side by side (one thread each).
#   bash results/umi-plan-gate/fresh3.sh
set -euo pipefail
source .venv/bin/activate
HERE=results/umi-plan-gate
RULE=$(python -c "import json; print(json.load(open('$HERE/choice.json'))['rule'])")
N=50
episodes() {  # extra options, then the output folder last
  toollearn eval episodes --file results/datagen/umi-fresh-test-3/trajectories_test.json \
    --limit "$N" --engine llama --role-adapters results/train/glpft-gpu --threads 1 "$@"
}
mkdir -p runs/logs
episodes --out "$HERE/episodes-glpft-gpu-fresh3-50-none" > runs/logs/umi-plan-gate-fresh3-none.log 2>&1 &
episodes --plan-gate "$RULE" --out "$HERE/episodes-glpft-gpu-fresh3-50-$RULE" \
  > runs/logs/umi-plan-gate-fresh3-plan.log 2>&1 &
wait
for gate in none "$RULE"; do
  episodes $([ "$gate" = none ] || echo --plan-gate "$gate") \
    --out "$HERE/episodes-glpft-gpu-fresh3-50-$gate" > "$HERE/episodes-glpft-gpu-fresh3-50-$gate/table.txt"
  toollearn score --run "$HERE/episodes-glpft-gpu-fresh3-50-$gate" --check > /dev/null
done
python results/umi-planner-spread/episode_errors.py "$HERE/episodes-glpft-gpu-fresh3-50-none" \
  "$HERE/episodes-glpft-gpu-fresh3-50-$RULE" > "$HERE/episode_errors-fresh3-50.md"
