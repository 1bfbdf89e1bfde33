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


def build_methods(
    dataset: str,
    pool: list,
    methods: Sequence[str],
    index_root: str | Path | None,
    fields: IndexFields = DEFAULT_FIELDS,
) -> tuple[dict[str, Retriever], dict[str, dict[str, Any]]]:
    """{method: retriever} over the pool (persisted under index_root) and build info."""
    for m in methods:
        check_method(m)
    encoder = CachingEncoder(MiniLMEncoder())
    built: dict[str, Retriever] = {}
    info: dict[str, dict[str, Any]] = {}
    base_needed = {"bm25", "dense"} & (
        set(methods) | ({"bm25", "dense"} if "hybrid" in methods else set())
    )
    for m in sorted(base_needed):
        start = time.perf_counter()
        tr = ToolRetriever(
            pool, m, fields=fields, index_dir=index_path(dataset, m, index_root), encoder=encoder
        )
        built[m] = tr.backend
        info[m] = {"loaded_from_disk": tr.loaded, "seconds": round(time.perf_counter() - start, 2)}
    if "hybrid" in methods:
        parts = [built["bm25"], built["dense"]]
        built["hybrid"] = HybridRetriever(parts[0].items, parts[0].texts, parts=parts)
        info["hybrid"] = built["hybrid"].config()
    return {m: built[m] for m in methods}, info


def evaluate(
    dataset: str,
    root: str | Path,
    methods: Sequence[str] = ("bm25", "dense", "hybrid"),
    *,
    index_root: str | Path | None = None,
    fields: IndexFields = DEFAULT_FIELDS,
    k: int = 10,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """(score rows, per-query rankings, build info) for every (test set, method)."""
    sets = eval_sets(dataset, root)
    retrievers, info = build_methods(dataset, sets[0].pool, methods, index_root, fields)
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
