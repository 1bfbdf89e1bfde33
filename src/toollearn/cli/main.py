"""`toollearn` entry point.

Every module in this package that defines `register(subparsers)` adds top-level commands;
every module that defines `register_eval(eval_subparsers)` adds a `toollearn eval <name>`
benchmark. Each registered parser sets `func(args) -> int | None` as its default.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import toollearn
import toollearn.cli as cli_pkg
from toollearn.cli.screen_help import fit_screens, whole_help
from toollearn.core.errors import ToollearnError


def _command_modules() -> list:
    names = sorted(m.name for m in pkgutil.iter_modules(cli_pkg.__path__)
                   if m.name not in ("main", "screen_help"))  # fmt: skip
    return [importlib.import_module(f"toollearn.cli.{name}") for name in names]


USER_COMMANDS = ("call", "run", "serve", "tune", "demo", "mcp", "train", "export", "datagen",
                 "eval", "help")  # fmt: skip
LAB_COMMANDS = ("retrieve", "score", "report", "runs", "data", "tools")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toollearn", description="Turn small open LLMs into reliable tool users.",
        epilog=f"The lab's commands (runs, scores, tables, data): {', '.join(LAB_COMMANDS)}; "
        "each has --help.",
    )  # fmt: skip
    parser.add_argument("--version", action="version", version=toollearn.__version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = _command_modules()
    evaluator = sub.add_parser("eval", help="run a benchmark and write predictions + scores")
    eval_sub = evaluator.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    evaluator.set_defaults(func=lambda _args: evaluator.print_help() or 2)
    for module in modules:
        if hasattr(module, "register"):
            module.register(sub)
        if hasattr(module, "register_eval"):
            module.register_eval(eval_sub)
    helper = sub.add_parser("help", help="a command's help with every flag's note whole")
    helper.add_argument("path", nargs="*", metavar="COMMAND", help="such as: eval calls")
    helper.set_defaults(func=_print_whole_help)
    # the help lists the user's commands in this order; the lab's stay callable (epilog)
    listed = {a.dest: a for a in sub._choices_actions}
    sub._choices_actions[:] = [listed[name] for name in USER_COMMANDS if name in listed]
    fit_screens(parser)
    return parser


def _print_whole_help(args: argparse.Namespace) -> int:
    print(whole_help(build_parser(), args.path), end="")
    return 0


def main(argv: list[str] | None = None) -> int:
    # Before any command imports torch: its libgomp loads first and llama.cpp then runs on
    # it, so the passive wait has to be set for that one too (with the hybrid retriever
    # loaded beside the model, spinning made Seal-Tools queries 4-5x slower).
    from toollearn.engines.llama import quiet_openmp

    quiet_openmp()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except ToollearnError as exc:
        print(f"toollearn: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `toollearn ... | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
