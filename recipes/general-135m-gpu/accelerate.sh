#!/usr/bin/env bash
# The shipped multi-GPU configurations (recipes/accelerate/multi-gpu-ddp.yaml and
# multi-gpu-fsdp.yaml) under `accelerate launch` on the lent machine's one GPU, one process
# each, after `job.sh train` left the model, the wheels and the data in /tmp: a short run of
# each (the general recipe, 272 samples, 15 s of training) must train and export its adapter.
# What comes back under $OUT: ddp.log, fsdp.log and each run's train.json.
# Usage: bash recipes/general-135m-gpu/accelerate.sh SECONDS   (the time left; half each;
# DEVICE=cpu BATCH=2 PY=.venv/bin/python checks the script on a CPU)
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site:$PWD/src TOOLLEARN_CACHE=/tmp/tlcache
OUT=${OUT:-/tmp/general-gpu-out}
PY=${PY:-python3}
left=${1:-240}
DATA=${DATA:-/tmp/data/data}
model=()  # MODEL=HF-FOLDER: another base model than the embedded one (a small one to check)
[ -n "${MODEL:-}" ] && model=(--model "$MODEL")
mkdir -p "$OUT"
for kind in ddp fsdp; do
  timeout $((left / 2)) "$PY" -m accelerate.commands.launch \
    --config_file "recipes/accelerate/multi-gpu-$kind.yaml" --num_processes 1 \
    -m toollearn.cli.main train --config recipes/general-135m.yaml "${model[@]}" --dataset "$DATA" \
    --device "${DEVICE:-cuda}" --samples 272 --set eval_samples=16 --batch-size "${BATCH:-16}" --set grad_accum=1 \
    --epochs 1 --max-tokens-seen 0 --max-minutes 0.25 --set save_steps=100000 \
    --set eval_steps=100000 --set logging_steps=1 --output-dir "/tmp/$kind" >"$OUT/$kind.log" 2>&1
  echo "$kind rc $?" >>"$OUT/$kind.log"
  cp "/tmp/$kind/train.json" "$OUT/$kind-train.json" 2>/dev/null
done
