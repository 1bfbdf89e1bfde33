"""The arguments of the episodes' calls, which the episode scorer does not read (no model).

For each gold call of a held-out trajectory (its caller turns, in order), the run's call at the
same position: alpha-UMi's half-credit Arg F1 (`evaluation.metrics.stepwise.arg_f1`) where the
tool is the gold one, 0 where it is not or the run made fewer calls. Printed per run: the mean
over gold calls, and the share of gold calls with every argument exact. A value that carries an
earlier result can differ from the gold one without being wrong (the episodes simulate their
own results), so both runs of a pair pay that alike.

    python results/agent-plan/arguments.py > results/agent-plan/arguments.md
"""

from __future__ import annotations

import json
from pathlib import Path

from toollearn.core.errors import FormatError
from toollearn.data.trajectories import read_trajectories
from toollearn.evaluation.metrics.stepwise import arg_f1
from toollearn.formats.answers import umi

EP = Path("results/episodes-tool-calls")
SPLITS = {
    "dev": ("results/umi-stop-gate/dev-set/trajectories_dev.json", "dev-"),
    "test": ("results/datagen/umi/trajectories_test.json", ""),
    "fresh": ("results/datagen/umi-fresh-test/trajectories_test.json", "fresh-"),
    "fresh2": ("results/datagen/umi-fresh-test-2/trajectories_test.json", "fresh2-"),
}
RUNS = {"dev": ["agent-r4-all"]}  # dev's default run predates the sure call


def gold_calls(trajectory) -> list[tuple[str, dict]]:
    out = []
    for turn in trajectory.conversations:
        if turn.role != "caller":
            continue
        try:
            call = umi.parse_action(turn.content)
        except FormatError:
            continue
        out.append((call.name, dict(call.arguments)))
    return out


def run_calls(record: dict) -> list[tuple[str, dict]]:
    return [(c["name"], c["arguments"]) for s in record["trace"]["steps"]
            if s["kind"] == "call" for c in s["calls"]]  # fmt: skip


def score(run: Path, gold: dict[str, list]) -> tuple[float, float, float, int, int]:
    """Arg F1 over every gold call, the share exact, Arg F1 over the calls whose tool is
    right, and the two counts."""
    f1s: list[float] = []
    matched: list[float] = []
    for line in (run / "predictions.jsonl").read_text().splitlines():
        record = json.loads(line)
        made = run_calls(record)
        for k, (name, args) in enumerate(gold[record["id"]]):
            right = k < len(made) and made[k][0] == name
            f1s.append(arg_f1(made[k][1], args) if right else 0.0)
            if right:
                matched.append(f1s[-1])
    exact = sum(f == 1.0 for f in f1s)
    mean = lambda xs: 100 * sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    return mean(f1s), 100 * exact / len(f1s), mean(matched), len(f1s), len(matched)


def main() -> None:
    print("| split | run | gold calls | Arg F1 (position-matched) | every argument exact | "
          "calls with the gold tool | their Arg F1 |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|")
    for split, (file, prefix) in SPLITS.items():
        gold = {t.id: gold_calls(t) for t in read_trajectories(file)}
        for name in RUNS.get(split, ["agent-r4-all-sure-call"]) + [
            "agent-r4-all-sure-call-plan-due"
        ]:
            f1, exact, f1_right, n, right = score(EP / f"{prefix}{name}", gold)
            print(f"| {split} | {prefix}{name} | {n} | {f1:.1f} | {exact:.1f} | {right} | "
                  f"{f1_right:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
