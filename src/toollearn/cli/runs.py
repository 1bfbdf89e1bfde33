"""`toollearn runs split|merge`: spread one benchmark run over shards, and join them again."""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(sub: Any) -> None:
    """Add `toollearn runs split` and `toollearn runs merge`."""
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
    m.add_argument(
        "--allow-diff",
        action="append",
        default=[],
        metavar="KEY",
        help="a config key that may differ between the runs (repeatable), e.g. split",
    )
    m.add_argument(
        "--shard",
        default=None,
        metavar="K/N",
        help="the sources together are shard K/N of the set (shards 1/8 and 5/8 make 1/4): "
        "record the merged run as it, and score it with the benchmark command plus --shard K/N",
    )
    m.set_defaults(func=run_merge)
    s = runs_sub.add_parser(
        "split",
        help="continue an unfinished run as N shards",
        description="Make SRC-shardKofN copies of the run directory SRC (or of each run "
        "directory in SRC, e.g. a --modes OUT_ROOT) that carry its finished records and the "
        "shard K/N in their config. Resume shard K with the same benchmark command plus "
        "--shard K/N and --out[-root] SRC-shardKofN, then `runs merge` them back into SRC.",
    )
    s.add_argument("src", help="the run directory (or folder of run directories)")
    s.add_argument("--shards", type=int, required=True, help="how many shards")
    s.set_defaults(func=run_split)


def run_merge(args: argparse.Namespace) -> int:
    from toollearn.evaluation.runners.base import merge_runs, parse_shard

    merged = merge_runs(args.out, args.sources, args.allow_diff, parse_shard(args.shard))
    print(json.dumps(merged))
    return 0


def run_split(args: argparse.Namespace) -> int:
    from toollearn.evaluation.runners.base import split_run

    for root in split_run(args.src, args.shards):
        print(root)
    return 0
