"""`toollearn tools convert`: convert tool lists between schema formats."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `tools` command group."""
    from toollearn.formats.convert import FORMATS

    tools = subparsers.add_parser("tools", help="work with tool schemas")
    sub = tools.add_subparsers(dest="tools_command", metavar="SUBCOMMAND")
    tools.set_defaults(func=lambda _args: tools.print_help() or 2)
    conv = sub.add_parser(
        "convert",
        help="convert a tool list between formats",
        description="Read tools (JSON list, JSON Lines, or {'tools': [...]}) in one format and "
        "write them in another. Formats: " + ", ".join(FORMATS) + " (and auto for --from).",
    )
    conv.add_argument(
        "--from",
        dest="src",
        default="auto",
        choices=["auto", *FORMATS],
        metavar="FORMAT",
        help="input format (default auto: told from the records)",
    )
    conv.add_argument("--to", dest="dst", required=True, choices=list(FORMATS), metavar="FORMAT")
    conv.add_argument("input", nargs="?", default="-", help="input file (default: stdin)")
    conv.add_argument(
        "-o", "--output", default="-", help="output file (.json = a JSON list, else JSON Lines)"
    )
    conv.set_defaults(func=_convert)


def _convert(args: argparse.Namespace) -> int:
    from toollearn.formats.convert import lost_fields, read_tools, write_tools

    tools = read_tools(args.input, args.src)
    write_tools(tools, args.output, args.dst)
    for name, count in lost_fields(tools, args.dst).items():
        print(
            f"warning: {args.dst} has no place for '{name}': dropped from {count} tools",
            file=sys.stderr,
        )
    if args.output != "-":
        print(f"wrote {len(tools)} tools ({args.dst}) to {args.output}", file=sys.stderr)
    return 0
