"""The CLI's size: flags per leaf command, and the totals (issue 76's before and after).

python benchmarks/cli_size.py
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from toollearn.cli.main import build_parser


def leaves(parser: argparse.ArgumentParser, path: list[str]) -> Iterator[tuple[str, int]]:
    """(command, number of flags) for every leaf command under `parser`."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        flags = [a for a in parser._actions
                 if a.option_strings and not isinstance(a, argparse._HelpAction)]  # fmt: skip
        yield " ".join(path), len(flags)
        return
    for sub in subs:
        for name, child in sub.choices.items():
            yield from leaves(child, [*path, name])


def main() -> None:
    rows = sorted(leaves(build_parser(), []), key=lambda r: -r[1])
    for name, n in rows:
        print(f"{n:4d} {name}")
    print(f"leaf commands {len(rows)}, flags {sum(n for _, n in rows)}")


if __name__ == "__main__":
    main()
