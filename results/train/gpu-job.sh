#!/usr/bin/env bash
# GLPFT and its baselines on the lent H100: the same `toollearn train --glpft MODE` as on a
# CPU, with --device cuda. MODES="glpft" or "direct joint"; each mode trains into /tmp/<mode>-gpu.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site:$PWD/src TOOLLEARN_CACHE=/tmp/tlcache
MODES=${MODES:-glpft}
collect() {  # what comes back: the GGUF adapters and a tarball of the run records
  mkdir -p $OUT
  for m in $MODES; do
    for s in single planner caller summarizer joint; do
      f=/tmp/$m-gpu/$s/adapter.gguf
      [ -f $f ] && cp $f $OUT/$m.$s.adapter.gguf
    done
  done
  (cd /tmp && tar czf $OUT/records.tgz --exclude=checkpoints --exclude='*.safetensors' \
     --exclude='*.gguf' --exclude=tokenizer.json $(for m in $MODES; do echo $m-gpu; done)) 2>/dev/null
  cp /tmp/job.log $OUT/ 2>/dev/null
}
trap collect EXIT
{
if [ ! -f /tmp/model.gguf ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site runs/gpu-b/wheels/*.whl || exit 1
  cat /tmp/stage/model.part-00 /tmp/stage/model.part-01 runs/gpu-b/model.part-02 > /tmp/model.gguf
fi
sha256sum /tmp/model.gguf
nvidia-smi --query-gpu=name --format=csv,noheader
[ -d /tmp/umi ] || { gunzip -c runs/gpu-b/trajectories_train.json.gz > /tmp/traj.json && python3 runs/gpu-b/make_data.py /tmp/traj.json /tmp/umi; }
for m in $MODES; do
  timeout ${BUDGET:-540} python3 -m toollearn.cli.main train --glpft $m --model /tmp/model.gguf \
    --dataset /tmp/umi --device cuda --samples ${SAMPLES:-2000} --batch-size 16 \
    --set max_length=2048 --set eval_samples=64 --set save_steps=100000 --set eval_steps=50 \
    --set logging_steps=10 --output-dir /tmp/$m-gpu
  echo "train $m rc $?"
done
} 2>&1 | tee /tmp/job.log
