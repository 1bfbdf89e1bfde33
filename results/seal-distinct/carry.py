"""Seed a run whose grammar is narrower (--distinct-tools, --copy-strings, --stated-optional)
with the answers of a finished run that it would generate again.

The options only remove continuations: --distinct-tools those that call a tool a second time,
--copy-strings those that write a string-typed value that is not a span of the query,
--stated-optional those that give an optional parameter a value the query does not state. Decoding
is greedy, so an answer that finished (finish_reason "stop") without a retry and that the
narrower grammar admits is the one the narrower run generates too. Those records are copied
(stamped `carried_from`), with the sessions that made them; `toollearn eval seal-tools ...`
with the new options then resumes the run and generates only the rest. `check.sh` regenerates
a shard without carrying anything and compares.

    python results/seal-distinct/carry.py FROM_RUN OUT_DIR --engine ENGINE [--shard K/N]
        [--distinct-tools] [--copy-strings [--stated-optional]] [--data-root ../shared/data]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from toollearn.core.types import Example
from toollearn.decoding.seal_tools import span_char, stated_numbers
from toollearn.evaluation.runners.base import parse_shard, take_shard
from toollearn.evaluation.runners.seal_tools import load_prompts


def _calls(output: str) -> list[dict[str, Any]] | None:
    try:
        calls = json.loads(output)
    except (TypeError, ValueError):
        return None
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else None


def repeats_a_tool(output: str) -> bool | None:
    """Whether the answer calls a tool twice (None: not a JSON call list)."""
    calls = _calls(output)
    if calls is None:
        return None
    names = [c.get("api") for c in calls]
    return len(names) != len(set(names))


def is_span(value: str, query: str) -> bool:
    """Whether `copy_rules(query)` admits this string value."""
    usable = all(span_char(ch) for ch in value)
    return bool(value) and not value[0].isspace() and usable and value in query


def copies_strings(output: str, example: Example) -> bool:
    """Whether every string-typed value of the answer is a span of the query (a string that
    looks like a nested reference counts as not, so such answers are generated again)."""
    tools = {t.name: t for t in example.tools}
    for call in _calls(output) or []:
        tool = tools.get(call.get("api"))
        params = call.get("parameters")
        if tool is None or not isinstance(params, dict):
            return False
        for name, value in params.items():
            spec = tool.properties.get(name, {})
            kind = spec.get("type") if isinstance(spec, dict) else None
            stringy = kind == "string" or (isinstance(kind, list) and "string" in kind)
            if not stringy or spec.get("enum"):
                continue
            if not isinstance(value, str) or not is_span(value, example.query):
                return False
    return True


def states_optionals(output: str, example: Example) -> bool:
    """Whether every optional parameter's value is one `stated_value_rule` admits: a span of the
    query, a number it writes (written in the answer as the grammar writes it) or an enum member
    it names; never a boolean, list, object or nested reference."""
    tools = {t.name: t for t in example.tools}
    ints, nums = stated_numbers(example.query)
    for call in _calls(output) or []:
        tool = tools.get(call.get("api"))
        params = call.get("parameters")
        if tool is None or not isinstance(params, dict):
            return False
        required = set(tool.required)
        for name, value in params.items():
            if name in required:
                continue
            spec = tool.properties.get(name, {})
            spec = spec if isinstance(spec, dict) else {}
            kind = spec.get("type")
            kinds = kind if isinstance(kind, list) else [kind]
            if spec.get("enum"):
                ok = (
                    value in spec["enum"]
                    and not isinstance(value, bool)
                    and str(value) in example.query
                )
            elif isinstance(value, str):
                ok = "string" in kinds and is_span(value, example.query)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                literal = json.dumps(value)
                allowed = nums if "number" in kinds else ints if "integer" in kinds else []
                ok = literal in allowed and f"{json.dumps(name)}: {literal}" in output
            else:
                ok = False
            if not ok:
                return False
    return True


def carried(
    record: dict,
    example: Example | None = None,
    distinct: bool = True,
    copy: bool = False,
    stated: bool = False,
) -> bool:
    """Whether the narrower run (each tool once when `distinct`, string spans when `copy`,
    optional values the query states when `stated`) generates this answer again."""
    output = record.get("output", "")
    repeats = repeats_a_tool(output)
    return (
        record.get("error") is None
        and record.get("retries") == 0
        and record.get("finish_reason") == "stop"
        and repeats is not None
        and not (distinct and repeats)
        and (not copy or (example is not None and copies_strings(output, example)))
        and (not stated or (example is not None and states_optionals(output, example)))
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--engine", required=True, help="the --engine the resumed run gets")
    ap.add_argument("--shard", default=None)
    ap.add_argument("--distinct-tools", action="store_true")
    ap.add_argument("--copy-strings", action="store_true")
    ap.add_argument("--stated-optional", action="store_true")
    ap.add_argument("--data-root", default="../shared/data")
    args = ap.parse_args()
    config = json.loads((args.source / "config.json").read_text())
    config.pop("shard", None)
    if not (args.distinct_tools or args.copy_strings):
        raise SystemExit("error: give --distinct-tools and/or --copy-strings")
    if args.stated_optional and not args.copy_strings:
        raise SystemExit("error: --stated-optional needs --copy-strings")
    config = {**config, "engine": args.engine}
    for key in ("distinct_tools", "copy_strings", "stated_optional"):
        if getattr(args, key):
            config[key] = True
    shard = parse_shard(args.shard)
    if shard is not None:
        config["shard"] = f"{shard[0]}/{shard[1]}"
    records = [json.loads(x) for x in (args.source / "predictions.jsonl").read_text().splitlines()]
    prompts = load_prompts(config["split"], args.data_root)
    examples = {ex.id: ex for ex in take_shard(prompts, shard)}
    keep = [
        {k: v for k, v in r.items() if k != "carried_from"}
        for r in records
        if r["id"] in examples
        and carried(
            r, examples[r["id"]], args.distinct_tools, args.copy_strings, args.stated_optional
        )
    ]
    args.out.mkdir(parents=True, exist_ok=False)
    (args.out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    sessions = {r.get("session") for r in keep}
    lines = (args.source / "sessions.jsonl").read_text().splitlines()
    with (args.out / "sessions.jsonl").open("w") as f:
        for line in lines:
            if json.loads(line).get("session") in sessions:
                f.write(line + "\n")
    with (args.out / "predictions.jsonl").open("w") as f:
        for r in keep:
            f.write(json.dumps({**r, "carried_from": str(args.source)}, ensure_ascii=False) + "\n")
    print(f"{args.out}: carried {len(keep)} of the shard's {len(examples)} answers")


if __name__ == "__main__":
    main()
