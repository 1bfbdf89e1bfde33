#!/usr/bin/env bash
# The Seal-Tools data-size curve (recipes/seal-size-curve.sh: 80 / 160 / 320 samples on the
# CPU) carried on to 4x and 16x its largest budget on the lent H100: Seal-only LoRA adapters
# with the curve's settings (recipes/seal-size-135m.yaml: r 16, alpha 32, lr 4e-4, one epoch,
# seed 0) at batch 16 (the CPU runs: 1 x 4 accumulated) on the rows `--samples N` draws from
# the same pool (results/seal-size-gpu/draw.py wrote them; the whole pool is too large to send).
# Run on the device machine from the repo root with the base GGUF's first part staged in
# /tmp/stage and gpu-stage/b carried (results/seal-size-gpu/README.md says how).
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site:$PWD/src TOOLLEARN_CACHE=/tmp/tlcache
SIZES=${SIZES:-1312 5152}
STAGE=gpu-stage/b
DATA_TAR=${DATA_TAR:-$STAGE/seal-draws.tar.xz}  # the draws (draw.py), as a tar.xz of folders
collect() {  # what comes back: the GGUF adapters and a tarball of the run records
  mkdir -p "$OUT"
  for n in $SIZES; do
    f=/tmp/seal-gpu-$n/adapter.gguf
    [ -f "$f" ] && cp "$f" "$OUT/seal-gpu-$n.adapter.gguf"
  done
  (cd /tmp && tar czf "$OUT/records.tgz" --exclude=checkpoints --exclude='*.safetensors' \
    --exclude='*.gguf' --exclude=tokenizer.json seal-gpu-*) 2>/dev/null
  cp /tmp/job.log "$OUT/" 2>/dev/null
}
trap collect EXIT
{
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site $STAGE/wheels/*.whl || exit 1
[ -f /tmp/model.gguf ] || cat /tmp/stage/model.part-00 $STAGE/model.part-01 > /tmp/model.gguf
sha256sum /tmp/model.gguf
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p /tmp/data && tar xJf "$DATA_TAR" -C /tmp/data
python3 -c "import torch, transformers, peft, trl, datasets, gguf
print({m.__name__: getattr(m, '__version__', '?') for m in (torch, transformers, peft, trl, datasets, gguf)})"
for n in $SIZES; do
  python3 -m toollearn.cli.main train --model /tmp/model.gguf --dataset "/tmp/data/seal-draw-$n" \
    --device cuda --set eval_samples=32 --set method=lora --lora-r 16 --set lora_alpha=32 \
    --learning-rate 4e-4 --epochs 1 --batch-size 16 --set grad_accum=1 --set max_length=2048 --seed 0 \
    --max-minutes "${MINUTES:-5}" --set save_steps=100000 --set eval_steps=20 --set logging_steps=5 \
    --output-dir "/tmp/seal-gpu-$n"
  echo "train $n rc $?"
done
} 2>&1 | tee /tmp/job.log
