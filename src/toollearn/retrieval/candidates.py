"""Candidate tool sets for the papers' protocols.

Seal-Tools: the retriever's top-k (the paper: DPR top-5), with the missing gold tools forced in
for training data (they replace the lowest-ranked non-gold candidates). DEER: pools of 5 drawn
random / intra-cluster / inter-cluster over KMeans(30) clusters of MiniLM description embeddings.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from toollearn.core.errors import RetrievalError
from toollearn.core.types import Example, Tool
from toollearn.retrieval.dense import Encoder, MiniLMEncoder
from toollearn.retrieval.tools import ToolRetriever

DEER_MODES = ("random", "intra", "inter")
# The paper's best mix Random : Intra-class : Inter-class = 2 : 1 : 2 (Figure 5).
DEER_MIX = {"random": 0.4, "intra": 0.2, "inter": 0.4}


def pick_deer_mode(rng: random.Random, mix: Mapping[str, float] = DEER_MIX) -> str:
    """A sampling mode drawn with the given weights (default: the paper's 2:1:2)."""
    unknown = set(mix) - set(DEER_MODES)
    if unknown or not mix:
        raise RetrievalError(f"unknown DEER sampling modes {sorted(unknown)}; use {DEER_MODES}")
    modes = list(mix)
    return rng.choices(modes, weights=[mix[m] for m in modes])[0]


def seal_candidates(
    retriever: ToolRetriever,
    query: str,
    k: int = 5,
    *,
    gold: Sequence[str] = (),
    force_gold: bool = False,
    shuffle: bool = False,
    seed: int = 0,
) -> list[Tool]:
    """The top-k tools for a query; with force_gold, missing gold tools replace the
    lowest-ranked non-gold ones (all gold kept even if there are more than k)."""
    top = [h.item for h in retriever.search(query, k)]
    if force_gold:
        gold_names = list(dict.fromkeys(gold))
        gold_set = set(gold_names)
        top_names = {t.name for t in top}
        missing = [retriever.tool(g) for g in gold_names if g not in top_names]
        non_gold = [t.name for t in top if t.name not in gold_set]
        keep = gold_set | set(non_gold[: max(0, k - len(gold_names))])
        top = [t for t in top if t.name in keep] + missing
    if shuffle:
        random.Random(f"{seed}:{query}").shuffle(top)
    return top


def seal_candidate_examples(
    retriever: ToolRetriever,
    examples: Sequence[Example],
    k: int = 5,
    *,
    force_gold: bool = False,
    shuffle: bool = False,
    seed: int = 0,
) -> list[Example]:
    """Examples whose `tools` are their retrieved candidates; metadata["retrieval"] records the
    method, the gold tools the retriever missed and whether they were forced in."""
    hits = retriever.search_batch([e.query for e in examples], k)
    out = []
    for ex, row in zip(examples, hits):
        gold = list(dict.fromkeys(c.name for c in ex.calls))
        top = [h.item for h in row]
        missed = [g for g in gold if g not in {t.name for t in top}]
        if force_gold and missed:
            top = seal_candidates(retriever, ex.query, k, gold=gold, force_gold=True)
        if shuffle:
            random.Random(f"{seed}:{ex.query}").shuffle(top)
        info = {"method": retriever.method, "k": k, "missed": missed, "forced": force_gold}
        out.append(replace(ex, tools=tuple(top), metadata={**ex.metadata, "retrieval": info}))
    return out


def tool_clusters(
    tools: Sequence[Tool],
    n_clusters: int = 30,
    *,
    encoder: Encoder | None = None,
    seed: int = 0,
) -> dict[str, int]:
    """{tool name: cluster id}: KMeans over MiniLM embeddings of the tool descriptions (DEER)."""
    from sklearn.cluster import KMeans

    if len(tools) < n_clusters:
        raise RetrievalError(f"{len(tools)} tools cannot form {n_clusters} clusters")
    texts = [t.description or t.name for t in tools]
    vectors = (encoder or MiniLMEncoder()).encode(texts)
    labels = KMeans(n_clusters=n_clusters, n_init=10, random_state=seed).fit_predict(vectors)
    return {t.name: int(c) for t, c in zip(tools, labels)}


def deer_pool(
    tools: Sequence[Tool],
    clusters: Mapping[str, int],
    mode: str,
    *,
    gold: Tool | None = None,
    include_gold: bool = True,
    size: int = 5,
    rng: random.Random | None = None,
) -> list[Tool]:
    """A DEER candidate pool of `size` tools, shuffled.

    random: any tools; intra: tools of the gold tool's cluster; inter: one tool from each of
    `size` distinct clusters other than the gold's. With `gold` and include_gold (a Call
    sample) the gold tool takes one slot; without include_gold (NoCall) it is never drawn.
    An intra cluster too small for the pool is topped up with random tools from other clusters.
    """
    if mode not in DEER_MODES:
        raise RetrievalError(f"unknown DEER sampling mode {mode!r}; choose from {DEER_MODES}")
    rng = rng or random.Random(0)
    others = [t for t in tools if gold is None or t.name != gold.name]
    n = size - 1 if gold is not None and include_gold else size
    if len(others) < n:
        raise RetrievalError(f"a pool of {size} needs more than {len(others)} other tools")
    if mode == "random":
        picked = rng.sample(others, n)
    elif mode == "intra":
        picked = _intra(others, clusters, gold, n, rng)
    else:
        picked = _inter(others, clusters, gold, n, rng)
    pool = picked + ([gold] if gold is not None and include_gold else [])
    rng.shuffle(pool)
    return pool


def _cluster_of(clusters: Mapping[str, int], tool: Tool) -> int:
    if tool.name not in clusters:
        raise RetrievalError(f"tool {tool.name!r} has no cluster; recompute tool_clusters")
    return clusters[tool.name]


def _intra(others, clusters, gold, n, rng) -> list[Tool]:
    if gold is None:
        raise RetrievalError("intra-cluster sampling needs the gold tool (its cluster)")
    home = _cluster_of(clusters, gold)
    same = [t for t in others if _cluster_of(clusters, t) == home]
    picked = rng.sample(same, min(n, len(same)))
    if len(picked) < n:
        rest = [t for t in others if _cluster_of(clusters, t) != home]
        picked += rng.sample(rest, n - len(picked))
    return picked


def _inter(others, clusters, gold, n, rng) -> list[Tool]:
    by_cluster: dict[int, list[Tool]] = {}
    for t in others:
        by_cluster.setdefault(_cluster_of(clusters, t), []).append(t)
    if gold is not None:
        by_cluster.pop(_cluster_of(clusters, gold), None)
    if len(by_cluster) < n:
        raise RetrievalError(
            f"inter-cluster sampling needs {n} other clusters, have {len(by_cluster)}"
        )
    chosen = rng.sample(sorted(by_cluster), n)
    return [rng.choice(by_cluster[c]) for c in chosen]
