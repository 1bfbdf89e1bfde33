"""`toollearn data stats <dataset>`: counts of the Seal-Tools / ToolDEER data (full or sample)."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `data` command group."""
    data = subparsers.add_parser("data", help="inspect the datasets (full data or bundled sample)")
    sub = data.add_subparsers(dest="data_command", metavar="SUBCOMMAND")
    data.set_defaults(func=lambda _args: data.print_help() or 2)
    stats = sub.add_parser("stats", help="counts by split, difficulty, calls, nesting, decisions")
    stats.add_argument("dataset", choices=["seal-tools", "tooldeer"], help="which dataset")
    stats.add_argument(
        "--data-root",
        default=None,
        help="folder holding seal-tools/ and tooldeer/ (default: $TOOLLEARN_DATA, "
        "else the small sample bundled with the package)",
    )
    stats.add_argument("--json", action="store_true", help="print the counts as JSON")
    stats.set_defaults(func=_stats)


def _row(cells: list[Any], widths: list[int]) -> str:
    first = f"{cells[0]!s:<{widths[0]}}"
    return first + "".join(f"{c!s:>{w}}" for c, w in zip(cells[1:], widths[1:]))


def _hist(h: dict[str, int]) -> str:
    return " ".join(f"{k}:{v}" for k, v in h.items())


def _seal_text(s: dict[str, Any]) -> list[str]:
    lines = [f"Seal-Tools  {s['root']}"]
    if "tools" in s:
        extra = f"; {s['tools_with_extra_keys']} tools carry extra keys, kept"
        fields = f"fields {s.get('fields', '?')}, sub-fields {s.get('sub_fields', '?')}"
        lines.append(f"tools: {s['tools']} ({fields}{extra})")
    cols = ["split", "instances", "easy", "difficult", "nested", "nested_refs", "calls"]
    widths = [17, 10, 6, 11, 8, 13, 7]
    for title, table in (("splits (new format)", s["splits"]), ("eval prompts", s["eval_prompts"])):
        if not table:
            continue
        lines += ["", title + ":", _row(cols + ["  calls/instance"], widths + [0])]
        for split, r in table.items():
            cells = [split] + [r[c] for c in cols[1:]] + ["  " + _hist(r["calls_per_instance"])]
            lines.append(_row(cells, widths + [0]))
    for split, r in s["eval_prompts"].items():
        lines.append(
            f"  {split}: candidates per prompt {_hist(r['candidates'])}; "
            f"gold tool missing from candidates in {r['gold_missing_from_candidates']}"
        )
    if s["old_format"]:
        old = ", ".join(f"{k} {v['instances']}" for k, v in s["old_format"].items())
        lines += ["", f"old format: {old}"]
    lines += ["", "nested = a parameter value mentions API_call_ (paper/README count);",
              "nested_refs = exact API_call_k values (Example.nested)."]  # fmt: skip
    return lines


def _deer_text(s: dict[str, Any]) -> list[str]:
    lines = [f"ToolDEER  {s['root']}"]
    if "tools" in s:
        lines.append(
            f"tools: {s['tools']} ({s['tool_examples']} query/call examples; "
            f"{s['name_differs_from_api_name']} with a function name other than api_name)"
        )
    cols = ["split", "instances", "Call", "NoCall", "NoSearch", "pool_tools", "gold_tools"]
    widths = [13, 10, 6, 8, 10, 12, 12]
    lines += ["", _row(cols + ["  unreadable gold args"], widths + [0])]
    for split, r in s["splits"].items():
        cells = [split] + [r[c] for c in cols[1:]] + [f"  {r['gold_calls_with_unreadable_args']}"]
        lines.append(_row(cells, widths + [0]))
    return lines


def _stats(args: argparse.Namespace) -> int:
    from toollearn.data import stats
    from toollearn.data.registry import sample_root

    root = args.data_root or os.environ.get("TOOLLEARN_DATA") or sample_root()
    if args.dataset == "seal-tools":
        result = stats.seal_stats(root)
        text = _seal_text(result)
    else:
        result = stats.deer_stats(root)
        text = _deer_text(result)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        if root == sample_root():
            print("(bundled sample; pass --data-root for the full data)")
        print("\n".join(text))
    return 0
