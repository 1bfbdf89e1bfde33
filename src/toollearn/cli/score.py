"""`toollearn score`: score predictions against a dataset, or recompute a run directory.

`--run DIR` recomputes any benchmark run's scores (Seal-Tools, DEER, stepwise, apps) from the
raw model text its records keep; `--check` compares them with its scores.json.

`--dataset D --predictions F --metric M`: predictions are JSON lines {"id": ...,
"output": "<raw model text>"}. An example without a prediction is scored as an empty output
(a format failure); a prediction whose id is not in the dataset is an error. Metrics:
`official` / `strict` (Seal-Tools), `deer` (a released-format `output`, or the raw texts of a
DEER run's records), `stepwise` (alpha-UMi; --dataset is then a trajectory JSON file and ids
are "<trajectory id>:<turn index>", as the stepwise runner writes them; records holding the
runner's raw `texts` are re-read from them).

Scoring itself lives in the runners (evaluation/runners/*); this module only reads and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError

METRICS = ("official", "strict", "deer", "stepwise")
NOTE_MISSING = "note: {n} examples had no prediction (scored as empty)"
SEAL_COLUMNS = [
    "n",
    ("format_acc", "format"),
    "tool_p",
    "tool_r",
    "tool_f1",
    "param_p",
    "param_r",
    "param_f1",
]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `score` command."""
    p = subparsers.add_parser(
        "score",
        help="score predictions against a dataset, or recompute a run directory's scores",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--run",
        default=None,
        metavar="DIR",
        help="a run directory (config.json + predictions.jsonl) of any benchmark: recompute "
        "its scores from the raw model text",
    )
    p.add_argument("--check", action="store_true",
                   help="with --run: compare with the run's scores.json, exit 1 on any "
                   "difference")  # fmt: skip
    p.add_argument("--write", default=None, metavar="REASON",
                   help="with --run: replace the run's scores with the recomputed ones (after "
                   "a scorer fix), noting REASON")  # fmt: skip
    p.add_argument(
        "--dataset",
        help="dataset spec (seal-tools-prompts/test_in_domain, tooldeer/test, sample/...) "
        "or, for stepwise, a trajectory JSON file",
    )
    p.add_argument("--predictions", help='JSONL of {"id", "output"} records')
    p.add_argument("--metric", choices=METRICS)
    p.add_argument("--data-root", help="data folder (default: $TOOLLEARN_DATA)")
    p.add_argument("--shard", default=None, metavar="K/N",
                   help="score only shard K of N of the dataset (a sharded run's records, as "
                   "`eval --shard K/N` took them)")  # fmt: skip
    p.add_argument(
        "--step-style",
        choices=("roles", "react"),
        default="roles",
        help="stepwise predictions: planner/caller/summarizer texts, or one ReAct turn",
    )
    p.add_argument("--json", action="store_true", help="print the scores as JSON")
    p.set_defaults(func=run)


def read_predictions(path: str | Path) -> dict[str, dict[str, Any]]:
    """Prediction records by id; DataError (file:line) for a bad or repeated record."""
    from toollearn.data.jsonl import read_jsonl

    out: dict[str, dict[str, Any]] = {}
    for line, rec in read_jsonl(path):
        rid = rec.get("id") if isinstance(rec, dict) else None
        if not isinstance(rid, str | int) or isinstance(rid, bool):
            raise DataError("a prediction needs an 'id' (string)", str(path), line)
        rid = str(rid)
        if rid in out:
            raise DataError(f"prediction id {rid!r} appears twice", str(path), line)
        output = rec.get("output", "")
        if output is not None and not isinstance(output, str):
            raise DataError(f"'output' of {rid!r} must be a string", str(path), line)
        out[rid] = rec
    return out


def align(records: dict[str, dict[str, Any]], ids: list[str], path: str) -> list[dict[str, Any]]:
    """Records in dataset order ({} for a missing id); DataError for ids not in the dataset."""
    known = set(ids)
    extra = [rid for rid in records if rid not in known]
    if extra:
        shown = ", ".join(repr(x) for x in extra[:5])
        raise DataError(f"{len(extra)} prediction ids are not in the dataset: {shown}", path)
    return [records.get(i, {}) for i in ids]


def score_seal(examples: list, outputs: list[str], metric: str) -> dict[str, Any]:
    """The runner's Seal-Tools scores of these outputs; the chosen scorer's groups, with the
    strict error analysis."""
    from toollearn.evaluation.runners.seal_tools import score_records

    records = [{"id": ex.id, "output": text} for ex, text in zip(examples, outputs)]
    scores = score_records(records, examples)
    result: dict[str, Any] = {"groups": scores[metric]}
    if metric == "strict":
        result["errors"] = scores["errors"]
    return result


def score_deer(examples: list, records: list[dict[str, Any]]) -> dict[str, Any]:
    """DEER decision metrics, each record read by the runner (a released-format `output`, or
    a zero-shot run's raw texts); an unreadable answer is a prediction with no decision."""
    from toollearn.evaluation.runners.deer import score_records

    filled = [rec or {"id": ex.id, "output": ""} for ex, rec in zip(examples, records)]
    scores = score_records(filled, examples)
    return {"scores": {k: v for k, v in scores.items() if k not in ("errors", "run")}}


def _score_stepwise(args: argparse.Namespace, records: dict[str, dict]) -> tuple[dict, int]:
    from toollearn.data.trajectories import read_trajectories
    from toollearn.evaluation.metrics.stepwise import stepwise_scores
    from toollearn.evaluation.metrics.stepwise_io import step_output, step_targets

    steps, skipped = [], []
    for traj in read_trajectories(args.dataset):
        found, bad = step_targets(traj)
        steps += found
        skipped += bad
    for reason in skipped:
        print(f"note: skipped unreadable gold step: {reason}", file=sys.stderr)
    aligned = align(records, [sid for sid, _ in steps], args.predictions)
    preds = [step_output(rec, args.step_style) for rec in aligned]
    scores = stepwise_scores(preds, [target for _, target in steps])
    scores["skipped_gold_steps"] = len(skipped)
    return {"scores": scores}, sum(1 for rec in aligned if not rec)


def run(args: argparse.Namespace) -> int:
    """Recompute a run directory, or load, align, score and print predictions."""
    if args.run:
        return run_directory(args)
    if not (args.dataset and args.predictions and args.metric):
        raise DataError("give --run DIR, or --dataset, --predictions and --metric")
    records = read_predictions(args.predictions)
    if args.metric == "stepwise":
        result, missing = _score_stepwise(args, records)
    else:
        from toollearn.data.registry import load_examples
        from toollearn.evaluation.runners.base import parse_shard, take_shard

        examples = take_shard(load_examples(args.dataset, args.data_root), parse_shard(args.shard))
        aligned = align(records, [ex.id for ex in examples], args.predictions)
        missing = sum(1 for rec in aligned if not rec)
        if args.metric == "deer":
            result = score_deer(examples, aligned)
        else:
            outputs = [rec.get("output") or "" for rec in aligned]
            result = score_seal(examples, outputs, args.metric)
    result = {"metric": args.metric, "dataset": args.dataset, "missing": missing, **result}
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else render(result))
    if missing:
        print(NOTE_MISSING.format(n=missing), file=sys.stderr)
    return 0


def run_directory(args: argparse.Namespace) -> int:
    """`--run DIR`: recompute, print; --check compares with scores.json, --write replaces it."""
    from toollearn.evaluation.rescore import compare, rescore_run, rewrite_scores

    if args.write:
        scores = rewrite_scores(args.run, args.write, args.data_root)
        print(f"rewrote {Path(args.run) / 'scores.json'}", file=sys.stderr)
    else:
        scores = rescore_run(args.run, args.data_root)
    print(json.dumps(scores, indent=2, ensure_ascii=False))
    if args.check:
        diffs = compare(args.run, args.data_root)
        for line in diffs:
            print(f"differs: {line}", file=sys.stderr)
        print(f"{len(diffs)} differences from {Path(args.run) / 'scores.json'}", file=sys.stderr)
        return 1 if diffs else 0
    return 0


def render(result: dict[str, Any]) -> str:
    """The plain-text report of a dataset scoring (rates as percentages)."""
    from toollearn.evaluation.report import format_table, metric_table

    metric = result["metric"]
    if metric in ("official", "strict"):
        columns = SEAL_COLUMNS + ([("exact_acc", "exact")] if metric == "strict" else [])
        text = f"Seal-Tools ({metric}) on {result['dataset']}\n"
        text += metric_table(result["groups"], columns, label="subset")
        errors = result.get("errors")
        if errors:
            rows = [{"error": "format_failure", "count": errors["format_failures"]}]
            rows += [{"error": f"tool/{k}", "count": v} for k, v in errors["tool_errors"].items()]
            rows += [{"error": f"param/{k}", "count": v} for k, v in errors["param_errors"].items()]
            text += "\n\nError analysis (strict matching)\n" + format_table(
                rows, ["error", "count"]
            )
        return text
    scores = result["scores"]
    rows = [
        {"metric": k, "value": v * 100 if isinstance(v, float) else v}
        for k, v in scores.items()
        if k != "counts"
    ]
    title = "DEER" if metric == "deer" else "alpha-UMi step-level"
    return f"{title} on {result['dataset']}\n" + format_table(rows, ["metric", "value"])
