#!/usr/bin/env bash
# The carry check: shard 1/64 of the test set (22 queries) generated from scratch with the
# narrower grammar, nothing carried; every answer of SOURCE that carry.py would carry must come
# out byte for byte.
#   bash results/seal-distinct/check.sh                (--distinct-tools, from v3's whole run)
#   bash results/seal-distinct/check.sh results/seal-full-v3 runs/seal-copy/check --copy-strings
#   bash results/seal-distinct/check.sh results/seal-copy-all runs/seal-stated/check \
#     --copy-strings --stated-optional
set -euo pipefail
source .venv/bin/activate
SOURCE=${1:-results/seal-full-v3}
OUT=${2:-runs/seal-distinct/check}
shift 2 || true
FLAGS=("${@:---distinct-tools}")
toollearn eval seal-tools --split all --constrained "${FLAGS[@]}" --n-seq 8 \
  --data-root ../shared/data --engine tuned --threads 1 --shard 1/64 --out "$OUT"
python - "$SOURCE" "$OUT" "${FLAGS[*]}" <<'PY'
import json, sys
sys.path.insert(0, "results/seal-distinct")
from carry import carried
from toollearn.evaluation.runners.seal_tools import load_prompts
source, out, flags = sys.argv[1], sys.argv[2], sys.argv[3].split()
distinct, copy = "--distinct-tools" in flags, "--copy-strings" in flags
stated = "--stated-optional" in flags
load = lambda p: {r["id"]: r for r in map(json.loads, open(p))}
old, new = load(f"{source}/predictions.jsonl"), load(f"{out}/predictions.jsonl")
examples = {ex.id: ex for ex in load_prompts("all", "../shared/data")}
same = [i for i in new if carried(old[i], examples[i], distinct, copy, stated)]
diff = [i for i in same if new[i]["output"] != old[i]["output"]]
print(f"{len(same)} of {len(new)} answers carryable; {len(diff)} differ: {diff}")
rest = [i for i in new if i not in same]
print(f"{len(rest)} regenerated; {sum(new[i]['output'] != old[i]['output'] for i in rest)} changed")
PY
