"""Retrieval evaluation on the real data: every method against the full tool pool.

Seal-Tools: DPR pairs of test_in_domain / test_out_domain (Recall@1/5/10, nDCG@10) and the
test instances (all gold tools in the top 5); ToolDEER: the Call samples of test.json. The
hybrid reuses the BM25 and dense indexes (no second embedding pass); query vectors are cached.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import RetrievalError
from toollearn.retrieval.base import Retriever
from toollearn.retrieval.dense import CachingEncoder, MiniLMEncoder
from toollearn.retrieval.evalsets import (
    RetrievalSet,
    deer_pool_tools,
    deer_test_set,
    seal_dpr_set,
    seal_instance_set,
    seal_pool,
)
from toollearn.retrieval.hybrid import HybridRetriever
from toollearn.retrieval.metrics import retrieval_scores
from toollearn.retrieval.store import check_method, index_path
from toollearn.retrieval.text import DEFAULT_FIELDS, IndexFields
from toollearn.retrieval.tools import ToolRetriever

DATASETS = ("seal-tools", "tooldeer")
SEAL_SPLITS = ("test_in_domain", "test_out_domain")


def eval_sets(dataset: str, root: str | Path) -> list[RetrievalSet]:
    """The retrieval test sets of a dataset, each with its full tool pool."""
    if dataset == "seal-tools":
        pool, _ = seal_pool(root)
        sets = [seal_dpr_set(root, s, pool) for s in SEAL_SPLITS]
        return sets + [seal_instance_set(root, s, pool) for s in SEAL_SPLITS]
    if dataset == "tooldeer":
        pool, _ = deer_pool_tools(root)
        return [deer_test_set(root, pool)]
    raise RetrievalError(f"unknown dataset {dataset!r}; choose from {DATASETS}")


TRAINED = "-trained"  # "dense-trained", "hybrid-trained": the same methods, trained encoder


def build_methods(
    dataset: str,
    pool: list,
    methods: Sequence[str],
    index_root: str | Path | None,
    fields: IndexFields = DEFAULT_FIELDS,
    trained: str | Path | None = None,
) -> tuple[dict[str, Retriever], dict[str, dict[str, Any]]]:
    """{method: retriever} over the pool (persisted under index_root) and build info.
    `trained`: a fine-tuned MiniLM folder, for the methods named with a "-trained" suffix."""
    for m in methods:
        check_method(m.removesuffix(TRAINED))
        if m.endswith(TRAINED) and not trained:
            raise RetrievalError(f"method {m!r} needs a trained encoder (--trained PATH)")
    encoders = {"": CachingEncoder(MiniLMEncoder())}
    if trained:
        encoders[TRAINED] = CachingEncoder(MiniLMEncoder(path=trained))
    built: dict[str, Retriever] = {}
    info: dict[str, dict[str, Any]] = {}
    for suffix, encoder in encoders.items():
        mine = [m.removesuffix(TRAINED) for m in methods if m.endswith(TRAINED) == bool(suffix)]
        needed = set(mine) | ({"bm25", "dense"} if "hybrid" in mine else set())
        needed &= {"bm25", "dense"}
        for m in sorted(needed):
            label = m if m == "bm25" else m + suffix
            if label in built:
                continue
            start = time.perf_counter()
            tr = ToolRetriever(pool, m, fields=fields, encoder=encoder,
                               index_dir=index_path(dataset, label, index_root))  # fmt: skip
            built[label] = tr.backend
            info[label] = {"loaded_from_disk": tr.loaded,
                           "seconds": round(time.perf_counter() - start, 2)}  # fmt: skip
            if m == "dense":
                info[label]["model"] = encoder.model_id
        if "hybrid" in mine:
            parts = [built["bm25"], built["dense" + suffix]]
            built["hybrid" + suffix] = HybridRetriever(parts[0].items, parts[0].texts, parts=parts)
            info["hybrid" + suffix] = built["hybrid" + suffix].config()
    return {m: built[m] for m in methods}, info


def evaluate(
    dataset: str,
    root: str | Path,
    methods: Sequence[str] = ("bm25", "dense", "hybrid"),
    *,
    index_root: str | Path | None = None,
    fields: IndexFields = DEFAULT_FIELDS,
    k: int = 10,
    trained: str | Path | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """(score rows, per-query rankings, build info) for every (test set, method)."""
    sets = eval_sets(dataset, root)
    retrievers, info = build_methods(dataset, sets[0].pool, methods, index_root, fields, trained)
    rows, rankings = [], []
    for rset in sets:
        for method, retriever in retrievers.items():
            start = time.perf_counter()
            hits = retriever.search_batch(rset.queries, k)
            seconds = time.perf_counter() - start
            names = [[h.item.name for h in row] for row in hits]
            scores = retrieval_scores(names, rset.golds)
            rows.append(
                {
                    "set": rset.name,
                    "method": method,
                    "pool": len(rset.pool),
                    **scores,
                    "seconds": round(seconds, 3),
                }
            )
            rankings.extend(
                {
                    "id": f"{rset.name}#{i}:{method}",
                    "set": rset.name,
                    "method": method,
                    "query": q,
                    "gold": sorted(g),
                    "top": top,
                }
                for i, (q, g, top) in enumerate(zip(rset.queries, rset.golds, names))
            )
    return rows, rankings, info
