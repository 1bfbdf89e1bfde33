"""The cross-encoder trained on DEER decision branches (`toollearn retrieve train-reranker`)."""

from __future__ import annotations

import json
import random

import pytest

from toollearn.core.errors import DataError, RetrievalError
from toollearn.core.types import Example, Tool, ToolCall

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = {
    "get_weather": ("Current weather and forecast of a city", [
        "What is the weather in {}?", "Will it rain in {} tomorrow?", "How hot is it in {}?",
        "Is it snowing in {} right now?"]),
    "convert_currency": ("Convert an amount of money between currencies", [
        "How much is 100 euros in dollars in {}?", "Convert 50 pounds to yen for my {} trip.",
        "What do 20 francs buy in {} currency?", "Exchange 300 dollars before flying to {}."]),
    "find_restaurant": ("Find restaurants in a city by cuisine", [
        "Find a sushi place in {}.", "Where can I eat pizza in {}?",
        "Recommend a vegan restaurant in {}.", "Any good steakhouses in {}?"]),
    "book_flight": ("Search and book flights between cities", [
        "Book a flight from London to {}.", "Find cheap flights to {} next week.",
        "I need a plane ticket to {}.", "Flights from {} to Rome on Friday?"]),
}  # fmt: skip
CITIES = ["Oslo", "Paris", "Lima", "Cairo", "Tokyo", "Quito"]


def samples(cities):
    """DEER Call (gold in a 2-tool pool) and NoCall (gold left out) samples, as datagen's."""
    from dataclasses import replace

    from toollearn.datagen.samples import deer_sample

    tools = {n: Tool(n, d, CITY) for n, (d, _) in TOOLS.items()}
    rng, out = random.Random(0), []
    for name, (_, phrasings) in TOOLS.items():
        for city in cities:
            for i, phrase in enumerate(phrasings):
                call = i % 2 == 0
                others = rng.sample([t for t in tools if t != name], 2)
                pool = tuple(tools[n] for n in ([name, others[0]] if call else others))
                ex = Example(f"{name}:{city}:{i}", phrase.format(city), pool, needs_tool=True,
                             has_suitable_tool=call,
                             calls=(ToolCall(name, {"city": city}),) if call else ())  # fmt: skip
                s = deer_sample(ex)[0]
                meta = {**s.metadata, "kind": "call" if call else "nocall", "query": ex.query,
                        "gold": name}  # fmt: skip
                out.append(replace(s, metadata=meta))
    return out


def test_pairs_label_the_gold_tool_of_call_samples_only(tmp_path):
    from toollearn.datagen.dataset import write_dataset
    from toollearn.retrieval.reranker import decision_samples, draw_samples, sample_pairs

    write_dataset(tmp_path / "d", samples(CITIES[:1]), config={})
    drawn = decision_samples(tmp_path / "d")
    assert len(drawn) == 16 and sum(s["gold"] is not None for s in drawn) == 8
    pairs = sample_pairs(drawn)
    assert len(pairs) == 32 and sum(p.label for p in pairs) == 8
    some, sources = draw_samples({str(tmp_path / "d"): 5}, seed=1)
    assert len(some) == 5 and sources[0]["samples_available"] == 16
    assert some == draw_samples({str(tmp_path / "d"): 5}, seed=1)[0]
    (tmp_path / "bad.jsonl").write_text("{oops\n")
    with pytest.raises(DataError, match="line 1"):
        decision_samples(tmp_path / "bad.jsonl")


@pytest.mark.model
def test_a_trained_reranker_prefers_the_gold_tool_on_unseen_queries(tmp_path):
    pytest.importorskip("sentence_transformers")
    from toollearn.agents.call_gate import RerankGate, make_gate
    from toollearn.cli.main import main
    from toollearn.datagen.dataset import write_dataset
    from toollearn.evaluation.calibration import retriever_queries

    write_dataset(tmp_path / "d", samples(CITIES[:4]), config={})
    out = tmp_path / "rr"
    argv = ["retrieve", "train-reranker", "--data", str(tmp_path / "d"), "--epochs", "3",
            "--batch-size", "16", "--lr", "1e-4", "--threads", "2", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    info = json.loads((out / "train.json").read_text())
    assert info["kind"] == "reranker" and info["samples"] == 64 and info["positive_pairs"] == 32
    assert len(retriever_queries(out / "train.json")) == 64  # what calibration leaves out
    gate = make_gate(f"rerank:{out / 'model'}")
    assert isinstance(gate, RerankGate) and "cross-encoder" in gate.describe()["encoder"]
    held_out = samples(CITIES[4:])
    right, call_margins, nocall_margins = 0, [], []
    for s in held_out:
        scored = gate.score(s.metadata["query"], s.tools, [])
        if s.metadata["kind"] == "call":
            right += scored["closest_tool"] == s.metadata["gold"]
            call_margins.append(scored["nocall_margin"])
        else:
            nocall_margins.append(scored["nocall_margin"])
    assert right >= 0.8 * len(call_margins)
    assert sum(nocall_margins) / len(nocall_margins) > sum(call_margins) / len(call_margins)
    with pytest.raises(RetrievalError, match="no cross-encoder"):
        make_gate(f"rerank:{tmp_path}")


@pytest.mark.model
def test_a_retriever_trained_for_the_decision_too_records_and_excludes_its_pairs(tmp_path):
    """`retrieve train --decision-samples N`: the Call/NoCall samples' labelled pool pairs train
    a CoSENT loss beside the ranking loss; train.json counts them, the calibration leaves their
    queries (NoCall ones included) out, and on unseen queries a Call query's best similarity
    is above a NoCall query's."""
    pytest.importorskip("sentence_transformers")
    from toollearn.agents.call_gate import make_gate
    from toollearn.cli.main import main
    from toollearn.datagen.dataset import write_dataset
    from toollearn.evaluation.calibration import retriever_queries, roc_auc

    write_dataset(tmp_path / "d", samples(CITIES[:4]), config={})
    out = tmp_path / "ret"
    argv = ["retrieve", "train", "--data", f"{tmp_path / 'd'}:16", "--decision-samples", "24",
            "--batch-size", "16", "--lr", "1e-4", "--threads", "2", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    info = json.loads((out / "train.json").read_text())
    assert info["pairs"] == 16 and info["decision_pairs"] == 48
    assert 0 < info["decision_positive"] < 24 and info["config"]["decision_samples"] == 24
    excluded = retriever_queries(out / "train.json")
    nocall = {s.metadata["query"] for s in samples(CITIES[:4]) if s.metadata["kind"] == "nocall"}
    assert len(excluded) > 16 and excluded & nocall  # the decision pairs' queries are left out
    gate = make_gate(f"similarity:{out / 'model'}")
    scored = [{"nocall_margin": gate.score(s.metadata["query"], s.tools, [])["nocall_margin"],
               "call": s.metadata["kind"] == "call"} for s in samples(CITIES[4:])]  # fmt: skip
    assert roc_auc(scored) > 0.8
    from toollearn.retrieval.train import RetrieverConfig, decision_pairs

    write_dataset(tmp_path / "e", [], config={})
    with pytest.raises(DataError, match="no DEER Call/NoCall samples"):
        decision_pairs(RetrieverConfig(datasets={str(tmp_path / "e"): 0}, decision_samples=4))
