"""Approximate nearest neighbours for very large pools: a faiss IVF-Flat inner-product index.

Exact search reads every vector per query (1M x 384 float32 = 1.5 GB of memory traffic); IVF
clusters the vectors into `nlist` lists and scans only the `nprobe` lists nearest the query.
Needs `faiss-cpu` (in the `retrieval` extra); exact numpy search stays the default.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from toollearn.core.errors import RetrievalError


def _faiss() -> Any:
    try:
        import faiss
    except ImportError:
        raise RetrievalError("ann='ivf' needs faiss: pip install 'toollearn[retrieval]'") from None
    return faiss


class IVFIndex:
    """IVF-Flat over L2-normalised vectors (inner product = cosine); nlist ~ sqrt(n)."""

    def __init__(self, vectors: np.ndarray | None, nprobe: int = 16, seed: int = 0):
        self.nprobe = int(nprobe)
        if vectors is None:  # filled by `load`
            return
        faiss = _faiss()
        n, dim = vectors.shape
        nlist = max(1, int(math.sqrt(n)))
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(seed)
        sample = vectors[rng.choice(n, size=min(n, 40 * nlist), replace=False)]
        index.train(np.ascontiguousarray(sample, dtype=np.float32))
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
        index.nprobe = self.nprobe
        self.index, self._quantizer = index, quantizer

    @property
    def nbytes(self) -> int:
        """Bytes of the stored vectors and ids (the bulk of the index)."""
        return int(self.index.ntotal) * (self.index.d * 4 + 8)

    def search(self, queries: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        scores, idx = self.index.search(np.ascontiguousarray(queries, dtype=np.float32), k)
        return [(i[i >= 0].astype(np.int64), s[i >= 0]) for i, s in zip(idx, scores)]

    def save(self, path: Path) -> None:
        _faiss().write_index(self.index, str(path))

    @classmethod
    def load(cls, path: Path, nprobe: int) -> IVFIndex:
        obj = cls(None, nprobe)
        obj.index = _faiss().read_index(str(path))
        obj.index.nprobe = obj.nprobe
        return obj
