"""Counts over the loaded datasets (what `toollearn data stats` prints).

Nested (Seal-Tools): the README/paper count instances whose parameter values mention
"API_call_" anywhere (dev 28, test_in 30, test_out 27); `nested_refs` counts only exact
"API_call_k" values, i.e. `Example.nested` (dev 27: dev-difficult-207 writes "API_call_0 response").
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from toollearn.core.types import Example, unlink_refs
from toollearn.data import seal_tools, tooldeer


def mentions_response(example: Example) -> bool:
    """True if any gold argument value mentions an earlier response ("API_call_")."""
    return any("API_call_" in repr(unlink_refs(c.arguments)) for c in example.calls)


def _calls_hist(examples: list[Example]) -> dict[str, int]:
    hist = Counter(min(len(e.calls), 5) for e in examples)
    return {("5+" if k == 5 else str(k)): hist[k] for k in sorted(hist)}


def seal_split_stats(examples: list[Example]) -> dict[str, Any]:
    """Instances, difficulty, nesting and calls-per-instance of one Seal-Tools split."""
    diff = Counter(e.difficulty for e in examples)
    return {
        "instances": len(examples),
        "easy": diff.get("easy", 0),
        "difficult": diff.get("difficult", 0),
        "nested": sum(mentions_response(e) for e in examples),
        "nested_refs": sum(e.nested for e in examples),
        "calls": sum(len(e.calls) for e in examples),
        "calls_per_instance": _calls_hist(examples),
    }


def seal_stats(root: str | Path) -> dict[str, Any]:
    """Counts for every Seal-Tools file present under `root`."""
    base = seal_tools.seal_dir(root)
    out: dict[str, Any] = {"root": str(base)}
    if (base / "tool.jsonl").is_file():
        tools = seal_tools.load_tools(base)
        out["tools"] = len(tools)
        out["tools_with_extra_keys"] = sum(
            bool(t.metadata) or any(set(p) - {"type", "description"} for p in t.properties.values())
            for t in tools
        )
    if (base / "field.jsonl").is_file():
        fields = seal_tools.load_fields(base)
        out["fields"], out["sub_fields"] = len(fields), sum(len(v) for v in fields.values())
    out["splits"], out["old_format"], out["eval_prompts"] = {}, {}, {}
    for split in seal_tools.SPLITS:
        if (base / f"{split}.jsonl").is_file():
            out["splits"][split] = seal_split_stats(seal_tools.load_split(base, split))
        if (base / "dataset_in_old_format" / f"{split}.jsonl").is_file():
            old = seal_tools.load_split_old(base, split)
            out["old_format"][split] = {"instances": len(old)}
        if (base / "dataset_for_finetune" / f"{split}.json").is_file():
            prompts = seal_tools.load_eval_prompts(base, split)
            row = seal_split_stats(prompts)
            row["candidates"] = dict(Counter(len(e.tools) for e in prompts))
            row["gold_missing_from_candidates"] = sum(
                any(c.name not in {t.name for t in e.tools} for c in e.calls) for e in prompts
            )
            out["eval_prompts"][split] = row
    return out


def deer_split_stats(examples: list[Example]) -> dict[str, Any]:
    """Decision counts and pool facts of one ToolDEER split (or baseline file)."""
    decisions = Counter(e.metadata.get("decision", "") for e in examples)
    return {
        "instances": len(examples),
        "Call": decisions.get("Call", 0),
        "NoCall": decisions.get("NoCall", 0),
        "NoSearch": decisions.get("NoSearch", 0),
        "pool_sizes": dict(Counter(len(e.tools) for e in examples if e.needs_tool)),
        "pool_tools": len({t.name for e in examples for t in e.tools}),
        "gold_tools": len({c.name for e in examples for c in e.calls}),
        "gold_calls_with_unreadable_args": sum("call_error" in e.metadata for e in examples),
    }


def deer_stats(root: str | Path) -> dict[str, Any]:
    """Counts for every ToolDEER file present under `root`."""
    base = tooldeer.deer_dir(root)
    out: dict[str, Any] = {"root": str(base)}
    if (base / "tool.json").is_file():
        tools = tooldeer.load_tools(base)
        out["tools"] = len(tools)
        out["tool_examples"] = sum(len(t.metadata.get("examples", ())) for t in tools)
        out["name_differs_from_api_name"] = sum(t.name != t.metadata["api_name"] for t in tools)
    out["splits"] = {}
    for split in tooldeer.SPLITS:
        if (base / f"{split}.json").is_file():
            out["splits"][split] = deer_split_stats(tooldeer.load_split(base, split))
    for name in tooldeer.BASELINES:
        if (base / "baselines" / f"{name}.json").is_file():
            out["splits"][name] = deer_split_stats(tooldeer.load_baseline(base, name))
    return out
