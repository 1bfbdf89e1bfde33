"""`toollearn score`: score a predictions JSONL against a dataset and print a table.

Predictions are JSON lines {"id": ..., "output": "<raw model text>"}. An example without a
prediction is scored as an empty output (a format failure); a prediction whose id is not in
the dataset is an error. Metrics: `official` / `strict` (Seal-Tools), `deer` (the output is
read with formats.answers.deer.parse_deer), `stepwise` (alpha-UMi; --dataset is then a
trajectory JSON file and ids are "<trajectory id>:<turn index>", as the stepwise runner
writes them; its records' parsed `pred` are used as they are).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError

METRICS = ("official", "strict", "deer", "stepwise")
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
        help="score a predictions JSONL against a dataset",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--dataset",
        required=True,
        help="dataset spec (seal-tools-prompts/test_in_domain, tooldeer/test, sample/...) "
        "or, for stepwise, a trajectory JSON file",
    )
    p.add_argument("--predictions", required=True, help='JSONL of {"id", "output"} records')
    p.add_argument("--metric", required=True, choices=METRICS)
    p.add_argument("--data-root", help="data folder (default: $TOOLLEARN_DATA)")
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
    """Official or strict scores by group (all / easy / difficult / nested), strict with errors."""
    from toollearn.evaluation.metrics.seal_errors import seal_error_analysis
    from toollearn.evaluation.metrics.seal_tools import (
        difficulty_from_id,
        official_gold,
        official_scores,
        scores_by_group,
        strict_scores,
    )
    from toollearn.formats.answers.seal_tools import calls_to_seal

    levels = [ex.difficulty or difficulty_from_id(ex.id) for ex in examples]
    if metric == "official":
        golds = [
            official_gold(ex.metadata["target"])
            if isinstance(ex.metadata.get("target"), str)
            else calls_to_seal(ex.calls)
            for ex in examples
        ]
        return {"groups": scores_by_group(official_scores, outputs, golds, levels)}
    golds = [list(ex.calls) for ex in examples]
    result: dict[str, Any] = {"groups": scores_by_group(strict_scores, outputs, golds, levels)}
    result["errors"] = seal_error_analysis(outputs, examples)
    return result


def score_deer(examples: list, outputs: list[str]) -> dict[str, Any]:
    """DEER decision metrics; an unreadable answer is a prediction with no decision."""
    from toollearn.core.errors import FormatError
    from toollearn.evaluation.metrics.deer import DeerPrediction, deer_scores
    from toollearn.formats.answers.deer import parse_deer

    preds = []
    for text, ex in zip(outputs, examples):
        try:
            preds.append(DeerPrediction.from_answer(parse_deer(text, ex.tools)))
        except FormatError:
            preds.append(DeerPrediction(None))
    return {"scores": deer_scores(preds, examples)}


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
    """Load, align, score, print."""
    records = read_predictions(args.predictions)
    if args.metric == "stepwise":
        result, missing = _score_stepwise(args, records)
    else:
        from toollearn.data.registry import load_examples

        examples = load_examples(args.dataset, args.data_root)
        aligned = align(records, [ex.id for ex in examples], args.predictions)
        missing = sum(1 for rec in aligned if not rec)
        outputs = [rec.get("output") or "" for rec in aligned]
        if args.metric == "deer":
            result = score_deer(examples, outputs)
        else:
            result = score_seal(examples, outputs, args.metric)
    result = {"metric": args.metric, "dataset": args.dataset, "missing": missing, **result}
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(render(result))
    if missing:
        print(f"note: {missing} examples had no prediction (scored as empty)", file=sys.stderr)
    return 0


def render(result: dict[str, Any]) -> str:
    """The plain-text report of a `run` result (rates as percentages)."""
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
