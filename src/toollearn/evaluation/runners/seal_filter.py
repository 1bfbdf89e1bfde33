"""`toollearn eval seal-filter`: a finished Seal-Tools run's answers, post-processed.

The steps read the query, the candidates and the answer after generation, so applying them to
a run's answers gives exactly what a run with them would have written: the tool filter
(`agents.tool_filter`: drop the calls to candidates no clause of the query points at), foreign
values (`agents.foreign_values`: drop the arguments copied from another tool's clause), whole
words (`agents.word_spans`: drop the copied strings that cut a word), refill
(`agents.refill_values`: the run's model asked again, on the call's own clauses, for the
required arguments those two dropped), generic values (`agents.generic_values`: a string that
only repeats its parameter's name, dropped or, in a later call, replaced by the previous call's
response), missing calls (`agents.missing_calls`: the run's model asked for a call to each
candidate a clause points at first that no call uses) and ISO dates (`agents.date_values`: a
date the answer copies in words, written YYYY-MM-DD). Refill and missing calls run the engine;
a filtered run can take a second pass of steps it has not had. The new run directory holds the
source run's config with `tool_filter` (encoder, margin), `foreign_values`, `whole_words`,
`refill`, `generic_values`, `missing_calls`, `iso_dates` and `filtered_from` added, its
sessions (the engine's provenance appended), and one record per answer: `output`
post-processed, `unfiltered_output` as first generated, `dropped_calls`, `tool_support`,
`dropped_values`, `cut_values`, `refilled_values`, `generic_values`, `added_calls`,
`date_changes`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.agents.tool_filter import ToolFilter, postprocess
from toollearn.core.errors import DataError
from toollearn.core.types import Example
from toollearn.evaluation.runners.base import RunWriter, read_records, take_shard, with_shard

STEPS = ("tool_filter", "foreign_values", "whole_words", "refill", "generic_values",
         "missing_calls", "iso_dates")  # fmt: skip


def source_config(run_dir: Path, steps: Sequence[str] = STEPS) -> dict[str, Any]:
    """The config of a finished Seal-Tools run, refusing other benchmarks and a filtered run
    that had one of `steps` already (ISO dates may run again: they change nothing twice)."""
    path = run_dir / "config.json"
    if not path.is_file() or not (run_dir / "predictions.jsonl").is_file():
        raise DataError("not a run directory (config.json, predictions.jsonl)", str(run_dir))
    config = json.loads(path.read_text(encoding="utf-8"))
    if config.get("benchmark") != "seal-tools":
        raise DataError(f"a {config.get('benchmark')!r} run, not a Seal-Tools one", str(run_dir))
    again = [s for s in steps if config.get(s) and s != "iso_dates"]
    if again:
        raise DataError(f"this run's answers are filtered already ({', '.join(again)})",
                        str(run_dir))  # fmt: skip
    return config


def filter_run(
    run_dir: str | Path,
    out_dir: str | Path,
    examples: Sequence[Example],
    tool_filter: ToolFilter | None,
    dates: bool = False,
    foreign: str | None = None,
    *,
    whole_words: bool = False,
    refill: Any = None,
    refill_scope: str = "dropped",
    generic: bool = False,
    missing: Any = None,
    shard: tuple[int, int] | None = None,
) -> tuple[RunWriter, list[dict[str, Any]]]:
    """Write OUT: every record of RUN whose example is given (of shard K/N: `shard`), its
    answer post-processed (tool_filter: a None margin drops no call but gives `foreign` its
    clauses; refill: the run's engine, asked again for the required arguments the argument
    steps dropped; missing: the run's engine, asked for the calls the answer leaves out). RUN
    may be a filtered run that had none of the steps asked for (ISO dates aside). An OUT that
    holds some of them with the same config is resumed (`runs merge` of shards, then the same
    command without the shard, scores the whole); returns the writer and every record of the
    run or shard."""
    src, out = Path(run_dir), Path(out_dir)
    drops_calls = tool_filter is not None and tool_filter.margin is not None
    if not (drops_calls or foreign or dates or whole_words or generic or missing is not None):
        raise ValueError("nothing to do: give a tool filter, foreign values, whole words, "
                         "generic values, missing calls, dates")  # fmt: skip
    if src.resolve() == out.resolve():
        raise DataError("write the filtered run to another directory", str(out))
    asked = {"tool_filter": drops_calls, "foreign_values": foreign, "whole_words": whole_words,
             "refill": refill is not None, "generic_values": generic,
             "missing_calls": missing is not None, "iso_dates": dates}  # fmt: skip
    config = dict(source_config(src, [s for s, on in asked.items() if on]))
    if drops_calls:
        config["tool_filter"] = tool_filter.describe()
    if foreign:
        config["foreign_values"] = {"scope": foreign, "clauses": tool_filter.describe()["encoder"]
                                    if tool_filter else None}  # fmt: skip
    if whole_words:
        config["whole_words"] = True
    if refill is not None:
        from toollearn.agents.refill_values import MAX_TOKENS

        config["refill"] = {"engine": getattr(refill, "name", type(refill).__name__),
                            "max_tokens": MAX_TOKENS, "constrained": True,
                            "scope": refill_scope}  # fmt: skip
    if generic:
        config["generic_values"] = True
    if missing is not None:
        config["missing_calls"] = {"engine": getattr(missing, "name", type(missing).__name__)}
    if dates:
        config["iso_dates"] = True
    config["filtered_from"] = str(src)
    config = with_shard(config, shard)
    by_id = {ex.id: ex for ex in examples}
    records = [r for r in read_records(src / "predictions.jsonl") if r.get("id") in by_id]
    records = take_shard(records, shard)
    if not records:
        raise DataError("no record of the given examples in this run", str(src))
    writer = RunWriter(out, config, log_session=False)
    done = {r["id"]: r for r in writer.records()}
    if not writer.sessions_path.exists():
        shutil.copyfile(src / "sessions.jsonl", writer.sessions_path)
    for engine in {id(e): e for e in (refill, missing) if e is not None}.values():
        try:
            writer.record_engine(engine)
        except DataError as exc:
            raise DataError(
                "refill and missing calls ask the model that wrote the answers; these were "
                f"written with another model or adapter ({exc})",
                str(src),
            ) from None
    filtered = []
    for rec in records:
        if rec["id"] in done:
            filtered.append(done[rec["id"]])
            continue
        ex = by_id[rec["id"]]
        steps = postprocess(rec.get("output") or "", ex.query, ex.tools, tool_filter, dates,
                            foreign, whole_words=whole_words, refill=refill,
                            refill_scope=refill_scope,
                            generic=generic, missing=missing)  # fmt: skip
        again = {
            k: [*rec[k], *v]
            for k, v in steps.items()
            if isinstance(v, list) and isinstance(rec.get(k), list)
        }  # a second ISO pass
        new = {**rec, **steps, **again,
               "unfiltered_output": rec.get("unfiltered_output", rec.get("output"))}  # fmt: skip
        writer.append(new)
        filtered.append(new)
    return writer, filtered


def filter_stats(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """How many answers changed, and how many calls, values and dates each step changed."""
    return {
        "answers": len(records),
        "answers_changed": sum(1 for r in records if r["output"] != r["unfiltered_output"]),
        "calls_dropped": sum(len(r.get("dropped_calls") or []) for r in records),
        "values_dropped": sum(len(r.get("dropped_values") or []) for r in records),
        "values_cut": sum(len(r.get("cut_values") or []) for r in records),
        "values_refilled": sum(len(r.get("refilled_values") or []) for r in records),
        "values_generic": sum(len(r.get("generic_values") or []) for r in records),
        "calls_added": sum(len(r.get("added_calls") or []) for r in records),
        "dates_rewritten": sum(len(r.get("date_changes") or []) for r in records),
    }
