"""The retriever interface: ranked `Hit`s over a fixed pool of items (tools or demonstrations)."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from toollearn.core.errors import RetrievalError


@dataclass(frozen=True)
class Hit:
    """One ranked candidate: the item (a Tool or an Example), its score and its 1-based rank."""

    item: Any
    score: float
    rank: int


def check_query(query: str) -> str:
    """The query stripped, or a RetrievalError for an empty or non-string query."""
    if not isinstance(query, str):
        raise RetrievalError(f"a query must be a string, got {type(query).__name__}")
    if not query.strip():
        raise RetrievalError("empty query: give the text to retrieve tools or demonstrations for")
    return query.strip()


def top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices and values of the k largest scores, best first (ties: lower index first, also
    for which of the items tied at the k-th score make the cut: `argpartition` alone picks
    among those by its own kernel, which differs between processors, and so did the BM25
    candidates of two machines)."""
    n = scores.shape[0]
    k = min(k, n)
    if k <= 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=scores.dtype)
    if k < n:
        kth = scores[np.argpartition(-scores, k - 1)[k - 1]]
        above = np.flatnonzero(scores > kth)
        tied = np.flatnonzero(scores == kth)[: k - above.size]
        part = np.concatenate([above, tied])
    else:
        part = np.arange(n)
    order = np.lexsort((part, -scores[part]))
    idx = part[order]
    return idx, scores[idx]


class Retriever(ABC):
    """Ranks a fixed pool of items for a text query.

    Subclasses implement `_rank` (indices + scores per query), `config`, `save` and `_load`.
    Every retriever is built from parallel `items` and `texts` (the indexed text of each item).
    """

    method: ClassVar[str] = ""

    def __init__(self, items: Sequence[Any], texts: Sequence[str]):
        items, texts = list(items), list(texts)
        if not items:
            raise RetrievalError(f"cannot build a {self.method} index over an empty pool")
        if len(items) != len(texts):
            raise RetrievalError(f"{len(items)} items but {len(texts)} texts to index")
        self.items, self.texts = items, texts

    def __len__(self) -> int:
        return len(self.items)

    def search(self, query: str, k: int = 10) -> list[Hit]:
        """The k best items for one query, best first."""
        return self.search_batch([query], k)[0]

    def search_batch(self, queries: Sequence[str], k: int = 10) -> list[list[Hit]]:
        """The k best items for each query (batched: dense encodes all queries at once)."""
        if isinstance(queries, str):
            raise RetrievalError("search_batch takes a list of queries; use search for one")
        if k < 1:
            raise RetrievalError(f"k must be at least 1, got {k}")
        clean = [check_query(q) for q in queries]
        ranked = self._rank(clean, min(k, len(self.items))) if clean else []
        return [
            [Hit(self.items[int(i)], float(s), r + 1) for r, (i, s) in enumerate(zip(idx, sc))]
            for idx, sc in ranked
        ]

    @abstractmethod
    def _rank(self, queries: list[str], k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per query: indices into self.items and their scores, best first, at most k."""

    @abstractmethod
    def config(self) -> dict[str, Any]:
        """Everything that changes the index besides the texts (parameters, model id)."""

    @abstractmethod
    def save(self, directory: Path) -> None:
        """Write the index payload (not the manifest) into an existing directory."""

    @classmethod
    @abstractmethod
    def _load(cls, directory: Path, items: list[Any], texts: list[str], config: dict) -> Retriever:
        """Rebuild the retriever from a payload written by `save` (no re-indexing)."""

    @classmethod
    def load(cls, directory: Path, items: Sequence[Any], texts: Sequence[str]) -> Retriever:
        """Reload a saved payload for the same items/texts (the store checks they match)."""
        config = json.loads((Path(directory) / "config.json").read_text())
        obj = cls._load(Path(directory), list(items), list(texts), config)
        Retriever.__init__(obj, items, texts)
        return obj

    def _save_config(self, directory: Path) -> None:
        (Path(directory) / "config.json").write_text(json.dumps(self.config(), sort_keys=True))
