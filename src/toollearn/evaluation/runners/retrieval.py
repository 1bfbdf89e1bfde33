"""Tool-retrieval runner: every method against the full pool, written as a run directory.

The rankings (top 10 per query and method) are the run's records (`predictions.jsonl`), the
score rows its `scores.json`, through the same `RunWriter` as every benchmark (a lock against
a second writer, a config check, provenance). Ranking is fast and deterministic, so a rerun into
the same directory only adds rankings it lacks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def run_retrieval(
    dataset: str,
    root: str | Path,
    methods: list[str],
    out: str | Path,
    index_root: str | Path | None = None,
    fields: Any = None,
    trained: str | Path | None = None,
) -> tuple[list[dict[str, Any]], Path]:
    """(score rows, scores.json path) of `retrieval.evaluate.evaluate` written into `out`."""
    from toollearn.evaluation.runners.base import RunWriter
    from toollearn.retrieval import IndexFields
    from toollearn.retrieval.evaluate import evaluate

    fields = fields or IndexFields()
    config = {"benchmark": "retrieval", "dataset": dataset, "methods": list(methods),
              "fields": fields.to_dict()}  # fmt: skip
    if trained:
        config["trained"] = str(trained)
    writer = RunWriter(out, config)
    rows, rankings, info = evaluate(dataset, root, methods, index_root=index_root, fields=fields,
                                    trained=trained)  # fmt: skip
    done = writer.done_ids()
    for record in rankings:
        if record["id"] not in done:
            writer.append(record)
    return rows, writer.write_scores(rows, {"build": info})
