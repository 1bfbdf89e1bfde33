"""`toollearn demo` (the embedded model on bundled Seal-Tools queries, free vs constrained)
and `toollearn call` (one query against your own tools)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from toollearn.cli.common import add_engine_args, load_engine_from_args


def register(subparsers: Any) -> None:
    """Add `toollearn demo` and `toollearn call`."""
    d = subparsers.add_parser(
        "demo",
        help="the embedded model answers bundled Seal-Tools queries, free vs constrained",
        description="Runs the paper's 5-candidate Seal-Tools prompts (bundled sample) through "
        "the engine with and without the call-list constraint; nothing is executed. Prints "
        "each query, the predicted calls and the official and strict scores.",
    )
    d.add_argument("-n", "--n", type=int, default=6, help="queries (default 6)")
    add_engine_args(d)
    d.add_argument("--max-tokens", type=int, default=256)
    d.set_defaults(func=run_demo)

    c = subparsers.add_parser("call", help="answer one query with calls to your tools")
    c.add_argument("query")
    c.add_argument("--tools", required=True, help="tool file (JSON or JSONL; '-' = stdin)")
    c.add_argument(
        "--format",
        default="openai",
        help="tool file format (default openai; "
        "seal-tools, python, toolbench, tooldeer, toollearn, ...)",
    )
    add_engine_args(c)
    c.add_argument("--free", action="store_true", help="no constraint")
    c.add_argument("--allow-empty", action="store_true", help="admit [] (no call)")
    c.add_argument("--max-tokens", type=int, default=320)
    c.set_defaults(func=run_call)


def _spread(items: list, n: int) -> list:
    """n items spread evenly over the list (easy and difficult queries both appear)."""
    if n >= len(items):
        return items
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def run_demo(args: argparse.Namespace) -> int:
    """Free and constrained answers on n bundled queries, then the score table."""
    from toollearn.evaluation.runners.seal_tools import SealRunOptions, load_prompts, predict_batch

    examples = _spread(load_prompts("test_in_domain", sample=True), max(1, args.n))
    engine = load_engine_from_args(args)
    print(f"engine {engine.name}; {len(examples)} Seal-Tools queries, 5 candidates each\n")
    outputs: dict[str, list[str]] = {"free": [], "constrained": []}
    t0 = time.perf_counter()
    for i, ex in enumerate(examples, 1):
        print(f"[{i}/{len(examples)}] {ex.id}: {ex.query}")
        print(f"  gold        : {_calls_text(ex.calls)}")
        for mode in ("free", "constrained"):
            opts = SealRunOptions(constrained=mode == "constrained", max_tokens=args.max_tokens)
            rec = predict_batch(engine, [ex], opts)[0]
            outputs[mode].append(rec["output"])
            print(f"  {mode:<12}: {_shown(rec['output'])}  ({rec['seconds']:.1f}s)")
        print()
    print(demo_table(outputs, examples))
    print(
        f"\n{time.perf_counter() - t0:.0f} s in all. Full test sets: toollearn eval seal-tools "
        "--split all --modes free,constrained --data-root DIR --out-root runs/NAME"
    )
    return 0


def demo_table(outputs: dict[str, list[str]], examples: list) -> str:
    """Official and strict scores of each mode (percentages)."""
    from toollearn.evaluation.metrics.seal_tools import official_scores, strict_scores
    from toollearn.evaluation.report import format_table
    from toollearn.evaluation.runners.seal_tools import hallucinated_names, official_gold

    rows = []
    for mode, outs in outputs.items():
        hall = hallucinated_names(outs, examples)
        for scorer, fn, golds in (
            ("official", official_scores, [official_gold(e) for e in examples]),
            ("strict", strict_scores, [list(e.calls) for e in examples]),
        ):
            s = fn(outs, golds)
            rows.append(
                {
                    "mode": mode,
                    "scorer": scorer,
                    "n": s["n"],
                    "format": 100 * s["format_acc"],
                    "tool_f1": 100 * s["tool_f1"],
                    "param_f1": 100 * s["param_f1"],
                    "hallucinated": hall[scorer],
                }
            )
    cols = ["mode", "scorer", "n", "format", "tool_f1", "param_f1", "hallucinated"]
    return format_table(rows, cols, floatfmt=".1f")


def _calls_text(calls) -> str:
    from toollearn.formats.pycall import render_call

    return "; ".join(render_call(c) for c in calls) if calls else "(no call)"


def _shown(text: str) -> str:
    """Parsed calls as Python call strings, or the raw text when it is not a call list."""
    from toollearn.evaluation.metrics.seal_tools import strict_parse

    calls = strict_parse(text)
    if calls is None:
        flat = " ".join(text.split())
        return f"not a call list: {flat[:90]!r}" + ("..." if len(flat) > 90 else "")
    return _calls_text(calls)


def run_call(args: argparse.Namespace) -> int:
    """One query: the Seal-Tools prompt over the given tools, the answer and its calls."""
    from toollearn.core.errors import FormatError
    from toollearn.decoding.seal_tools import seal_calls_constraint
    from toollearn.engines import user
    from toollearn.formats.answers.seal_tools import parse_calls, render_prompt
    from toollearn.formats.convert import read_tools
    from toollearn.formats.pycall import render_call

    tools = read_tools(args.tools, args.format)
    if not tools:
        print("toollearn: error: no tools in " + args.tools, file=sys.stderr)
        return 1
    constraint = None if args.free else seal_calls_constraint(tools, args.allow_empty)
    engine = load_engine_from_args(args)
    prompt = user(render_prompt(args.query, tools))
    out = engine.complete([prompt], max_tokens=args.max_tokens, constraint=constraint)[0]
    if out.error:
        print(f"toollearn: error: {out.error}", file=sys.stderr)
        return 1
    print(out.text)
    try:
        calls = parse_calls(out.text)
    except FormatError as exc:
        print(f"# not a call list: {exc}", file=sys.stderr)
        return 1
    for call in calls:
        print("# " + render_call(call), file=sys.stderr)
    return 0
