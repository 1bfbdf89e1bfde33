"""alpha-UMi trajectories from ToolDEER's natural queries: agent episodes on requests people
(GPT-4) wrote, not on our templates.

`datagen umi`'s trajectories all come from `datagen.phrasing`'s templates over Seal-Tools
tools, and an agent trained on them alone gives up on requests worded otherwise ("What is
15 + 27?" with `add` shown: results/demo-answers). These episodes use ToolDEER's `tool.json`
examples instead (filtered as `datagen.deer` filters them: no unseen test tool, no test or
valid query or near-copy, only calls that fit their tool):

- single: one example's query and call;
- multi: 2-3 examples of different tools joined into one request (`datagen.natural`'s
  connectives), called in order;
- parallel: 2-3 examples of one tool joined, one call per value set.

An answerable task shows its gold tools among 2-8 (`datagen.umi.VARIED_CANDIDATES`), the rest
random training tools, or with `distractors="close"` tools of the gold tools' own clusters
first (similar tools, as a retriever's candidates are). A give-up shows 2-8 tools of clusters
other than the first request's tool (DEER's inter-cluster sampling over
`retrieval.candidates.tool_clusters`; no gold tool), so what it lacks is far from what it
shows: a model learns to give up when no shown tool does the job, not when a request is worded
unlike the templates. The episodes are played by the oracle through the production
`MultiRoleAgent` on simulated tools (`datagen.umi`), so their plans, calls and answers have the
same shape as `datagen umi`'s.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from toollearn.core.types import Tool
from toollearn.datagen.dataset import Generated
from toollearn.datagen.deer import ToolExample, shown
from toollearn.datagen.leakage import Exclusions
from toollearn.datagen.natural import Decapitaliser, join_queries, training_examples
from toollearn.datagen.umi import (
    VARIED_CANDIDATES,
    give_up_task,
    record_trajectory,
    task_from_calls,
)

SOURCE = "datagen-umi-natural"
MIX = {"single": 0.5, "multi": 0.3, "parallel": 0.2}
DISTRACTORS = ("random", "close")
P_THREE = 0.25  # joined requests of three parts (else two)


def draw_parts(
    kind: str, by_tool: Mapping[str, list[ToolExample]], rng: random.Random
) -> list[ToolExample]:
    """The examples one task joins: one (single), 2-3 of different tools (multi; [] with fewer
    than two tools) or 2-3 of one tool (parallel; [] when no tool has two)."""
    names = sorted(by_tool)
    if kind == "single":
        return [rng.choice(by_tool[rng.choice(names)])]
    k = 3 if rng.random() < P_THREE else 2
    if kind == "multi":
        if len(names) < 2:
            return []
        return [rng.choice(by_tool[t]) for t in rng.sample(names, min(k, len(names)))]
    several = [t for t in names if len(by_tool[t]) >= 2]
    if not several:
        return []
    group = by_tool[rng.choice(several)]
    return rng.sample(group, min(k, len(group)))


def shown_tools(
    gold: Sequence[Tool], pool: Sequence[Tool], rng: random.Random, give_up: bool,
    clusters: Mapping[str, int], distractors: str = "random",
) -> list[Tool]:  # fmt: skip
    """The tools a task shows (module docstring), shuffled; `distractors` (DISTRACTORS) picks
    an answerable task's other tools: random, or close (from the gold tools' clusters first,
    topped up at random: tools a model must tell apart, as retrieved candidates are)."""
    from toollearn.retrieval.candidates import deer_pool

    names = {t.name for t in gold}
    unique = list({t.name: t for t in gold}.values())
    k = max(rng.randint(*VARIED_CANDIDATES), len(unique))
    others = [t for t in pool if t.name not in names]
    if give_up:  # far from the missing tool: one tool from each of k other clusters
        far = {clusters[t.name] for t in others} - {clusters[unique[0].name]}
        return deer_pool(others, clusters, "inter", gold=unique[0], include_gold=False,
                         size=min(k, len(far)), rng=rng)  # fmt: skip
    if distractors == "close":
        homes = {clusters[t.name] for t in unique}
        near = [t for t in others if clusters[t.name] in homes]
        picked = rng.sample(near, min(k - len(unique), len(near)))
        taken = {t.name for t in picked}
        rest = [t for t in others if t.name not in taken]
        chosen = unique + picked + rng.sample(rest, k - len(unique) - len(picked))
    else:  # the draw of the first datasets, kept so that they reproduce
        chosen = unique + rng.sample(others, k - len(unique))
    rng.shuffle(chosen)
    return chosen


def answer_template(parts: Sequence[ToolExample]) -> str:
    """The conclusion: each request (its end mark dropped) with the values its call returned,
    e.g. "Generate names for a podcast: {0[result]}." (`clause` of a ToolDEER description
    reads badly: "Get the say "namr" to find awesome domains...")."""
    out = []
    for i, p in enumerate(parts):
        fields = list(p.tool.responses) or ["result"]
        request = p.query.strip().rstrip(".?!").replace("{", "{{").replace("}", "}}")
        values = ", ".join(f"{{{i}[{f}]}}" for f in fields)
        out.append(f"{request[:1].upper()}{request[1:]}: {values}.")
    return " ".join(out)


def generate_natural_trajectories(
    root: str | Path, n: int, *, seed: int = 0, exclusions: Exclusions | None = None,
    p_give_up: float = 0.1, mix: Mapping[str, float] | None = None,
    clusters: Mapping[str, int] | None = None, distractors: str = "random",
) -> tuple[list[Any], Generated]:  # fmt: skip
    """n recorded trajectories (module docstring), with rejections; `clusters` (tool name ->
    cluster) defaults to KMeans(30) over MiniLM embeddings of the training tools. A small
    pool gives a give-up fewer tools when it has fewer other clusters (at least 2: else the
    task is rejected)."""
    mix = dict(mix or MIX)
    if set(mix) - set(MIX) or not mix or min(mix.values()) < 0 or sum(mix.values()) <= 0:
        raise ValueError(f"task kinds must be among {sorted(MIX)} with weights >= 0, not {mix}")
    if distractors not in DISTRACTORS:
        raise ValueError(f"distractors must be one of {DISTRACTORS}, not {distractors!r}")
    out = Generated()
    tools, examples, pool = training_examples(root, exclusions, out)
    if not examples:
        raise ValueError(f"no usable ToolDEER examples under {root} (rejections: {out.rejections})")
    if clusters is None:
        from toollearn.retrieval.candidates import tool_clusters

        clusters = tool_clusters(pool, min(30, len(pool)))  # DEER's 30 (fewer tools: fewer)
    by_tool: dict[str, list[ToolExample]] = {}
    for ex in examples:
        by_tool.setdefault(ex.tool.name, []).append(ex)
    decap = Decapitaliser([ex.query for ex in examples])
    trajectories, seen = [], set()
    for i in range(n):
        rng = random.Random(f"umi-natural:{seed}:{i}")
        kind = rng.choices(list(mix), weights=list(mix.values()))[0]
        parts = draw_parts(kind, by_tool, rng)
        key = tuple((p.tool.name, p.index) for p in parts)
        if not parts or key in seen:
            out.reject(f"{kind}: repeated or no combination")
            continue
        seen.add(key)
        if len(parts) == 1:
            query, connectives = parts[0].query.strip(), []
        else:
            query, connectives = join_queries([p.query for p in parts], rng, decap)
        give_up = rng.random() < p_give_up
        gold = [shown(p.tool) for p in parts]
        tools_shown = shown_tools(gold, pool, rng, give_up, clusters, distractors)
        if len(tools_shown) < VARIED_CANDIDATES[0]:
            out.reject("give-up: too few other clusters")
            continue
        tid = f"umi-natural-{seed}-{i}"
        if give_up:
            task = give_up_task(tid, query, gold[0], tools_shown)
        else:
            task = task_from_calls(tid, query, [p.call for p in parts], tools_shown, rng)
            task = replace(task, answer=answer_template(parts))
        traj = record_trajectory(task, tools_shown, seed)
        if traj is None:
            out.reject("episode did not end as planned")
            continue
        meta = {"source": SOURCE, "kind": kind, "give_up": give_up,
                "queries": [p.query for p in parts], "gold": [p.tool.name for p in parts],
                "connectives": connectives}  # fmt: skip
        trajectories.append(replace(traj, id=tid, metadata=meta))
    kinds = Counter(t.metadata["kind"] for t in trajectories)
    out.config = {
        "generator": "umi-natural", "n": n, "seed": seed, "mix": mix, "p_give_up": p_give_up,
        "candidates": "{}-{}".format(*VARIED_CANDIDATES), "give_up_pool": "inter-cluster",
        "tools_train": len(tools), "examples_usable": len(examples),
        "trajectories": len(trajectories), "by_kind": dict(sorted(kinds.items())),
        "give_ups": sum(t.metadata["give_up"] for t in trajectories),
    }  # fmt: skip
    if distractors != "random":  # the first datasets' config (and hash) stays as it was
        out.config["distractors"] = distractors
    return trajectories, out
