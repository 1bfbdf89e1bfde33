"""The trajectories whose episode in a committed run repeated a call (the same tool and
arguments): the only episodes `--ask-again-on-repeat` can change, since greedy decoding makes
every other episode run as before (no model).

python results/agent-ask-again/subset.py RUN TRAJECTORIES OUT
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def repeats_a_call(record: dict[str, Any]) -> bool:
    """Whether the episode's model turns asked for one exact call twice."""
    seen: set[str] = set()
    for step in record["trace"]["steps"]:
        if step["kind"] != "call":
            continue
        for call in step["calls"]:
            key = call["name"] + json.dumps(call["arguments"], sort_keys=True)
            if key in seen:
                return True
            seen.add(key)
    return False


def repeating_ids(run: Path) -> set[str]:
    lines = (run / "predictions.jsonl").read_text().splitlines()
    return {r["id"] for r in map(json.loads, lines) if repeats_a_call(r)}


if __name__ == "__main__":
    run, trajectories, out = (Path(a) for a in sys.argv[1:4])
    ids = repeating_ids(run)
    subset = [t for t in json.loads(trajectories.read_text()) if t["id"] in ids]
    out.write_text(json.dumps(subset))
    print(f"{out}: {len(subset)} of the run's episodes repeat a call")
