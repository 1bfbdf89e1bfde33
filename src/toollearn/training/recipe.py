"""A recipe's data: run the `toollearn datagen` commands whose datasets are not made yet."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

from toollearn.core.errors import DataError


def datagen_argv(command: str) -> tuple[list[str], Path]:
    """A recipe's `datagen` line as toollearn argv, and the folder it writes (`--out`)."""
    argv = shlex.split(command)
    if argv[:1] == ["toollearn"]:
        argv = argv[1:]
    if argv[:1] != ["datagen"]:
        raise DataError("a recipe's datagen line is a `toollearn datagen ...` command", command)
    outs = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--out"]
    outs += [a.split("=", 1)[1] for a in argv if a.startswith("--out=")]
    if len(outs) != 1:
        raise DataError("a recipe's datagen line names one --out folder", command)
    return argv, Path(outs[0])


def _folder(path: str | Path) -> Path:
    """A dataset's folder (a data.jsonl path names its folder), resolved."""
    path = Path(path)
    return (path.parent if path.name == "data.jsonl" else path).resolve()


def make_missing_data(
    commands: Sequence[str],
    run: Callable[[list[str]], int],
    datasets: Sequence[str] | None = None,
) -> list[str]:
    """Run each command whose --out has no data.jsonl yet; returns the commands run.
    `run`: argv -> exit status (the toollearn CLI's `main`). `datasets`: the run's dataset
    paths; a command making none of them (a recipe run on other data) is skipped."""
    wanted = None if datasets is None else {_folder(d) for d in datasets}
    made = []
    for command in commands:
        argv, out = datagen_argv(command)
        if (out / "data.jsonl").is_file() or (wanted is not None and _folder(out) not in wanted):
            continue
        print(f"making training data: toollearn {shlex.join(argv)}", flush=True)
        status = run(argv)
        if status or not (out / "data.jsonl").is_file():
            raise DataError(f"datagen failed (exit {status}); no data.jsonl written", command)
        made.append(command)
    return made
