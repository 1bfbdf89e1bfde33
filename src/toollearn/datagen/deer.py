"""DEER decision-branch training data, built as the paper builds it (sections 3.1 and 3.2).

Search samples: each training tool's (query, call) examples from ToolDEER's tool.json, 60% as
Call samples (the gold tool plus 4 distractors) and 40% as NoCall samples (5 tools, gold left
out), split per tool by a seeded shuffle. Pools are drawn random / intra-cluster /
inter-cluster (`retrieval.candidates.deer_pool`) in a mode picked per sample with the mix
(default the paper's 2:1:2), over KMeans(30) clusters of MiniLM embeddings of the training
tools' descriptions. NoSearch samples: general queries (`datagen.general_queries`) with the
released no-search turn, and for each the plain chat sample that DecisionAgent's direct answer
sends (the bare query), with the base model's own answer as the target, so tuning keeps its
conversational behaviour (the paper's Table 4 check).

Honesty: the 77 unseen test tools never appear (neither gold nor distractor), examples whose
query is a ToolDEER test/valid query or a near-copy are dropped (tool.json repeats all of
them), as are calls that do not parse or do not fit their tool's signature (the served grammar
would never write them); every drop is counted by reason. Tools are shown without their
tool.json examples, which hold held-out queries. Samples come from
`to_training_sample(..., "deer")`, the renderer the agent's format shares, so the pool text and
tool responses are context and only the model's pieces carry loss.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from toollearn.core.errors import FormatError, RetrievalError, ToollearnError
from toollearn.core.samples import TrainingSample
from toollearn.core.types import Example, Message, Tool, ToolCall
from toollearn.datagen.dataset import Generated
from toollearn.datagen.leakage import Exclusions, QueryIndex, deer_exclusions, normalise
from toollearn.datagen.samples import to_training_sample
from toollearn.engines.base import Completion, Sampling
from toollearn.envs.validate import validate_call
from toollearn.formats.pycall import in_declared_order, parse_call_lenient
from toollearn.retrieval.candidates import DEER_MIX, deer_pool, pick_deer_mode, tool_clusters

SOURCE = "datagen-deer"
CALL_SHARE = 0.6
POOL_SIZE = 5
N_CLUSTERS = 30
ANSWER_MAX_TOKENS = 128
ANSWER_BATCH = 16
_CLUSTER_CACHE: dict[tuple, dict[str, int]] = {}
_PROBLEM = {"unknown_argument": "call: unknown argument",
            "missing_argument": "call: missing required argument",
            "invalid_argument": "call: argument of the wrong type"}  # fmt: skip


@dataclass(frozen=True)
class ToolExample:
    """One usable tool.json example: its tool (shown form), query, checked call and index."""

    tool: Tool
    query: str
    call: ToolCall
    index: int


def shown(tool: Tool) -> Tool:
    """The tool as samples carry it: without tool.json's examples (they hold test queries)."""
    meta = {k: v for k, v in tool.metadata.items() if k != "examples"}
    return replace(tool, metadata=meta)


def training_tools(root: str | Path, exclusions: Exclusions, out: Generated) -> list[Tool]:
    """tool.json's tools minus the excluded ones (each drop and its examples counted)."""
    from toollearn.data.tooldeer import load_tools

    kept = []
    for tool in load_tools(root):
        if tool.name in exclusions.tools:
            out.reject("tool: held-out (unseen test tool)")
            for _ in tool.metadata.get("examples", ()):
                out.reject("example: of a held-out tool")
            continue
        kept.append(tool)
    return kept


def check_call(text: str, tool: Tool) -> tuple[ToolCall | None, str]:
    """The example's call parsed against its tool (types coerced as the served grammar writes
    them, declared order), or None and the reason it is unusable."""
    try:
        call = parse_call_lenient(text, tool)
    except FormatError:
        return None, "call: not a literal Python call"
    if call.name != tool.name:
        return None, "call: names another function"
    problems, args = validate_call(call, tool)
    if problems:
        return None, _PROBLEM.get(problems[0].kind.value, f"call: {problems[0].kind.value}")
    return in_declared_order(ToolCall(tool.name, args), tool), ""


def usable_examples(
    tools: Sequence[Tool], exclusions: Exclusions, out: Generated
) -> list[ToolExample]:
    """Every example of the tools whose query is not held out (exact or near-copy), not a
    repeat, and whose call fits its tool; the others are counted as rejections."""
    index = QueryIndex(exclusions.queries)
    seen: set[str] = set()
    found = []
    for tool in tools:
        for i, ex in enumerate(tool.metadata.get("examples", ())):
            query = ex["query"]
            hit = index.match(query)
            if hit:
                out.reject(f"query: held-out test/valid query ({hit[0]})")
                continue
            if normalise(query) in seen:
                out.reject("query: repeated")
                continue
            call, why = check_call(ex["call"], tool)
            if call is None:
                out.reject(why)
                continue
            seen.add(normalise(query))
            found.append(ToolExample(shown(tool), query, call, i))
    return found


def deer_clusters(tools: Sequence[Tool], n_clusters: int = N_CLUSTERS) -> dict[str, int]:
    """`tool_clusters` of these tools, computed once per process (about a minute on a CPU)."""
    key = (n_clusters, tuple((t.name, t.description) for t in tools))
    if key not in _CLUSTER_CACHE:
        _CLUSTER_CACHE[key] = tool_clusters(tools, n_clusters)
    return _CLUSTER_CACHE[key]


def search_sample(
    ex: ToolExample,
    call: bool,
    pool: Sequence[Tool],
    clusters: Mapping[str, int],
    mix: Mapping[str, float],
    rng: random.Random,
) -> TrainingSample:
    """A Call (gold in the pool) or NoCall (gold left out) sample of one example."""
    mode = pick_deer_mode(rng, mix)
    tools = deer_pool(pool, clusters, mode, gold=ex.tool, include_gold=call, size=POOL_SIZE,
                      rng=rng)  # fmt: skip
    kind = "call" if call else "nocall"
    example = Example(f"{ex.tool.name}:{ex.index}", ex.query, tuple(tools),
                      (ex.call,) if call else (), needs_tool=True, has_suitable_tool=call,
                      split=kind, metadata={"source": SOURCE})  # fmt: skip
    [sample] = to_training_sample(example, "deer")
    meta = {**sample.metadata, "kind": kind, "query": ex.query, "mode": mode,
            "tools": [t.name for t in tools], "gold": ex.tool.name}  # fmt: skip
    return replace(sample, metadata=meta)


def search_samples(
    examples: Sequence[ToolExample],
    pool: Sequence[Tool],
    clusters: Mapping[str, int],
    exclusions: Exclusions,
    out: Generated,
    *,
    seed: int,
    mix: Mapping[str, float],
) -> list[TrainingSample]:
    """Call/NoCall samples: per tool, a seeded CALL_SHARE of its examples are Call samples
    (randomised rounding keeps the overall share exact in expectation)."""
    by_tool: dict[str, list[ToolExample]] = {}
    for ex in examples:
        by_tool.setdefault(ex.tool.name, []).append(ex)
    samples = []
    for name, exs in by_tool.items():
        rng = random.Random(f"{seed}:deer:split:{name}")
        order = list(range(len(exs)))
        rng.shuffle(order)
        calls = set(order[: int(CALL_SHARE * len(exs) + rng.random())])
        for j, ex in enumerate(exs):
            pool_rng = random.Random(f"{seed}:deer:pool:{name}:{ex.index}")
            try:
                sample = search_sample(ex, j in calls, pool, clusters, mix, pool_rng)
            except RetrievalError:
                out.reject("pool: cannot be drawn")
                continue
            if set(sample.metadata["tools"]) & exclusions.tools:
                out.reject("pool: holds a held-out tool")
                continue
            samples.append(sample)
    return samples


def nosearch_queries(
    n: int,
    seed: int,
    exclusions: Exclusions,
    tool_queries: Sequence[str],
    out: Generated,
    style: str = "plain",
) -> list[str]:
    """n general queries of a style (`general_queries`), none a held-out query (or near-copy)
    nor a near-copy of a tool example (that would label one request both ways)."""
    from toollearn.datagen.general_queries import available, general_queries

    held, near_tools = QueryIndex(exclusions.queries), QueryIndex(tool_queries)
    kept: list[str] = []
    for query in general_queries(min(available(style), n + n // 4 + 20), seed, style):
        if len(kept) == n:
            break
        hit = held.match(query)
        if hit:
            out.reject(f"nosearch: held-out test/valid query ({hit[0]})")
        elif near_tools.match(query):
            out.reject("nosearch: near a tool example query")
        else:
            kept.append(query)
    return kept


def _read_cache(path: Path | None) -> dict[str, dict[str, Any]]:
    if path is None or not path.is_file():
        return {}
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            found[rec["query"]] = rec
    return found


def answer_queries(
    queries: Sequence[str],
    engine: Any,
    cache: str | Path | None = None,
    *,
    batch_size: int = ANSWER_BATCH,
    max_tokens: int = ANSWER_MAX_TOKENS,
) -> dict[str, dict[str, Any]]:
    """{query: {"answer", "finish_reason", "engine"[, "error"]}}: the engine's greedy answer to
    each bare query, as DecisionAgent's direct answer asks it. Answers are appended to the JSONL
    `cache` as they come (keyed by query: one cache file per engine), so a rerun only asks for
    what is missing; engine errors are returned but not cached (a rerun retries them)."""
    from tqdm import tqdm

    path = Path(cache) if cache else None
    done = _read_cache(path)
    todo = list(dict.fromkeys(q for q in queries if q not in done))
    label = str(getattr(engine, "name", type(engine).__name__)) if todo else ""
    with tqdm(total=len(todo), desc="NoSearch answers", unit="q", disable=not todo) as bar:
        for start in range(0, len(todo), batch_size):
            batch = todo[start : start + batch_size]
            prompts = [[Message("user", q)] for q in batch]
            try:
                got = engine.complete(prompts, max_tokens=max_tokens, **Sampling().kwargs())
            except (ToollearnError, RuntimeError, ValueError, OSError) as exc:
                got = [Completion("", "error", error=f"{type(exc).__name__}: {exc}")] * len(batch)
            records = [{"query": q, "answer": c.text, "finish_reason": c.finish_reason,
                        "engine": label, **({"error": c.error} if c.error else {})}
                       for q, c in zip(batch, got)]  # fmt: skip
            done.update((r["query"], r) for r in records)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                with path.open("a", encoding="utf-8") as fh:
                    for r in records:
                        if "error" not in r:
                            fh.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
            bar.update(len(batch))
    return {q: done[q] for q in queries}


def nosearch_samples(
    queries: Sequence[str], answers: Mapping[str, dict[str, Any]], out: Generated | None
) -> list[TrainingSample]:
    """The released no-search turn for each query, then the chat sample of each usable answer
    (the prompt DecisionAgent's direct answer sends, the base model's answer as target); with
    `out` None, the decisions only (no answers were asked for)."""
    decisions, chats = [], []
    for i, query in enumerate(queries):
        example = Example(f"nosearch:{i}", query, needs_tool=False, split="nosearch",
                          metadata={"source": SOURCE})  # fmt: skip
        [sample] = to_training_sample(example, "deer")
        meta = {**sample.metadata, "kind": "nosearch", "query": query, "tools": [], "mode": None}
        decisions.append(replace(sample, metadata=meta))
        if out is None:
            continue
        rec = answers.get(query) or {"error": "no answer"}
        text = (rec.get("answer") or "").strip()
        if rec.get("error"):
            out.reject("answer: engine failed")
            continue
        if not text:
            out.reject("answer: empty")
            continue
        trimmed = rec.get("finish_reason") == "length"
        if trimmed:  # cut off by max_tokens: keep the complete sentences only
            text = complete_sentences(text)
            if len(text) < 40:
                out.reject("answer: cut off before one complete sentence")
                continue
        meta = {
            "trimmed": trimmed,
            "kind": "nosearch-answer",
            "query": query,
            "tools": [],
            "mode": None,
            "engine": rec.get("engine", ""),
            "finish_reason": rec.get("finish_reason", ""),
        }
        chats.append(TrainingSample((Message("user", query),), text, task="chat", role="agent",
                                    source=f"{SOURCE}/nosearch-answer/{i}",
                                    metadata=meta))  # fmt: skip
    return decisions + chats


def complete_sentences(text: str) -> str:
    """The text up to its last sentence end (a word followed by ., ! or ?, or a line break
    after such an end), without the unfinished rest."""
    import re

    ends = [m.end() for m in re.finditer(r"[A-Za-z)\]\"'][.!?](?=\s|$)", text)]
    return text[: ends[-1]].strip() if ends else ""


def generate_deer(
    root: str | Path,
    *,
    seed: int = 0,
    mix: Mapping[str, float] | None = None,
    n_nosearch: int = 1000,
    answer_engine: Any = None,
    answers_cache: str | Path | None = None,
    clusters: Mapping[str, int] | None = None,
    exclusions: Exclusions | None = None,
    general: str = "plain",
    answers: bool = True,
) -> Generated:
    """DEER's Call / NoCall / NoSearch samples (and the NoSearch chat samples) from ToolDEER
    under `root`; see the module docstring. `clusters` (tool name -> cluster) skips the
    KMeans; `answer_engine` defaults to the embedded model (loaded only when needed);
    `general` is the NoSearch queries' style; `answers=False` writes no chat samples (the
    decisions only: data to fit the gates on)."""
    out = Generated()
    exclusions = deer_exclusions(root) if exclusions is None else exclusions
    mix = dict(DEER_MIX if mix is None else mix)
    tools = training_tools(root, exclusions, out)
    examples = usable_examples(tools, exclusions, out)
    pool = [shown(t) for t in tools]
    given = clusters is not None
    clusters = dict(clusters) if given else deer_clusters(pool)
    out.samples = search_samples(examples, pool, clusters, exclusions, out, seed=seed, mix=mix)
    tool_queries = [e["query"] for t in tools for e in t.metadata.get("examples", ())]
    queries = nosearch_queries(n_nosearch, seed, exclusions, tool_queries, out, general)
    engine_label = ""
    if queries and not answers:
        out.samples += nosearch_samples(queries, {}, None)
    elif queries:
        if answer_engine is None:
            from toollearn.engines import load_engine

            answer_engine = load_engine("llama")
        engine_label = str(getattr(answer_engine, "name", type(answer_engine).__name__))
        answers = answer_queries(queries, answer_engine, answers_cache)
        out.samples += nosearch_samples(queries, answers, out)
    out.config = _config(out.samples, tools, clusters, given, seed, mix, n_nosearch, engine_label)
    out.config["general_queries"] = general
    return out


def _config(samples, tools, clusters, given, seed, mix, n_nosearch, engine) -> dict[str, Any]:
    search = [s for s in samples if s.metadata["kind"] in ("call", "nocall")]
    return {
        "generator": "deer",
        "seed": seed,
        "mix": mix,
        "call_share": CALL_SHARE,
        "pool_size": POOL_SIZE,
        "clusters": "given" if given else f"KMeans({N_CLUSTERS}) over MiniLM descriptions",
        "n_clusters": len(set(clusters.values())),
        "tools_train": len(tools),
        "tools_used": len({s.metadata["gold"] for s in search}),
        "by_kind": dict(sorted(Counter(s.metadata["kind"] for s in samples).items())),
        "by_mode": dict(sorted(Counter(s.metadata["mode"] for s in search).items())),
        "n_nosearch": n_nosearch,
        "answer_engine": engine,
        "answer_max_tokens": ANSWER_MAX_TOKENS,
    }
