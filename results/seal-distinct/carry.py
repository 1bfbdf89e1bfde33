"""Seed a `--distinct-tools` run with the answers of a finished plain run that it would repeat.

The distinct grammar only removes continuations that call a tool a second time, and decoding is
greedy, so an answer that called no tool twice, finished (finish_reason "stop") and needed no
retry is the one the distinct run generates too. Those records are copied (stamped
`carried_from`), with the sessions that made them; `toollearn eval seal-tools ... --distinct-tools`
then resumes the run and generates only the rest. `check.sh` regenerates a shard without
carrying anything and compares.

    python results/seal-distinct/carry.py FROM_RUN OUT_DIR --engine ENGINE [--shard K/N]
        [--data-root ../shared/data]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from toollearn.evaluation.runners.base import parse_shard, take_shard
from toollearn.evaluation.runners.seal_tools import load_prompts


def repeats_a_tool(output: str) -> bool | None:
    """Whether the answer calls a tool twice (None: not a JSON call list)."""
    try:
        calls = json.loads(output)
    except (TypeError, ValueError):
        return None
    if not isinstance(calls, list):
        return None
    names = [c.get("api") for c in calls if isinstance(c, dict)]
    return len(names) != len(set(names))


def carried(record: dict) -> bool:
    return (
        record.get("error") is None
        and record.get("retries") == 0
        and record.get("finish_reason") == "stop"
        and repeats_a_tool(record.get("output", "")) is False
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--engine", required=True, help="the --engine the resumed run gets")
    ap.add_argument("--shard", default=None)
    ap.add_argument("--data-root", default="../shared/data")
    args = ap.parse_args()
    config = json.loads((args.source / "config.json").read_text())
    config = {**config, "engine": args.engine, "distinct_tools": True}
    shard = parse_shard(args.shard)
    if shard is not None:
        config["shard"] = f"{shard[0]}/{shard[1]}"
    records = [json.loads(x) for x in (args.source / "predictions.jsonl").read_text().splitlines()]
    ids = [ex.id for ex in load_prompts(config["split"], args.data_root)]
    wanted = set(take_shard(ids, shard))
    keep = [r for r in records if r["id"] in wanted and carried(r)]
    args.out.mkdir(parents=True, exist_ok=False)
    (args.out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    sessions = {r.get("session") for r in keep}
    lines = (args.source / "sessions.jsonl").read_text().splitlines()
    with (args.out / "sessions.jsonl").open("w") as f:
        for line in lines:
            if json.loads(line).get("session") in sessions:
                f.write(line + "\n")
    with (args.out / "predictions.jsonl").open("w") as f:
        for r in keep:
            f.write(json.dumps({**r, "carried_from": str(args.source)}, ensure_ascii=False) + "\n")
    print(f"{args.out}: carried {len(keep)} of the shard's {len(wanted)} answers")


if __name__ == "__main__":
    main()
