"""Sparse BM25 retrieval on `bm25s` (scores precomputed into a sparse matrix at index time)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from toollearn.core.errors import RetrievalError
from toollearn.retrieval.base import Retriever, top_k
from toollearn.retrieval.text import tokenize


def _quiet_bm25s() -> None:
    """bm25s logs progress bars and info lines by default; a library call should be silent."""
    logging.getLogger("bm25s").setLevel(logging.WARNING)


class BM25Retriever(Retriever):
    """Okapi BM25 (Lucene variant) over camelCase-split, stop-worded, lightly stemmed tokens.

    Only items sharing at least one word with the query are returned (possibly fewer than k).
    """

    method = "bm25"

    def __init__(
        self,
        items: Sequence[Any],
        texts: Sequence[str],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        stem: bool = True,
    ):
        super().__init__(items, texts)
        try:
            import bm25s
        except ImportError as exc:
            raise RetrievalError("BM25 needs: pip install 'toollearn[retrieval]'") from exc

        _quiet_bm25s()
        self.k1, self.b, self.stem = float(k1), float(b), bool(stem)
        self._model = bm25s.BM25(k1=self.k1, b=self.b, method="lucene")
        corpus = [tokenize(t, self.stem) for t in self.texts]
        self._model.index(corpus, show_progress=False)

    def config(self) -> dict[str, Any]:
        return {"method": self.method, "k1": self.k1, "b": self.b, "stem": self.stem}

    def _rank(self, queries: list[str], k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        out = []
        for q in queries:
            ids = self._model.get_tokens_ids(tokenize(q, self.stem))
            if not ids:
                out.append((np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)))
                continue
            scores = self._model.get_scores_from_ids(ids)
            idx, sc = top_k(scores, k)
            keep = sc > 0
            out.append((idx[keep], sc[keep]))
        return out

    def save(self, directory: Path) -> None:
        self._model.save(str(directory), show_progress=False)
        self._save_config(directory)

    @classmethod
    def _load(cls, directory: Path, items: list, texts: list, config: dict) -> BM25Retriever:
        import bm25s

        _quiet_bm25s()
        obj = cls.__new__(cls)
        obj.k1, obj.b, obj.stem = config["k1"], config["b"], config["stem"]
        obj._model = bm25s.BM25.load(str(directory), show_progress=False, verbosity=0)
        return obj
