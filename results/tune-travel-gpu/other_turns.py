"""The tune-travel-gpu adapter and the default on 104 other generated travel turns (seed 2,
kept apart from that run's test and training queries), constrained as `tune` scores them:

  # runs/travel-exclude.txt: that run's test and training queries, one a line
  toollearn datagen mixture --tools examples/travel_tools.json -n 100 --seed 2 --docs compact \
      --exclude-queries runs/travel-exclude.txt --out runs/travel-valid --no-tokens
  python results/tune-travel-gpu/other_turns.py runs/travel-valid \
      results/tune-travel-gpu/other-turns.jsonl tuned llama@runs/tune-travel-gpu/adapter.gguf \
      tuned:runs/tune-travel-gpu/adapter.gguf

(2026-12-04, one 1-thread process: tuned 54.8, yours 53.8 either way it is applied, at run
time or merged.)
"""

import json
import sys

from toollearn.datagen.dataset import read_dataset
from toollearn.engines import load_engine
from toollearn.evaluation.tool_calls import evaluate

data, out = sys.argv[1], sys.argv[2]
rows = read_dataset(data)
for spec in sys.argv[3:]:
    summary, _ = evaluate(load_engine(spec, n_threads=1), rows)
    print(spec, json.dumps(summary), flush=True)
    with open(out, "a") as fh:
        fh.write(json.dumps({"spec": spec, "summary": summary}) + "\n")
