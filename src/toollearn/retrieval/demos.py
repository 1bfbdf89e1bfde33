"""Demonstration retrieval for k-shot prompts: the solved examples with the most similar goals.

SambaNova's recipe retrieves demonstrations from a pool where every API appears in at least one
example; `DemoRetriever.select(..., cover=tools)` guarantees each candidate tool is shown in at
least one selected demonstration.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import RetrievalError
from toollearn.core.types import Example, Tool
from toollearn.retrieval.base import Hit
from toollearn.retrieval.dense import Encoder
from toollearn.retrieval.store import open_index
from toollearn.retrieval.text import example_text


def tools_used(example: Example) -> set[str]:
    """Names of the tools a demonstration's gold calls use."""
    return {c.name for c in example.calls}


class DemoRetriever:
    """BM25, dense or hybrid retrieval over demonstrations; `Hit.item` is the Example."""

    def __init__(
        self,
        examples: Sequence[Example],
        method: str = "bm25",
        *,
        text: Callable[[Example], str] = example_text,
        index_dir: str | Path | None = None,
        strict: bool = False,
        rebuild: bool = False,
        encoder: Encoder | None = None,
        **options: Any,
    ):
        self.examples = list(examples)
        if not self.examples:
            raise RetrievalError("empty demonstration pool: give at least one solved example")
        keys = [e.id for e in self.examples]
        if len(set(keys)) != len(keys):
            raise RetrievalError("demonstration ids must be unique (they key the index)")
        self.method = method
        self.backend, self.loaded = open_index(
            index_dir,
            method,
            self.examples,
            keys,
            [text(e) for e in self.examples],
            encoder=encoder,
            strict=strict,
            rebuild=rebuild,
            extra={"kind": "demos", "text": getattr(text, "__name__", "custom")},
            **options,
        )

    def __len__(self) -> int:
        return len(self.examples)

    def search(self, query: str, k: int = 3) -> list[Hit]:
        """The k demonstrations with the most similar goals, best first."""
        return self.backend.search(query, k)

    def select(
        self,
        query: str,
        k: int = 3,
        *,
        cover: Sequence[Tool | str] = (),
        exclude_ids: Sequence[str] = (),
        allow_uncovered: bool = False,
    ) -> list[Example]:
        """k demonstrations for a prompt, best first; with `cover`, every listed tool is used by
        at least one of them (more than k are returned if covering needs more).

        A cover tool no demonstration uses raises RetrievalError unless `allow_uncovered`.
        """
        excluded = set(exclude_ids)
        ranked = [
            h.item for h in self.search(query, len(self.examples)) if h.item.id not in excluded
        ]
        seen = {e.id for e in ranked}
        # items with no lexical match (BM25) still count for coverage, after the ranked ones
        ranked += [e for e in self.examples if e.id not in seen and e.id not in excluded]
        wanted = {t if isinstance(t, str) else t.name for t in cover}
        available = set().union(*(tools_used(e) for e in ranked)) if ranked else set()
        missing = wanted - available
        if missing and not allow_uncovered:
            raise RetrievalError(f"no demonstration uses {sorted(missing)}; add demonstrations")
        chosen = _greedy_cover(ranked, wanted & available)
        chosen_ids = {e.id for e in chosen}
        for e in ranked:
            if len(chosen) >= k:
                break
            if e.id not in chosen_ids:
                chosen.append(e)
                chosen_ids.add(e.id)
        order = {e.id: i for i, e in enumerate(ranked)}
        return sorted(chosen, key=lambda e: order[e.id])


def _greedy_cover(ranked: list[Example], wanted: set[str]) -> list[Example]:
    """Greedy set cover: repeatedly the demo covering most uncovered tools (best rank on ties)."""
    chosen: list[Example] = []
    uncovered = set(wanted)
    while uncovered:
        _, best = max(enumerate(ranked), key=lambda p: (len(tools_used(p[1]) & uncovered), -p[0]))
        gain = tools_used(best) & uncovered
        if not gain:
            break
        chosen.append(best)
        uncovered -= gain
    return chosen
