"""Recompute a run directory's scores from its raw model text, for every benchmark.

`rescore_run(dir)` reads the run's `config.json` and `predictions.jsonl`, loads the examples
the config names, and scores the records with the runner's own `score_records` (which re-read
every answer from the stored model text). `compare(dir)` puts the result beside the committed
`scores.json`: a run anyone can recompute gives no differences.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError
from toollearn.evaluation.runners.base import read_records

BENCHMARKS = ("seal-tools", "deer", "stepwise", "episodes", "apps", "calls")


def benchmark_of(config: dict[str, Any]) -> str:
    """Which runner wrote a run (apps runs predate the `benchmark` key)."""
    if "benchmark" in config:
        return str(config["benchmark"])
    if "app" in config and "generator" in config:
        return "apps"
    raise DataError(f"cannot tell which benchmark wrote a run with config {config}")


def rescore_run(
    run_dir: str | Path, data_root: str | Path | None = None, ids: set[str] | None = None
) -> dict[str, Any]:
    """The scores of a run directory, recomputed from its records (only those whose id is in
    `ids`, when given: two runs compared on the examples both finished)."""
    run_dir = Path(run_dir)
    config = run_config(run_dir)
    records = read_records(run_dir / "predictions.jsonl")
    if ids is not None:
        records = [r for r in records if r["id"] in ids]
    kind = benchmark_of(config)
    if kind == "seal-tools":
        return _seal(config, records, data_root)
    if kind == "deer":
        from toollearn.evaluation.runners import deer

        examples = deer.load_deer(config["split"], data_root, sample=bool(config.get("sample")))
        return deer.score_records(records, examples)
    if kind == "stepwise":
        return _stepwise(config, records)
    if kind == "episodes":
        from toollearn.evaluation.runners.episodes import score_records as score_episodes

        return score_episodes(records)
    if kind == "apps":
        from toollearn.evaluation.runners.apps import score_records as score_app

        return score_app(records, config["app"])
    if kind == "calls":
        return _calls(config, records)
    raise DataError(f"no rescoring for benchmark {kind!r}; known: {', '.join(BENCHMARKS)}")


def run_config(run_dir: Path) -> dict[str, Any]:
    """A run directory's config.json, or a clear error."""
    if not (run_dir / "config.json").is_file():
        raise DataError(f"{run_dir} is not a run directory (no config.json)")
    return json.loads((run_dir / "config.json").read_text())


def _seal(config: dict[str, Any], records: list, data_root: Any) -> dict[str, Any]:
    from toollearn.evaluation.runners import seal_tools

    examples = seal_tools.run_examples(config, records, data_root)
    return seal_tools.score_records(records, examples)


def _calls(config: dict[str, Any], records: list, kinds: bool = False) -> dict[str, Any]:
    from toollearn.evaluation.calls_suite import by_category, by_kind, load_suite
    from toollearn.evaluation.runners.calls import rescore

    if config.get("set"):
        from toollearn.evaluation.examples import load_set

        suite = load_set(config["set"], config["split"])
    else:
        folder = None if config.get("suite", "shipped") == "shipped" else config["suite"]
        suite = load_suite(config["split"], folder)
    rows = rescore(suite, records)
    return by_kind(rows) if kinds else by_category(rows)


def rescore_calls_by_kind(run_dir: str | Path) -> dict[str, Any]:
    """An `eval calls` run's scores per category and kind ("multi-turn/answer", ...)."""
    run_dir = Path(run_dir)
    return _calls(run_config(run_dir), read_records(run_dir / "predictions.jsonl"), kinds=True)


def _stepwise(config: dict[str, Any], records: list) -> dict[str, Any]:
    from toollearn.data.trajectories import read_trajectories
    from toollearn.evaluation.runners import stepwise

    roles = config.get("roles") or stepwise.ROLES
    trajectories = read_trajectories(stepwise.trajectory_file(config["file"]))
    cases, skipped = stepwise.step_cases(trajectories)
    gate = config.get("plan_gate")
    plans = stepwise.plan_gate_plans(cases, gate)
    scores = stepwise.score_records(records, config.get("stop_threshold"), roles,
                                    gate and gate["rule"], plans)  # fmt: skip
    scores["skipped_gold_steps"] = skipped
    return scores


def compare(run_dir: str | Path, data_root: str | Path | None = None) -> list[str]:
    """Differences between the recomputed scores and the run's scores.json (empty: equal).
    Numbers are compared as stored (JSON round trip); nothing is left out."""
    run_dir = Path(run_dir)
    stored = json.loads((run_dir / "scores.json").read_text())["scores"]
    fresh = json.loads(json.dumps(rescore_run(run_dir, data_root)))
    return _diff(stored, fresh, "")


def _diff(a: Any, b: Any, where: str) -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                out.append(f"{where}/{key}: only in {'scores.json' if key in a else 'rescored'}")
            else:
                out += _diff(a[key], b[key], f"{where}/{key}")
        return out
    if isinstance(a, float) or isinstance(b, float):
        same = isinstance(a, int | float) and isinstance(b, int | float) and abs(a - b) < 1e-9
        return [] if same else [f"{where}: {a!r} != {b!r}"]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


def rewrite_scores(run_dir: str | Path, reason: str, data_root: Any = None) -> dict[str, Any]:
    """Replace a run's scores with the recomputed ones (a scorer was fixed), keeping every
    other key and noting why and when under "rescored" (earlier notes move, oldest first, to
    "rescored_earlier")."""
    import time

    from toollearn.evaluation.runners.base import git_hash

    run_dir = Path(run_dir)
    path = run_dir / "scores.json"
    if not path.is_file():
        raise DataError(
            f"{run_dir} has no scores.json to rewrite: score the run with its benchmark "
            "command and --score-only first"
        )
    payload = json.loads(path.read_text())
    payload["scores"] = rescore_run(run_dir, data_root)
    note_rescored(payload, {"by": "toollearn score --run DIR --write", "reason": reason,
                            "git": git_hash(), "date": time.strftime("%Y-%m-%d")})  # fmt: skip
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    return payload["scores"]


def note_rescored(payload: dict[str, Any], note: dict[str, Any]) -> None:
    """Set a scores.json payload's "rescored" note; an earlier one moves to the end of
    "rescored_earlier" (oldest first)."""
    if "rescored" in payload:
        payload["rescored_earlier"] = [*payload.get("rescored_earlier", []), payload["rescored"]]
    payload["rescored"] = note
