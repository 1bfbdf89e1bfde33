"""`toollearn report baseline`: the zero-shot baseline table from finished runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    """Add `toollearn report baseline|datagen|compare|calls|headline`."""
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
    c = report_sub.add_parser(
        "compare",
        help="runs of one benchmark side by side, on the examples all of them finished",
        description="Rescore each run from its raw model text on the ids common to all the "
        "runs (e.g. a tuned model's shard of a test set against the base's full run) and "
        "print one Markdown table of the benchmark's headline metrics.",
    )
    c.add_argument("runs", nargs="+", help="run directories (config.json + predictions.jsonl)")
    c.add_argument("--label", action="append", default=None,
                   help="column label per run, in order (default: folder names)")  # fmt: skip
    c.add_argument("--data-root", default=None, help="dataset root (Seal-Tools, ToolDEER)")
    c.add_argument("--out", default=None, help="also write the Markdown to this file")
    c.add_argument("--json", default=None, help="also write the table and scores as JSON")
    c.add_argument("--figure", default=None, help="also draw the metrics as bars in this PNG")
    c.add_argument("--metric", action="append", default=None,
                   help="a metric the figure shows (repeatable; default: all)")  # fmt: skip
    c.add_argument("--title", default="", help="the figure's title")
    c.add_argument("--bootstrap", type=int, default=0, metavar="DRAWS",
                   help="Seal-Tools runs: also print paired bootstrap 95%% intervals of each "
                   "run's Tool and Param F1 (official and strict) minus the first run's, from "
                   "DRAWS resamples of the common queries (e.g. 2000)")  # fmt: skip
    c.add_argument("--seed", type=int, default=0, help="the bootstrap's seed")
    c.set_defaults(func=run_compare)
    g = report_sub.add_parser(
        "calls",
        help="general suite runs side by side: one row per run, the categories as columns",
        description="Rescore each `eval calls` run from its stored answers and print Markdown "
        "tables (exact, decision, tool and argument F1, markup, answers, mentions), one row "
        "per run, the categories as columns.",
    )
    g.add_argument("runs", nargs="+", help="run directories")
    g.add_argument("--label", action="append", default=None,
                   help="row label per run, in order (default: folder names)")  # fmt: skip
    g.add_argument("--out", default=None, help="also write the Markdown to this file")
    g.add_argument("--by-kind", action="store_true",
                   help="a column per category and kind (multi-turn/answer: answering after "
                   "tool results, decline/handwritten, ...)")  # fmt: skip
    g.set_defaults(func=run_calls)
    h = report_sub.add_parser(
        "headline",
        help="the tuned model against the base and the papers (tables and a figure)",
        description="Gather the compare.json files that recipes/tools-135m-eval.sh leaves "
        "under ROOT (or in the folders --panel names) into Markdown tables with the papers' "
        "rows, and draw the headline figure.",
    )
    h.add_argument("--root", default=None, help="the eval output folder")
    h.add_argument("--panel", action="append", default=[], metavar="PANEL=DIR",
                   help="take a panel (seal-constrained, deer-test-dc, apps-hs/home-search/"
                   "constrained, ...) from the run folder DIR and its compare.json; repeatable, "
                   "wins over --root")  # fmt: skip
    h.add_argument("--out", default=None, help="also write the Markdown to this file")
    h.add_argument("--figure", default=None, help="write the figure to this PNG")
    h.set_defaults(func=run_headline)


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
    _emit(text, args.out)
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


def run_compare(args: argparse.Namespace) -> int:
    import json

    from toollearn.core.errors import DataError
    from toollearn.evaluation.compare import compare_runs

    if args.bootstrap < 0:
        raise DataError(f"--bootstrap takes a number of draws, not {args.bootstrap}")
    result = compare_runs(args.runs, args.label, args.data_root)
    text, extra = result.markdown(), {}
    if args.bootstrap > 0:
        from toollearn.evaluation.bootstrap import intervals_markdown, seal_bootstrap

        intervals, n = seal_bootstrap(args.runs, result.labels, args.data_root, args.bootstrap,
                                      args.seed)  # fmt: skip
        text += "\n" + intervals_markdown(intervals, result.labels[0], n, args.bootstrap)
        extra["bootstrap"] = {"draws": args.bootstrap, "seed": args.seed,
                              "intervals": [iv.to_dict() for iv in intervals]}  # fmt: skip
    _emit(text, args.out)
    if args.json:
        Path(args.json).write_text(json.dumps(result.to_dict() | extra, indent=2) + "\n")
    if args.figure:
        result.plot(args.figure, args.metric, args.title)
    return 0


def run_calls(args: argparse.Namespace) -> int:
    from toollearn.core.errors import DataError
    from toollearn.evaluation.calls_suite import markdown_tables
    from toollearn.evaluation.rescore import rescore_calls_by_kind, rescore_run

    labels = args.label or [Path(r).name for r in args.runs]
    if len(labels) != len(args.runs):
        raise DataError(f"{len(labels)} labels for {len(args.runs)} runs")
    score = rescore_calls_by_kind if args.by_kind else rescore_run
    _emit(markdown_tables([(lab, score(r)) for lab, r in zip(labels, args.runs)]), args.out)
    return 0


def run_headline(args: argparse.Namespace) -> int:
    from toollearn.core.errors import DataError
    from toollearn.evaluation.headline import headline, plot_headline

    panels = {}
    for item in args.panel:
        name, sep, folder = item.partition("=")
        if not sep or not name or not folder:
            raise DataError(f"--panel takes PANEL=DIR, not {item!r}")
        panels[name] = folder
    if args.root is None and not panels:
        raise DataError("give --root or at least one --panel")
    text, rows = headline(args.root, panels)
    _emit(text, args.out)
    if args.figure:
        plot_headline(rows, args.figure)
    return 0


def run_datagen(args: argparse.Namespace) -> int:
    from toollearn.datagen.dataset import datasets_table

    print(datasets_table(args.root), end="")
    return 0


def _emit(text: str, out: str | None) -> None:
    """Print a report, and also write it to `out` when given."""
    print(text, end="")
    if out:
        Path(out).write_text(text)
