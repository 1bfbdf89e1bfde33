"""Item by item: do two `eval calls` runs give the same answers (the same calls, names and
arguments, and the same text)? Used for the in-process runs against the served ones.

    python results/calls-suite/same_answers.py results/calls-suite/tools-135m \
        results/calls-suite/served-tools-135m
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toollearn.evaluation.calls_suite import Answer


def answers(run: Path) -> dict[str, Answer]:
    out = {}
    for line in (run / "predictions.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        out[rec["id"]] = Answer.from_message(rec.get("message") or {})
    return out


def main(a: str, b: str) -> None:
    left, right = answers(Path(a)), answers(Path(b))
    common = sorted(set(left) & set(right))
    differ = [i for i in common if left[i] != right[i]]
    print(f"{len(common)} items in both runs; {len(common) - len(differ)} answered the same, "
          f"{len(differ)} differently")
    for i in differ[:20]:
        print(f"- {i}: {left[i]} | {right[i]}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
