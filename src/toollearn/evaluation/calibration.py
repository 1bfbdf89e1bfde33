"""Calibrate DEER's Call/NoCall (and Search/NoSearch) decisions on held-out training examples.

A tuned model's greedy branch can carry a prior (always call, or always decline) while a
margin (agents.call_gate: the model's log p(` #NoCallAPI#`) - log p(` #CallAPI#`), or the
query's similarity to the pool) may still order queries well. This module scores that margin
on generated DEER decision branches (`datagen deer`, built from training tools
and queries only) that the model did not train on, and picks the threshold that decides them
best; `DecisionAgent(call_threshold=...)` then uses it on the test sets. The search decision
is calibrated the same way (`search_cases`: the branches' tool requests against their general
queries; `DecisionAgent(search_threshold=...)`). Nothing of the valid or test splits is read
here.

Held out means: its query is the query of no sample the training run drew (train or eval
part) from the datasets whose queries could coincide (DEER's and the general format's, both
built on ToolDEER's train queries); the draws are recomputed from the run's own `train.json`
(`training.data.draw_dataset`), each dataset's sha256 checked against the one it recorded.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError
from toollearn.core.samples import TrainingSample
from toollearn.core.types import Message
from toollearn.formats.answers import deer

KINDS = {"call": True, "nocall": False}  # datagen deer kind -> the right decision is to call
SEARCH_KINDS = {"call": True, "nocall": True, "nosearch": False}  # -> the right one is to search
CALL_KEYS = ("nocall_margin", "call")  # (the margin, the label it decides) of each decision
SEARCH_KEYS = ("nosearch_margin", "search")


def trained_queries(train_json: str | Path, datasets: Sequence[str] | None = None) -> set[str]:
    """Queries of every sample a training run drew (train and eval part) from `datasets` (by
    default all of its datasets), recomputed from its train.json; a dataset whose file is
    missing or changed since the run is an error."""
    from toollearn.training.data import dataset_share, draw_dataset

    info = json.loads(Path(train_json).read_text(encoding="utf-8"))
    cfg = info["config"]
    names = list(cfg["datasets"])
    unknown = sorted(set(datasets or ()) - set(names))
    if unknown:
        raise DataError(f"the run trained on no dataset {unknown}; it has {names}",
                        str(train_json))  # fmt: skip
    queries: set[str] = set()
    for index, name in enumerate(names):
        if datasets is not None and name not in datasets:
            continue
        share = dataset_share(cfg["datasets"], name, cfg.get("samples"))
        picked, source = draw_dataset(name, index, cfg["datasets"][name], share,
                                      cfg.get("seed", 0), cfg.get("kinds") or ())  # fmt: skip
        recorded = (info.get("datasets") or {}).get(name, {}).get("sha256")
        if recorded != source["sha256"]:
            raise DataError(f"{source['path']} is not the file the run trained on "
                            f"(sha256 {source['sha256'][:12]} vs {str(recorded)[:12]})",
                            str(train_json))  # fmt: skip
        queries |= {q for s in picked if (q := s.metadata.get("query"))}
    return queries


def retriever_queries(train_json: str | Path) -> set[str]:
    """Queries of every pair a `toollearn retrieve train` (or `train-reranker`) run drew,
    recomputed from its train.json (`retrieval.train.mix_pairs`, `retrieval.reranker.
    draw_samples`); a dataset changed since the run is an error. A gate using that model is
    calibrated on other queries."""
    from toollearn.engines.provenance import sha256_file
    from toollearn.retrieval.reranker import draw_samples
    from toollearn.retrieval.train import RetrieverConfig, decision_draw, mix_pairs

    info = json.loads(Path(train_json).read_text(encoding="utf-8"))
    for source in info["datasets"]:
        path = Path(source["data"]["path"])
        if not path.is_file() or sha256_file(path) != source["data"]["sha256"]:
            raise DataError(f"{path} is not the file the retriever trained on", str(train_json))
    datasets, seed = info["config"]["datasets"], info["config"]["seed"]
    if info.get("kind") == "reranker":
        return {s["query"] for s in draw_samples(datasets, seed)[0]}
    queries = {p.query for p in mix_pairs(datasets, seed)[0]}
    if info["config"].get("decision_samples"):  # the CoSENT pairs' queries too
        config = RetrieverConfig(datasets=datasets, seed=seed,
                                 decision_samples=info["config"]["decision_samples"])  # fmt: skip
        queries |= {s["query"] for s in decision_draw(config)}
    return queries


def decision_cases(
    samples: Sequence[TrainingSample], exclude: set[str], n: int, seed: int = 0
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Up to n Call/NoCall decision cases whose query is not in `exclude`, drawn with the
    seed; each {"query", "prefix" (the turn up to the decision), "call" (bool), "source"}.
    Also counts what was left out and why."""
    counts = {"decision_samples": 0, "excluded_trained_query": 0}
    cases = []
    for s in samples:
        kind = s.metadata.get("kind")
        if kind not in KINDS or s.task != "deer" or len(s.spans) < 2:
            continue
        counts["decision_samples"] += 1
        query = s.metadata.get("query") or s.messages[-1].content
        if query in exclude:
            counts["excluded_trained_query"] += 1
            continue
        prefix = s.target[: s.spans[-1][0]]  # the search span and the pool the agent inserts
        cases.append({"query": query, "prefix": prefix, "call": KINDS[kind], "source": s.source,
                      "tools": s.tools})  # fmt: skip
    random.Random(f"{seed}:calibrate").shuffle(cases)
    counts["held_out"] = len(cases)
    return cases[:n], counts


def search_cases(
    samples: Sequence[TrainingSample], exclude: set[str], seed: int = 0
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Every Search/NoSearch case (one per distinct query) whose query is not in `exclude`,
    shuffled with the seed; each {"query", "search" (bool), "source"}. Also counts what was
    left out and why."""
    counts = {"decision_samples": 0, "excluded_trained_query": 0, "repeated_query": 0}
    cases, seen = [], set()
    for s in samples:
        kind = s.metadata.get("kind")
        if kind not in SEARCH_KINDS or s.task != "deer":
            continue
        counts["decision_samples"] += 1
        query = s.metadata.get("query") or s.messages[-1].content
        if query in exclude:
            counts["excluded_trained_query"] += 1
        elif query in seen:
            counts["repeated_query"] += 1
        else:
            seen.add(query)
            cases.append({"query": query, "search": SEARCH_KINDS[kind], "source": s.source})
    random.Random(f"{seed}:calibrate-search").shuffle(cases)
    counts["held_out"] = len(cases)
    return cases, counts


def score_cases(gate: Any, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each case (without its prefix and tools) with what the gate scored: its NoCall margin."""
    from tqdm import tqdm

    out = []
    for case in tqdm(cases, desc="scoring decisions", unit="case", mininterval=10):
        messages = [*deer.render_messages(case["query"]), Message("assistant", case["prefix"])]
        scored = gate.score(case["query"], case["tools"], messages)
        kept = {k: v for k, v in case.items() if k not in ("prefix", "tools")}
        out.append({**kept, "pool": [t.name for t in case["tools"]], **scored})
    return out


def score_search_cases(gate: Any, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each Search/NoSearch case with what the search gate scored: its NoSearch margin."""
    from tqdm import tqdm

    return [
        {**case, **gate.score(case["query"])}
        for case in tqdm(cases, desc="scoring searches", unit="case", mininterval=10)
    ]


def accuracy(
    scored: Sequence[dict[str, Any]], threshold: float, keys: tuple[str, str] = CALL_KEYS
) -> float:
    """Share of cases decided right when declining iff the margin exceeds the threshold
    (keys: the margin and the label, CALL_KEYS or SEARCH_KEYS)."""
    if not scored:
        return 0.0
    margin, label = keys
    right = sum((s[margin] <= threshold) == s[label] for s in scored)
    return right / len(scored)


def best_threshold(scored: Sequence[dict[str, Any]], keys: tuple[str, str] = CALL_KEYS) -> float:
    """The threshold with the highest accuracy (midpoint between neighbouring margins; ties
    go to the one nearest 0, the model's own argmax)."""
    margins = sorted({s[keys[0]] for s in scored})
    if not margins:
        raise DataError("no scored cases to calibrate on")
    candidates = [margins[0] - 1.0, margins[-1] + 1.0]
    candidates += [(a + b) / 2 for a, b in zip(margins, margins[1:])]
    return max(candidates, key=lambda t: (accuracy(scored, t, keys), -abs(t)))


def sure_threshold(
    scored: Sequence[dict[str, Any]], precision: float, keys: tuple[str, str] = CALL_KEYS
) -> float | None:
    """The highest margin at or below which at least `precision` of the cases are of the
    calling kind (Call, Search): a gate that decides alone below it is that often right there.
    None when no margin reaches it."""
    margin, label = keys
    ordered = sorted(scored, key=lambda s: s[margin])
    best, right = None, 0
    for i, case in enumerate(ordered, 1):
        right += bool(case[label])
        last = i == len(ordered) or ordered[i][margin] != case[margin]
        if last and right / i >= precision:
            best = case[margin]
    return best


def roc_auc(scored: Sequence[dict[str, Any]], keys: tuple[str, str] = CALL_KEYS) -> float | None:
    """Probability that a declining case (NoCall, NoSearch) has a larger margin than the
    other kind (ties half)."""
    margin, label = keys
    pos = [s[margin] for s in scored if not s[label]]
    neg = [s[margin] for s in scored if s[label]]
    if not pos or not neg:
        return None
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (len(pos) * len(neg))
