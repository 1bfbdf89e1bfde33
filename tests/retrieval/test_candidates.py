"""Seal-Tools top-k with gold forcing, DEER pools of 5, and demonstration selection."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from toollearn.core.errors import RetrievalError
from toollearn.core.types import Example, Tool, ToolCall
from toollearn.retrieval import (
    DemoRetriever,
    ToolRetriever,
    deer_pool,
    seal_candidate_examples,
    seal_candidates,
)
from toollearn.retrieval.candidates import pick_deer_mode


def test_seal_top_k_and_gold_forcing(tools):
    r = ToolRetriever(tools, "bm25")
    q = "weather forecast for a city and hotels in that city"
    top = seal_candidates(r, q, k=2)
    assert [t.name for t in top] == ["getWeatherForecast", "searchHotels"]
    forced = seal_candidates(r, q, k=2, gold=["searchHotels", "sendEmail"], force_gold=True)
    assert [t.name for t in forced] == ["searchHotels", "sendEmail"]
    forced3 = seal_candidates(r, q, k=3, gold=["sendEmail"], force_gold=True)
    assert [t.name for t in forced3] == ["getWeatherForecast", "searchHotels", "sendEmail"]
    with pytest.raises(RetrievalError, match="not in the pool"):
        seal_candidates(r, q, k=2, gold=["noSuchTool"], force_gold=True)


def test_seal_candidate_examples_record_misses(tools):
    r = ToolRetriever(tools, "bm25")
    ex = Example(id="e", query="translate hello", calls=(ToolCall("sendEmail"),))
    plain, forced = (seal_candidate_examples(r, [ex], k=1, force_gold=f)[0] for f in (0, 1))
    assert plain.metadata["retrieval"]["missed"] == ["sendEmail"]
    assert [t.name for t in plain.tools] == ["translateText"]
    assert [t.name for t in forced.tools] == ["sendEmail"]
    shuffled = seal_candidate_examples(r, [ex], k=3, shuffle=True, seed=1)[0]
    assert len(shuffled.tools) == len(set(t.name for t in shuffled.tools))


def _clustered_pool() -> tuple[list[Tool], dict[str, int]]:
    tools = [Tool(f"t{c}_{i}", f"tool {i} of cluster {c}") for c in range(8) for i in range(6)]
    return tools, {t.name: int(t.name[1]) for t in tools}


@pytest.mark.parametrize("mode", ["random", "intra", "inter"])
def test_deer_pools_have_five_tools_with_or_without_gold(mode):
    tools, clusters = _clustered_pool()
    gold = tools[7]  # cluster 1
    rng = random.Random(3)
    call = deer_pool(tools, clusters, mode, gold=gold, rng=rng)
    nocall = deer_pool(tools, clusters, mode, gold=gold, include_gold=False, rng=rng)
    assert len(call) == len(nocall) == 5
    assert gold in call and gold not in nocall
    assert len({t.name for t in call}) == 5
    others = [clusters[t.name] for t in call if t is not gold]
    if mode == "intra":
        assert set(others) == {1} and {clusters[t.name] for t in nocall} == {1}
    if mode == "inter":
        assert 1 not in others and len(set(others)) == 4
        assert len({clusters[t.name] for t in nocall}) == 5


def test_deer_intra_tops_up_a_small_cluster_and_rejects_bad_modes():
    tools, clusters = _clustered_pool()
    clusters = {**clusters, "t0_0": 99, "t0_1": 99}  # a 2-tool cluster
    pool = deer_pool(tools, clusters, "intra", gold=tools[0], rng=random.Random(0))
    assert Counter(clusters[t.name] for t in pool)[99] == 2 and len(pool) == 5
    with pytest.raises(RetrievalError, match="unknown DEER sampling mode"):
        deer_pool(tools, clusters, "cosine", gold=tools[0])
    with pytest.raises(RetrievalError, match="needs the gold tool"):
        deer_pool(tools, clusters, "intra")


def test_demo_retrieval_ranks_similar_goals(demos):
    r = DemoRetriever(demos, "bm25")
    assert r.search("book a flight to Madrid", 1)[0].item.id == "d1"
    assert [e.id for e in r.select("weather in Berlin", 1)] == ["d0"]


def test_demo_selection_covers_every_candidate_tool(demos, tools):
    r = DemoRetriever(demos, "bm25")
    cover = [t for t in tools if t.name in ("getWeatherForecast", "sendEmail", "playMusic")]
    chosen = r.select("weather in Berlin", 2, cover=cover)
    used = {c.name for e in chosen for c in e.calls}
    assert {"getWeatherForecast", "sendEmail", "playMusic"} <= used
    assert chosen[0].id == "d0" and len(chosen) == 3  # covering needs 3 > k
    two = r.select("flight and hotel", 1, cover=["searchHotels", "bookFlight"])
    assert [e.id for e in two] == ["d2"]  # one demo covers both
    assert "d1" not in [e.id for e in r.select("flight", 2, exclude_ids=["d1"])]
    with pytest.raises(RetrievalError, match="no demonstration uses"):
        r.select("weather", 2, cover=["calculateBMI"])
    assert len(r.select("weather", 2, cover=["calculateBMI"], allow_uncovered=True)) == 2


def test_demo_pool_errors(demos):
    with pytest.raises(RetrievalError, match="empty demonstration pool"):
        DemoRetriever([], "bm25")
    with pytest.raises(RetrievalError, match="unique"):
        DemoRetriever([demos[0], demos[0]], "bm25")


def test_deer_mode_mix_follows_the_papers_ratio():
    rng = random.Random(0)
    counts = Counter(pick_deer_mode(rng) for _ in range(5000))
    assert abs(counts["random"] / 5000 - 0.4) < 0.03 and abs(counts["intra"] / 5000 - 0.2) < 0.03
    with pytest.raises(RetrievalError, match="unknown DEER sampling modes"):
        pick_deer_mode(rng, {"cosine": 1.0})
