"""Demonstrations and test goals of the simulated apps, generated from templates.

`build(app)` fills the app's template spec (apps/data/<app>.json) with a fixed seed and checks
that every label program executes; `write_all()` regenerates the bundled JSONL files of the
"demo" and "test" splits (`python -m toollearn.apps.datasets`); the spec's "train" templates are
filled by `toollearn.datagen.apps` instead, and its "dev" templates by `datagen.apps.dev_goals`.
`load_demos(app)` / `load_tests(app)` read them back as `Example`s (`load_goals` reads any goals
file, a dev set): query = goal, calls = the API calls, metadata = program, template, names,
criteria. `api_complexity` is the paper's API complexity score of a set of programs given
others (here, below evaluation, so data generation can report it too).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.apps.base import App
from toollearn.apps.program import Statement, Value, parse_program, program_names, run_program
from toollearn.core.errors import DataError, FormatError
from toollearn.core.types import Example, ToolCall
from toollearn.data.templates import generate, load_spec

DATA = Path(__file__).parent / "data"
SEED = 20230601
BUNDLED = ("demo", "test")  # the splits shipped as JSONL files
# How many goals each split gets per template (demos: one per demo template).
PER_TEMPLATE = {"home-search": {"demo": 1, "test": 5}, "trip-booking": {"demo": 1, "test": 5}}


def _stem(app: str) -> str:
    return app.replace("-", "_")


def spec_path(app: str) -> Path:
    return DATA / f"{_stem(app)}.json"


def split_path(app: str, split: str) -> Path:
    return DATA / f"{_stem(app)}_{split}.jsonl"


def app_class(app: str) -> type[App]:
    from toollearn.apps import APPS

    if app not in APPS:
        raise DataError(f"unknown app {app!r}; use one of {', '.join(APPS)}")
    return APPS[app]


def build(
    app: str,
    seed: int = SEED,
    per_template: dict[str, int] | None = None,
    splits: Sequence[str] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Generate splits of `app` as records; DataError if a label does not execute.

    `splits` defaults to the bundled ones plus any split `per_template` names; `per_template`
    overrides how many goals each template of a split yields (e.g. a large "train" split of
    templates added to the spec for model alignment). Split i of the spec is seeded seed + i."""
    cls = app_class(app)
    templates, pools = load_spec(spec_path(app))
    counts = {**PER_TEMPLATE.get(app, {}), **(per_template or {})}
    wanted = list(splits) if splits is not None else [*BUNDLED, *(per_template or {})]
    out: dict[str, list[dict[str, Any]]] = {}
    for index, (split, items) in enumerate(templates.items()):
        if split in wanted:
            out[split] = _fill_split(
                app, cls, split, items, pools, counts.get(split, 1), seed + index
            )
    return out


def _fill_split(
    app: str, cls: type[App], split: str, items: list, pools: dict, per: int, seed: int
) -> list[dict[str, Any]]:
    """One split's records: `per` goals per template, checked, in round-robin order."""
    records = []
    filled_all = generate(items, pools, per, seed=seed)
    # round-robin over templates, so the first N goals (--limit N) span N templates
    order = sorted(range(len(filled_all)), key=lambda i: (i % per, i // per))
    for i, filled in enumerate(filled_all[j] for j in order):
        run = run_program(filled.program, cls)
        if not run.executable:
            raise DataError(f"{app} {filled.template}: label does not execute: {run.error}")
        records.append(
            {
                "id": f"{app}/{split}/{i:03d}",
                "goal": filled.goal,
                "program": filled.program,
                "template": filled.template,
                "names": run.names,
                "criteria": run.criteria,
            }
        )
    return records


def write_all(apps: tuple[str, ...] = ("home-search", "trip-booking")) -> list[Path]:
    """Regenerate the bundled JSONL files (demo and test splits) of `apps`."""
    written = []
    for app in apps:
        for split, records in build(app).items():
            path = split_path(app, split)
            with path.open("w", encoding="utf-8") as f:
                for r in records:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
            written.append(path)
    return written


def _plain(value: Value) -> Any:
    if value.kind == "const":
        return value.data
    if value.kind == "list":
        return [_plain(v) for v in value.items]
    if value.kind == "helper":
        return {"$helper": value.data, "args": [_plain(v) for v in value.items]}
    return {"$var": value.data}


def program_calls(program: str, cls: type[App]) -> tuple[ToolCall, ...]:
    """The API calls of a program as ToolCalls (helper values as {"$helper", "args"})."""
    statements: list[Statement] = parse_program(program, cls)
    env = {s.target: _plain(s.value) for s in statements if s.target and s.value}
    calls = []
    for s in statements:
        if s.target:
            continue
        params = [p for p in cls.hints(s.fn)]
        args = {params[i]: _plain(v) for i, v in enumerate(s.args) if i < len(params)}
        args.update({k: _plain(v) for k, v in s.kwargs})
        args = {
            k: env.get(v["$var"], v) if isinstance(v, dict) and "$var" in v else v
            for k, v in args.items()
        }
        calls.append(ToolCall(s.fn, args))
    return tuple(calls)


def load_split(app: str, split: str) -> list[Example]:
    """Read one bundled split of an app as Examples."""
    path = split_path(app, split)
    if not path.is_file():
        raise DataError(
            f"no {split} data for {app}; run python -m toollearn.apps.datasets", str(path)
        )
    return load_goals(app, path, split)


def load_goals(app: str, path: str | Path, split: str = "dev") -> list[Example]:
    """Read a JSONL file of goal records (the bundled splits' format: id, goal, program,
    template, criteria, optional names), e.g. a dev set from `datagen.apps.dev_goals`."""
    cls = app_class(app)
    path = Path(path)
    if not path.is_file():
        raise DataError(f"no goals file {path}")
    examples = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            r = json.loads(line)
            meta = {k: r[k] for k in ("program", "template", "criteria")}
            meta["names"] = r.get("names") or program_names(r["program"], cls)
            meta["app"] = app
            calls = program_calls(r["program"], cls)
        except (ValueError, KeyError, TypeError, FormatError) as exc:
            raise DataError(f"bad record: {exc}", str(path), n) from None
        examples.append(Example(r["id"], r["goal"], calls=calls, split=split, metadata=meta))
    return examples


def load_demos(app: str) -> list[Example]:
    """The demonstration pool of an app (every API function appears in at least one)."""
    return load_split(app, "demo")


def load_tests(app: str) -> list[Example]:
    """The test goals of an app with their label programs."""
    return load_split(app, "test")


def api_distance(test: Sequence[str], demo: Sequence[str], n_apis: int, base: float = 2.0) -> float:
    """d(t, e) = |e| log(2) + |t \\ e| log(|D|), in the given log base (paper Appendix D;
    `toollearn.evaluation.metrics.complexity` explains the formula and the base)."""
    uncovered = sum((Counter(test) - Counter(demo)).values())
    return (len(demo) * math.log(2) + uncovered * math.log(n_apis)) / math.log(base)


def api_complexity(
    tests: Sequence[Sequence[str]],
    demos: Sequence[Sequence[str]],
    n_apis: int,
    base: float = 2.0,
) -> float:
    """Mean over tests of the distance to the nearest demonstration (higher = harder)."""
    if not tests:
        raise DataError("api_complexity needs at least one test program")
    if not demos:
        raise DataError("api_complexity needs at least one demonstration program")
    if n_apis < 1:
        raise DataError(f"n_apis must be >= 1, got {n_apis}")
    total = sum(min(api_distance(t, e, n_apis, base) for e in demos) for t in tests)
    return total / len(tests)


if __name__ == "__main__":
    for p in write_all():
        print(p)
