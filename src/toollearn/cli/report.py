"""`toollearn report baseline`: the README's baseline table from finished run directories."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    """Add `toollearn report baseline`."""
    report = sub.add_parser("report", help="tables built from finished benchmark runs")
    report_sub = report.add_subparsers(dest="report_command", metavar="TABLE")
    report.set_defaults(func=lambda _args: report.print_help() or 2)
    b = report_sub.add_parser(
        "baseline",
        help="Seal-Tools and DEER baseline tables, the papers' numbers beside",
        description="Read ROOT/seal/{free,constrained} and the ROOT/deer-<set>* run "
        "directories (those present) and print Markdown tables with the papers' numbers.",
    )
    b.add_argument("--root", default="results", help="folder of run directories (results)")
    b.add_argument("--out", default=None, help="also write the Markdown to this file")
    b.set_defaults(func=run_baseline)
    d = report_sub.add_parser(
        "datagen",
        help="generated datasets: samples by kind, tokens, rejections, leakage",
        description="Read ROOT/*/stats.json and leakage.json (what `toollearn datagen` writes) "
        "and print one Markdown table.",
    )
    d.add_argument("--root", required=True, help="folder of dataset folders")
    d.set_defaults(func=run_datagen)


def run_baseline(args: argparse.Namespace) -> int:
    from toollearn.evaluation.baseline import DEER_SETS, deer_table, seal_table

    root = Path(args.root)
    parts = []
    if (root / "seal" / "free").is_dir():
        parts.append(
            f"## Seal-Tools test (paper's 5-candidate prompts)\n\n{seal_table(root / 'seal')}"
        )
    deer_runs = {split: deer_runs_of(root, split) for split in DEER_SETS}
    if any(deer_runs.values()):
        parts.append(f"## DEER (unseen tools)\n\n{deer_table(deer_runs)}")
    if not parts:
        print(f"no finished runs under {root}")
        return 1
    text = "\n\n".join(parts) + "\n"
    print(text, end="")
    if args.out:
        Path(args.out).write_text(text)
    return 0


def deer_runs_of(root: Path, split: str) -> list[tuple[str, Path]]:
    """(label, run dir) of the scored DEER runs on a test set, labelled from their configs:
    the full pipeline or Decision-Call only, with the released format or zero-shot prompts."""
    import json

    found = []
    for run in sorted(root.glob(f"deer-{split}*")):
        if not (run / "scores.json").is_file():
            continue
        config = json.loads((run / "config.json").read_text())
        if config.get("split") != split:
            continue
        stage = "Decision-Call only" if config.get("skip_search") else "full pipeline"
        prompting = config.get("prompting", "zero-shot")
        prompts = "released format" if prompting == "released" else "zero-shot prompts"
        found.append((config.get("skip_search", False), f"{stage}, {prompts}", run))
    return [(label, run) for _, label, run in sorted(found, key=lambda x: (x[0], x[1]))]


def run_datagen(args: argparse.Namespace) -> int:
    from toollearn.datagen.dataset import datasets_table

    print(datasets_table(args.root), end="")
    return 0
