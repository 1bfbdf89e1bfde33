"""Evaluation sets from the held-out splits of imported dialogue data (`eval calls --set`).

`slurp_set(out, n_test, n_dev)`: SLURP's test and dev commands (`recipes/data/imports/slurp`,
CC BY 4.0), each shown with the tools of its scenario: a command with a call is a "single"
item (its intent's tool, its slots as arguments), a command no tool serves (SLURP's chat
intents) a "small-talk" item. Only commands whose call passes `datagen.checker` are kept; a
seeded sample of each split, written in the `--examples` format with the tool table.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from toollearn.datagen.checker import check
from toollearn.datagen.imports.turns import IMPORTS, read_records, turns


def _items(split: str, n: int, seed: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    tools: dict[str, Any] = {}
    found = []
    for rec in read_records(IMPORTS / "slurp" / f"{split}.jsonl.gz"):
        conv = next(turns(rec), None)
        if conv is None:
            continue
        if not rec.get("no_call") and check(conv):
            continue
        for t in rec["tools"]:
            tools[t["function"]["name"]] = t
        item: dict[str, Any] = {"id": rec["id"], "kind": "small-talk" if rec.get("no_call")
                                else "single", "query": conv.queries[-1],
                                "calls": [{"name": c.name, "arguments": c.arguments}
                                          for c in conv.calls],
                                "tools": [t["function"]["name"] for t in rec["tools"]]}  # fmt: skip
        found.append(item)
    chosen = sorted(random.Random(seed).sample(range(len(found)), min(n, len(found))))
    return [found[i] for i in chosen], tools


def slurp_set(out: str | Path, n_test: int = 200, n_dev: int = 60, seed: int = 0) -> dict:
    """Write the SLURP set (module doc) to `out`; the counts."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    table: dict[str, Any] = {}
    counts = {}
    for split, n in (("test", n_test), ("dev", n_dev)):
        items, tools = _items(split, n, seed)
        table.update(tools)
        with (out / f"{split}.jsonl").open("w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(it, ensure_ascii=False) + "\n" for it in items)
        counts[split] = len(items)
    tools_list = [table[k] for k in sorted(table)]
    (out / "tools.json").write_text(json.dumps(tools_list, indent=1, ensure_ascii=False) + "\n")
    return counts
