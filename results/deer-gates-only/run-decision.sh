#!/usr/bin/env bash
# DEER call gates trained for the Call/NoCall decision as well as for ranking: the shipped gate's
# recipe (LoRA r 16 on the embedded MiniLM, 3,000 ranking pairs of random-pool DEER branches, 2
# epochs) plus `--decision-samples N`: N Call/NoCall branches give labelled (query, pool tool)
# pairs for a CoSENT loss. Then each gate is calibrated on held-out training branches (its own
# training queries left out), run gates-only on valid, and on the unseen-tool sets.
#   bash results/deer-gates-only/run-decision.sh [N...]        (default: 1000 2000)
# MIX=212 does the same on the branches generated with DEER's 2:1:2 pool sampling (random,
# intra-cluster, inter-cluster) instead of random pools only: the sampling fidelity check with a
# gate trained for the decision (MIX=212 bash ... 1000).
set -euo pipefail
MIX=${MIX:-100}
TL=${TL:-.venv/bin/toollearn}
ROOT=${ROOT:-../shared/data}
[ -f runs/data/deer-mix100/data.jsonl ] ||
  $TL datagen deer --data-root "$ROOT" --nosearch 0 --pool-mix 1:0:0 --out runs/data/deer-mix100
[ -f runs/data/deer-mix212/data.jsonl ] ||
  $TL datagen deer --data-root "$ROOT" --nosearch 0 --pool-mix 2:1:2 --out runs/data/deer-mix212
[ -f runs/data/natural/data.jsonl ] ||
  $TL datagen natural --data-root "$ROOT" --out runs/data/natural
for N in "${@:-1000 2000}"; do
  for n in $N; do
    RUN=runs/retriever-deer-mix$MIX-lora-e2-dec$n
    [ -f $RUN/train.json ] ||
      $TL retrieve train --data runs/data/deer-mix$MIX:3000 --max-seq-length 96 --threads 1 \
        --lora 16 --lr 5e-4 --epochs 2 --decision-samples $n --out $RUN
    CAL=results/deer-calibrate/deer-mix$MIX-lora-e2-dec$n-gate
    $TL eval deer-calibrate --data runs/data/deer-mix$MIX --train-run results/train/tools-135m/train.json \
      --train-datasets runs/data/natural -n 1000 --exclude-retriever $RUN/train.json \
      --call-gate similarity:$RUN/model --out $CAL
    T=$(python3 -c "import json;print(json.load(open('$CAL/calibration.json'))['threshold'])")
    for S in valid test tool_bench tool_corpus; do
      $TL eval deer-gate --split $S --data-root "$ROOT" --call-gate similarity:$RUN/model \
        --call-threshold "$T" --out results/deer-gates-only/$S-mix$MIX-lora-e2-dec$n
    done
  done
done

# The same gates with the threshold picked on valid (the one that maximizes valid's P_DC,
# `gate_stats.best_threshold` of the valid run), and the earlier shipped gate (ranking loss
# only; its adapter kept in results/train/retriever-deer-mix100-lora-e2/model; its valid run at
# the held-out threshold is valid-mix100-lora-e2); folders *-validT.
pick() { python3 -c "import json;print(json.load(open('$1/scores.json'))['gate_stats']['best_threshold']['threshold'])"; }
E2=results/train/retriever-deer-mix100-lora-e2/model
[ "$MIX" != 100 ] || [ -f results/deer-gates-only/valid-mix100-lora-e2/predictions.jsonl ] ||
  $TL eval deer-gate --split valid --data-root "$ROOT" --call-gate similarity:$E2 \
    --call-threshold -0.3938 --out results/deer-gates-only/valid-mix100-lora-e2
GATES="${@:-1000 2000}"
[ "$MIX" = 100 ] && GATES="e2 $GATES"
for GATE in $GATES; do
  case $GATE in
    e2) NAME=mix100-lora-e2 MODEL=$E2 ;;
    *) NAME=mix$MIX-lora-e2-dec$GATE MODEL=runs/retriever-deer-mix$MIX-lora-e2-dec$GATE/model ;;
  esac
  T=$(pick results/deer-gates-only/valid-$NAME)
  for S in valid test tool_bench tool_corpus; do
    $TL eval deer-gate --split $S --data-root "$ROOT" --call-gate similarity:$MODEL \
      --call-threshold "$T" --out results/deer-gates-only/$S-$NAME-validT
  done
done
