"""BM25 / dense / hybrid rank the right tool, and misuse gives clear errors."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from toollearn.core.errors import RetrievalError
from toollearn.core.types import Tool
from toollearn.retrieval import (
    BM25Retriever,
    DenseRetriever,
    HybridRetriever,
    IndexFields,
    ToolRetriever,
    tokenize,
    tool_text,
)
from toollearn.retrieval.base import top_k
from toollearn.retrieval.hybrid import rrf_fuse
from toollearn.retrieval.metrics import ndcg_at_k, retrieval_scores


def test_tokenize_splits_camel_case_and_drops_stop_words():
    assert tokenize("getWeatherForecast for the cities") == ["get", "weather", "forecast", "city"]


def test_tool_text_fields_are_configurable(tools):
    full = tool_text(tools[0])
    assert full.startswith("get Weather Forecast Retrieve the weather")
    assert "City name" in full
    assert tool_text(tools[0], IndexFields(param_descriptions=False)).endswith("city")
    assert IndexFields.parse("name,description") == IndexFields(
        name=True, description=True, param_names=False, param_descriptions=False
    )
    with pytest.raises(RetrievalError, match="unknown index fields"):
        IndexFields.parse("name,colour")


@pytest.mark.parametrize("method", ["bm25", "dense", "hybrid"])
def test_each_method_finds_the_right_tool(tools, encoder, method):
    r = ToolRetriever(tools, method, encoder=encoder)
    hits = r.search("what will the weather be in Oslo", k=3)
    assert hits[0].item.name == "getWeatherForecast"
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))
    assert r.names("book a flight to Rome", 1) == ["bookFlight"]


def test_bm25_returns_only_matching_tools(tools):
    r = ToolRetriever(tools, "bm25")
    assert r.search("zebra xylophone", 5) == []
    assert len(r.search("city", 5)) == 2  # weather + hotels mention a city


def test_k_larger_than_pool_is_capped(tools, encoder):
    r = ToolRetriever(tools, "dense", encoder=encoder)
    assert len(r.search("anything at all", 100)) == len(tools)


@pytest.mark.parametrize("method", ["bm25", "dense", "hybrid"])
def test_empty_pool_is_a_clear_error(encoder, method):
    with pytest.raises(RetrievalError, match="empty tool pool"):
        ToolRetriever([], method, encoder=encoder)
    with pytest.raises(RetrievalError, match="empty pool"):
        BM25Retriever([], [])


@pytest.mark.parametrize("query", ["", "   \n", None])
def test_empty_query_is_a_clear_error(tools, encoder, query):
    r = ToolRetriever(tools, "hybrid", encoder=encoder)
    with pytest.raises(RetrievalError, match="empty query|must be a string"):
        r.search(query, 3)
    with pytest.raises(RetrievalError, match="k must be"):
        r.search("weather", 0)


def test_duplicate_tool_names_are_rejected(tools):
    with pytest.raises(RetrievalError, match="duplicate tool name"):
        ToolRetriever([*tools, Tool("bookFlight")], "bm25")


def test_dense_float16_matches_float32(tools, encoder):
    texts = [tool_text(t) for t in tools]
    a = DenseRetriever(tools, texts, encoder=encoder)
    b = DenseRetriever(tools, texts, encoder=encoder, dtype="float16")
    assert b.vectors.dtype == np.float16 and b.vectors.nbytes == a.vectors.nbytes // 2
    q = "translate this text to french"
    assert [h.item.name for h in a.search(q, 3)] == [h.item.name for h in b.search(q, 3)]


def test_hybrid_fuses_by_reciprocal_rank(tools, encoder):
    texts = [tool_text(t) for t in tools]
    bm, de = BM25Retriever(tools, texts), DenseRetriever(tools, texts, encoder=encoder)
    h = HybridRetriever(tools, texts, parts=[bm, de], rrf_k=60)
    fused = rrf_fuse([np.array([2, 0]), np.array([0, 1])], 3, 60, [1.0, 1.0])
    assert fused[0] == pytest.approx(1 / 62 + 1 / 61) and fused[2] == pytest.approx(1 / 61)
    assert h.search("send an email", 1)[0].item.name == "sendEmail"


def test_top_k_orders_ties_by_index():
    idx, vals = top_k(np.array([0.5, 0.9, 0.5, 0.1]), 3)
    assert idx.tolist() == [1, 0, 2] and vals.tolist() == [0.9, 0.5, 0.5]


def test_top_k_takes_the_lowest_indices_of_a_tie_at_the_cut():
    """Which tied items make the cut must not depend on argpartition's kernel (it differs
    between processors): always the lowest indices, as a stable full sort would."""
    assert top_k(np.array([0.5, 0.9, 0.5, 0.5, 0.1]), 2)[0].tolist() == [1, 0]
    rng = np.random.default_rng(0)
    for _ in range(300):
        scores = rng.integers(0, 4, size=int(rng.integers(1, 60))).astype(np.float32)
        k = int(rng.integers(1, 12))
        stable = sorted(range(scores.size), key=lambda i: (-scores[i], i))[:k]
        assert top_k(scores, k)[0].tolist() == stable


def test_metrics_on_a_hand_computed_case():
    ranked, gold = ["a", "x", "b", "y"], {"a", "b"}
    assert ndcg_at_k(ranked, gold, 10) == pytest.approx((1 + 1 / 2) / (1 + 1 / np.log2(3)))
    s = retrieval_scores([ranked, ["z", "c"]], [gold, {"c"}])
    assert s["R@1"] == pytest.approx(25.0) and s["R@5"] == pytest.approx(100.0)
    assert s["pairR@1"] == pytest.approx(100 / 3) and s["AllGold@5"] == pytest.approx(100.0)
    with pytest.raises(RetrievalError, match="at least one gold"):
        retrieval_scores([ranked], [set()])


def test_missing_bm25_package_is_a_clear_error(tools, monkeypatch):
    monkeypatch.setitem(sys.modules, "bm25s", None)  # import bm25s raises
    with pytest.raises(RetrievalError, match=r"toollearn\[retrieval\]"):
        BM25Retriever(tools, [tool_text(t) for t in tools])


def test_missing_sentence_transformers_is_a_clear_error(monkeypatch, tmp_path):
    from toollearn.retrieval import dense

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(RetrievalError, match=r"toollearn\[dense\]"):
        dense._load_sentence_transformer.__wrapped__(str(tmp_path), "cpu")
