"""`toollearn runs merge`: join the shard run directories of one benchmark run."""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(sub: Any) -> None:
    """Add `toollearn runs merge`."""
    runs = sub.add_parser("runs", help="manage benchmark run directories")
    runs_sub = runs.add_subparsers(dest="runs_command", metavar="ACTION")
    runs.set_defaults(func=lambda _args: runs.print_help() or 2)
    m = runs_sub.add_parser(
        "merge",
        help="join shard run directories (from --shard K/N) into one",
        description="Copy the records of shard run directories into OUT (created, or "
        "extended if it holds the same run); configs must agree except for the shard. Then "
        "rerun the benchmark command with --out OUT and no --shard: nothing is left to "
        "predict, and it writes the scores of the whole run.",
    )
    m.add_argument("--out", required=True, help="the merged run directory")
    m.add_argument("sources", nargs="+", help="shard run directories")
    m.set_defaults(func=run_merge)


def run_merge(args: argparse.Namespace) -> int:
    from toollearn.evaluation.runners.base import merge_runs

    print(json.dumps(merge_runs(args.out, args.sources)))
    return 0
