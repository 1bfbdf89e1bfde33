"""`toollearn eval seal-filter`: a finished Seal-Tools run's answers through the tool filter.

The filter (`agents.tool_filter`) reads only the query, the candidates and the answer, after
generation, so filtering a run's answers gives exactly what a run with the filter would have
written. The new run directory holds the source run's config with `tool_filter` (encoder,
margin) and `filtered_from` added, its sessions (the engine's provenance), and one record per
answer: `output` filtered, `unfiltered_output` as generated, `dropped_calls`, `tool_support`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.agents.tool_filter import ToolFilter
from toollearn.core.errors import DataError
from toollearn.core.types import Example
from toollearn.evaluation.runners.base import RunWriter, read_records


def source_config(run_dir: Path) -> dict[str, Any]:
    """The config of a finished Seal-Tools run (refusing other benchmarks and filtered runs)."""
    path = run_dir / "config.json"
    if not path.is_file() or not (run_dir / "predictions.jsonl").is_file():
        raise DataError("not a run directory (config.json, predictions.jsonl)", str(run_dir))
    config = json.loads(path.read_text(encoding="utf-8"))
    if config.get("benchmark") != "seal-tools":
        raise DataError(f"a {config.get('benchmark')!r} run, not a Seal-Tools one", str(run_dir))
    if config.get("tool_filter"):
        raise DataError("this run's answers are filtered already", str(run_dir))
    return config


def filter_run(
    run_dir: str | Path, out_dir: str | Path, examples: Sequence[Example], tool_filter: ToolFilter
) -> tuple[RunWriter, list[dict[str, Any]]]:
    """Write OUT: every record of RUN whose example is given, its answer filtered."""
    src, out = Path(run_dir), Path(out_dir)
    if src.resolve() == out.resolve():
        raise DataError("write the filtered run to another directory", str(out))
    config = {**source_config(src), "tool_filter": tool_filter.describe()}
    config["filtered_from"] = str(src)
    by_id = {ex.id: ex for ex in examples}
    records = [r for r in read_records(src / "predictions.jsonl") if r.get("id") in by_id]
    if not records:
        raise DataError("no record of the given examples in this run", str(src))
    if (out / "predictions.jsonl").exists():
        (out / "predictions.jsonl").unlink()  # a filtered run is rebuilt whole, never resumed
    writer = RunWriter(out, config, log_session=False)
    shutil.copyfile(src / "sessions.jsonl", writer.sessions_path)
    filtered = []
    for rec in records:
        ex = by_id[rec["id"]]
        res = tool_filter.filter_answer(rec.get("output") or "", ex.query, ex.tools)
        new = {**rec, "output": res.output, "unfiltered_output": rec.get("output"),
               "dropped_calls": res.dropped, "tool_support": res.support}  # fmt: skip
        writer.append(new)
        filtered.append(new)
    return writer, filtered


def filter_stats(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """How many answers lost calls, and how many calls were dropped."""
    changed = [r for r in records if r.get("dropped_calls")]
    return {"answers": len(records), "answers_changed": len(changed),
            "calls_dropped": sum(len(r["dropped_calls"]) for r in changed)}  # fmt: skip
