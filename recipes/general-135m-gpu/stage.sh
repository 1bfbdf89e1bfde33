#!/usr/bin/env bash
# The general recipe at GPU scale (recipes/general-135m.yaml, 10x its 4,000 samples by default),
# staged for a bare single-GPU machine with no network that takes at most 64 MiB a call:
#   gpu-stage/general-a   the embedded model's first 50 MiB and the wheels the device lacks
#                         (trl, datasets, gguf, dill, multiprocess: torch, transformers, peft
#                         and accelerate are there)
#   gpu-stage/general-b   the model's rest and the data (`datagen general -n N --seed 1`, a
#                         draw of its own from the training splits, compact listings) as tar.xz
# Then, from a sparse checkout without results/, tests/, docs/, benchmarks/ and the packaged
# GGUFs (README.md here), two calls back to back (the machine keeps /tmp while warm):
#   bash recipes/general-135m-gpu/job.sh stage   (carrying gpu-stage/general-a)
#   bash recipes/general-135m-gpu/job.sh train   (carrying gpu-stage/general-b)
# Usage: bash recipes/general-135m-gpu/stage.sh   (N=40000 by default; TL, PY: the venv's)
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-40000}
TL=${TL:-.venv/bin/toollearn}
PY=${PY:-.venv/bin/python}
data=runs/data/general-gpu-$N
if [ ! -f "$data/data.jsonl" ]; then
  "$TL" datagen general --data-root ../shared/data -n "$N" --seed 1 --docs compact \
    --answers-engine none --answers-cache recipes/data/general-chat-answers.jsonl \
    --import glaive=recipes/data/imports/glaive_toolcall_en_demo.json.gz \
    --import toolrl=recipes/data/imports/toolrl_rlla_sft.json.gz --out "$data"
fi
a=gpu-stage/general-a
b=gpu-stage/general-b
rm -rf "$a" "$b"
mkdir -p "$a/wheels" "$b/data"
pins=$("$PY" -c "import importlib.metadata as m
print(' '.join(f'{p}=={m.version(p)}' for p in ('trl', 'datasets', 'gguf', 'dill', 'multiprocess')))")
# shellcheck disable=SC2086
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 -d "$a/wheels" $pins  # the device's Python
model=$("$PY" -c "from toollearn.engines.llama import embedded_model_path as p; print(p())")
split -b 50M -d -a 2 "$model" "$a/model.part-"
mv "$a/model.part-01" "$b/"
sha256sum "$model" | cut -d' ' -f1 > "$b/model.sha256"
cp "$data"/{data.jsonl,stats.json,leakage.json} "$b/data/"
tar cJf "$b/data.tar.xz" -C "$b" data && rm -r "$b/data"
du -sh "$a" "$b"
