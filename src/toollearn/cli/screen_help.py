"""`--help` that fits a screen, and `toollearn help COMMAND` for the whole of it.

`--help` gives each flag's note up to its first clause (what it is, not every default and
reference), and a long usage as `[options]` plus what is required; `toollearn help eval
episodes` prints the same help with every note whole.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

SHORT_NOTE = 72  # characters (a line at 100 columns): a longer first clause is cut
USAGE_LINES = 3


def first_clause(text: str) -> str:
    """`text` up to its first "; " or ". " outside parentheses; cut at a word near
    `SHORT_NOTE` characters (with "...") where that is still longer."""
    depth, end = 0, len(text)
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and ch in ";." and text[i + 1 : i + 2] in (" ", "") and text[i - 1] != ".":
            end = i
            break
    short = text[:end].rstrip()
    if len(short) <= SHORT_NOTE:
        return short
    cut = short.rfind(" ", 0, SHORT_NOTE - 4)
    return short[: cut if cut > 0 else SHORT_NOTE - 4].rstrip(" ,:(") + " ..."


class ScreenHelp(argparse.HelpFormatter):
    """Short notes and a short usage (see the module doc); mixed into a parser's own
    formatter class (`fit_screens`)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        return first_clause(action.help or "")

    def _format_usage(self, usage, actions, groups, prefix):  # type: ignore[no-untyped-def]
        text = super()._format_usage(usage, actions, groups, prefix)
        if usage is not None or len(text.strip().splitlines()) <= USAGE_LINES:
            return text
        required = [f"{a.option_strings[0]} {a.metavar or a.dest.upper()}"
                    for a in actions if a.option_strings and a.required]  # fmt: skip
        positional = [a.metavar or a.dest for a in actions if not a.option_strings]
        short = " ".join([self._prog, "[options]", *required, *map(str, positional)])
        return super()._format_usage(short, actions, groups, prefix)

    def format_help(self) -> str:
        whole = self._prog.replace("toollearn", "toollearn help", 1)
        return super().format_help().rstrip("\n") + f"\n\nEvery note whole: {whole}\n"


def parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """`parser` and every sub-command parser under it."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                yield from parsers(child)


def fit_screens(parser: argparse.ArgumentParser) -> None:
    """Give every sub-command's `--help` the short notes (`ScreenHelp`)."""
    for p in parsers(parser):
        own = p.formatter_class
        if p is not parser and not issubclass(own, ScreenHelp):
            p.formatter_class = type(f"Screen{own.__name__}", (ScreenHelp, own), {"whole": own})


def whole_help(parser: argparse.ArgumentParser, path: list[str]) -> str:
    """The help of the command at `path` under `parser`, every note whole."""
    node = parser
    for name in path:
        subs = [a for a in node._actions if isinstance(a, argparse._SubParsersAction)]
        choices = subs[0].choices if subs else {}
        if name not in choices:
            known = ", ".join(choices) or "none"
            raise SystemExit(f"toollearn help: no command {' '.join(path)!r} (here: {known})")
        node = choices[name]
    node.formatter_class = getattr(node.formatter_class, "whole", node.formatter_class)
    return node.format_help()
