#!/usr/bin/env bash
# The carry check: shard 1/64 of the test set (22 queries) generated with --distinct-tools from
# scratch, nothing carried; every answer carry.py would have carried must come out byte for byte.
set -euo pipefail
source .venv/bin/activate
toollearn eval seal-tools --split all --constrained --distinct-tools --n-seq 8 \
  --data-root ../shared/data --engine tuned --threads 1 --shard 1/64 --out runs/seal-distinct/check
python - <<'PY'
import json, sys
sys.path.insert(0, "results/seal-distinct")
from carry import carried
load = lambda p: {r["id"]: r for r in map(json.loads, open(p))}
v3, new = load("results/seal-full-v3/predictions.jsonl"), load("runs/seal-distinct/check/predictions.jsonl")
same = [i for i in new if carried(v3[i])]
diff = [i for i in same if new[i]["output"] != v3[i]["output"]]
print(f"{len(same)} of {len(new)} answers carryable; {len(diff)} differ: {diff}")
rest = [i for i in new if not carried(v3[i])]
print(f"{len(rest)} regenerated; {sum(new[i]['output'] != v3[i]['output'] for i in rest)} changed")
PY
