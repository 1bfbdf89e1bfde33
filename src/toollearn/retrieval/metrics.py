"""Tool-retrieval metrics: Recall@k, nDCG@k and the all-gold-in-top-k rate.

Seal-Tools (Appendix D) stresses that a query needs ALL its tools: one missed tool breaks the
answer, so besides macro Recall@k we report the share of queries with every gold tool in top k.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from toollearn.core.errors import RetrievalError


def recall_at_k(ranked: Sequence[str], gold: set[str], k: int) -> float:
    """Share of the gold tools found in the first k ranked names."""
    return len(gold & set(ranked[:k])) / len(gold)


def ndcg_at_k(ranked: Sequence[str], gold: set[str], k: int) -> float:
    """Binary-relevance nDCG@k (each gold tool counted once)."""
    seen: set[str] = set()
    dcg = 0.0
    for i, name in enumerate(ranked[:k]):
        if name in gold and name not in seen:
            dcg += 1.0 / math.log2(i + 2)
            seen.add(name)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal


def retrieval_scores(
    rankings: Sequence[Sequence[str]], golds: Sequence[set[str]], ks: Sequence[int] = (1, 5, 10)
) -> dict[str, float]:
    """Macro Recall@k, micro (per gold pair) Recall@k, nDCG@10 and all-gold@5/@10, in %."""
    if len(rankings) != len(golds):
        raise RetrievalError(f"{len(rankings)} rankings for {len(golds)} gold sets")
    if not golds or any(not g for g in golds):
        raise RetrievalError("every query needs at least one gold tool")
    n, pairs = len(golds), sum(len(g) for g in golds)
    out: dict[str, float] = {"queries": n, "gold_pairs": pairs}
    for k in ks:
        out[f"R@{k}"] = 100 * sum(recall_at_k(r, g, k) for r, g in zip(rankings, golds)) / n
        found = sum(len(g & set(r[:k])) for r, g in zip(rankings, golds))
        out[f"pairR@{k}"] = 100 * found / pairs
    out["nDCG@10"] = 100 * sum(ndcg_at_k(r, g, 10) for r, g in zip(rankings, golds)) / n
    for k in (5, 10):
        out[f"AllGold@{k}"] = 100 * sum(g <= set(r[:k]) for r, g in zip(rankings, golds)) / n
    return out
