"""`toollearn eval seal-filter`: drop a Seal-Tools run's calls to tools the query never asks for."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register_eval(eval_sub: Any) -> None:
    """Add `toollearn eval seal-filter`."""
    p = eval_sub.add_parser(
        "seal-filter",
        help="a Seal-Tools run's answers without the calls to tools no clause of the query asks "
        "for (a MiniLM's second opinion), scored",
        description="Filter a finished `eval seal-tools` run's answers with the tool filter "
        "(toollearn.agents.tool_filter): a call is dropped when its tool is more than MARGIN of "
        "cosine behind the closest candidate of every clause of the query. Writes a new run "
        "directory (config, filtered and generated answers, scores); the engine is not loaded.",
    )
    p.add_argument("--run", required=True, help="a finished `toollearn eval seal-tools` run")
    p.add_argument("--out", required=True, help="the filtered run's directory (rebuilt whole)")
    p.add_argument(
        "--margin",
        type=float,
        required=True,
        help="keep a call whose tool is at most this far (cosine) behind a clause's closest "
        "candidate; 0.02 was chosen on dev (results/seal-filter-dev)",
    )
    p.add_argument(
        "--model",
        default=None,
        help="a fine-tuned MiniLM (`retrieve train`'s OUT/model or a --lora adapter folder) "
        "instead of the embedded one",
    )
    p.add_argument(
        "--data-root", default=None, help="folder holding seal-tools/ (default $TOOLLEARN_DATA)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Filter, score, print the table."""
    from toollearn.agents.tool_filter import ToolFilter
    from toollearn.cli.eval_seal import summary_table
    from toollearn.evaluation.runners.base import read_records
    from toollearn.evaluation.runners.seal_filter import filter_run, filter_stats, source_config
    from toollearn.evaluation.runners.seal_tools import run_examples, score_records

    src = Path(args.run)
    records = read_records(src / "predictions.jsonl")
    examples = run_examples(source_config(src), records, args.data_root)
    tool_filter = ToolFilter(args.margin, args.model)
    writer, records = filter_run(src, args.out, examples, tool_filter)
    scores = score_records(records, examples)
    stats = filter_stats(records)
    path = writer.write_scores(scores, {"tool_filter": stats})
    print(summary_table(scores))
    print(f"\nfiltered: {stats['calls_dropped']} calls dropped from {stats['answers_changed']} of "
          f"{stats['answers']} answers\nscores: {path}", file=sys.stderr)  # fmt: skip
    return 0
