"""Retrieval test sets from the real data: (query, gold tool names) against a full tool pool.

Seal-Tools: `dpr_pairs/<split>_split.json` (the paper's DPR pairs, grouped by question) and the
test instances' calling lists; pool = all 4,076 tools. ToolDEER: the Call samples of
`test.json` (gold = the called tool); pool = all 977 tools of `tool.json`.
Tools and instances come from `toollearn.data` (the dataset loaders).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toollearn.core.errors import DataError
from toollearn.core.types import Tool


@dataclass(frozen=True)
class RetrievalSet:
    """Queries with their gold tool names, evaluated against `pool`."""

    name: str
    queries: list[str]
    golds: list[set[str]]
    pool: list[Tool] = field(default_factory=list)
    source: str = ""


def _check_root(root: str | Path, sub: str) -> Path:
    path = Path(root) / sub
    if not path.is_dir():
        raise DataError(f"no {sub}/ under {root}; pass --data-root pointing at the data folder")
    return path


def seal_pool(root: str | Path) -> tuple[list[Tool], str]:
    """All Seal-Tools tools and the loader used."""
    from toollearn.data import seal_tools

    return seal_tools.load_tools(_check_root(root, "seal-tools")), "toollearn.data.seal_tools"


def deer_pool_tools(root: str | Path) -> tuple[list[Tool], str]:
    """All ToolDEER tools and the loader used."""
    from toollearn.data import tooldeer

    return tooldeer.load_tools(_check_root(root, "tooldeer")), "toollearn.data.tooldeer"


def seal_dpr_set(root: str | Path, split: str, pool: Sequence[Tool]) -> RetrievalSet:
    """The DPR (question, gold tool) pairs of a split, grouped per question (first-seen order)."""
    path = _check_root(root, "seal-tools") / "dpr_pairs" / f"{split}_split.json"
    try:
        pairs = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"cannot read DPR pairs: {exc}", str(path)) from exc
    grouped: dict[str, set[str]] = {}
    for i, pair in enumerate(pairs):
        try:
            q, titles = pair["question"], [c["title"] for c in pair["positive_ctxs"]]
        except (KeyError, TypeError) as exc:
            raise DataError(f"pair {i} lacks question/positive_ctxs", str(path)) from exc
        grouped.setdefault(q, set()).update(titles)
    return RetrievalSet(
        f"seal-tools/dpr/{split}", list(grouped), list(grouped.values()), list(pool)
    )


def seal_instance_set(root: str | Path, split: str, pool: Sequence[Tool]) -> RetrievalSet:
    """The test instances of a split with the tools their gold calls use."""
    from toollearn.data import seal_tools

    base = _check_root(root, "seal-tools")
    rows = [(e.query, {c.name for c in e.calls}) for e in seal_tools.load_split(base, split)]
    source = "toollearn.data.seal_tools"
    return RetrievalSet(
        f"seal-tools/{split}", [q for q, _ in rows], [g for _, g in rows], list(pool), source
    )


def deer_test_set(root: str | Path, pool: Sequence[Tool], split: str = "test") -> RetrievalSet:
    """ToolDEER Call samples of a split: the query and the tool its gold call uses."""
    from toollearn.data import tooldeer

    base = _check_root(root, "tooldeer")
    rows = [(e.query, {c.name for c in e.calls}) for e in tooldeer.load_split(base, split)]
    rows = [(q, g) for q, g in rows if g]
    source = "toollearn.data.tooldeer"
    return RetrievalSet(
        f"tooldeer/{split}", [q for q, _ in rows], [g for _, g in rows], list(pool), source
    )
