"""alpha-UMi trajectories from Seal-Tools-style instances, and their split into role samples.

Each instance (datagen.seal: single, multi-tool or nested calls) becomes a reference plan that
the oracle agent plays through the production `MultiRoleAgent` against simulated tools: the
planner writes a rationale ending in `Next: caller.`, the caller writes `Action:` / `Action
Input:` (a nested argument takes the real simulated output of the earlier call), the
observations are real, and the summarizer concludes from them. A share of the instances become
give-up cases: the tool a step needs is not among those shown, so the planner says so and gives
up. Trajectories are written in alpha-UMi's released format and split into planner, caller,
summarizer and single-LLM samples (`to_training_sample`, loss on the role's span only).

The "counted" plan style numbers the planner's rationales (`Step 2 of 3: ...`, then `All 3
steps are done; ...`), so a small planner reads how many sub-tasks are left off its own history
instead of re-counting the query's; "plain" keeps alpha-UMi's unnumbered rationales.

The held-out trajectory test set uses only tools of the sub-fields `datagen.leakage` holds out
for it (`Exclusions.held_out_subfields`): no generator trains on them, and no Seal-Tools test
or dev instance calls them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toollearn.core.types import Ref, Tool, ToolCall
from toollearn.datagen.dataset import Generated
from toollearn.datagen.leakage import Exclusions
from toollearn.datagen.phrasing import clause, write_query
from toollearn.formats.answers import umi

ROLE_FORMATS = ("umi-planner", "umi-caller", "umi-summarizer", "umi-single")
SAMPLE_FORMATS = (*ROLE_FORMATS, "umi-tool-calls")  # + the general call format, turn by turn
PLAN_STYLES = ("plain", "counted")
# How many tools a task shows: "fixed" shows the gold tools and retrieved distractors, 5 in
# all, and a give-up drops the missing one (so every give-up shows 4 tools and every other task
# 5: a cue a model learns); "varied" draws 2-8 for every task, a give-up's included.
CANDIDATE_MODES = ("fixed", "varied")
VARIED_CANDIDATES = (2, 8)


@dataclass(frozen=True)
class PlanTask:
    """A reference plan in the oracle's terms (see envs.demo.DemoTask): steps of (thought,
    tool, arguments) where "$k.field" is a field of the k-th output."""

    id: str
    query: str
    tools: tuple[str, ...]
    steps: tuple[tuple[str, str, dict[str, Any]], ...]
    answer: str = ""
    give_up: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def task_from_calls(
    tid: str, query: str, calls: Sequence[ToolCall], shown: Sequence[Tool], rng: random.Random,
    plan_style: str = "plain",
) -> PlanTask:  # fmt: skip
    """A plan whose steps are the calls, nested references turned into "$k.field"; the
    "counted" style numbers the rationales (see the module docstring)."""
    by_name = {t.name: t for t in shown}
    owner: dict[str, tuple[int, str]] = {}
    producers: dict[str, tuple[str, str]] = {}
    steps = []
    for i, call in enumerate(calls):
        tool = by_name[call.name]
        args = {}
        for key, value in call.arguments.items():
            rid = value.id if isinstance(value, Ref) else value
            ref = owner.get(rid) if isinstance(rid, str) else None  # lists are values, not ids
            args[key] = f"${ref[0]}.{ref[1]}" if ref else value
        thought = _cap(clause(call, tool, rng, producers)) + "."
        if plan_style == "counted":
            thought = f"Step {i + 1} of {len(calls)}: {thought}"
        steps.append((thought, call.name, args))
        fields = list(tool.responses) or ["result"]
        for rid, name in zip(call.responses, fields):
            owner[rid] = (i, name)
            producers[rid] = (call.name, name)
    answer = " ".join(
        f"{_cap(clause(ToolCall(c.name, {}), by_name[c.name], rng, {}))}: "
        + ", ".join(f"{{{i}[{f}]}}" for f in (list(by_name[c.name].responses) or ["result"]))
        + "."
        for i, c in enumerate(calls)
    )
    extra = {}
    if plan_style == "counted":
        done = "The step is" if len(calls) == 1 else f"All {len(calls)} steps are"
        extra["conclusion"] = f"{done} done; I have all the information needed to answer."
    return PlanTask(tid, query, tuple(t.name for t in shown), tuple(steps), answer, extra=extra)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def give_up_task(tid: str, query: str, missing: Tool, shown: Sequence[Tool]) -> PlanTask:
    """A plan for a request the shown tools cannot serve: the planner gives up at once."""
    reason = f"None of the available APIs can {clause(ToolCall(missing.name, {}), missing, random.Random(0), {})}"  # noqa: E501
    return PlanTask(tid, query, tuple(t.name for t in shown), (), give_up=True,
                    extra={"reason": reason + ", so the task cannot be done."})  # fmt: skip


class PlanOracle:
    """The oracle's three roles for a PlanTask (a give-up task gives up immediately)."""

    def __init__(self, task: PlanTask):
        from toollearn.agents.oracle import Oracle
        from toollearn.engines.scripted import ScriptedEngine

        self.inner = Oracle(task)
        self.planner = ScriptedEngine(self._plan) if task.give_up else self.inner.planner
        self.caller, self.summarizer = self.inner.caller, self.inner.summarizer
        self.task = task

    def _plan(self, prompt: Any) -> str:
        return umi.render_plan(self.task.extra["reason"], "give up")


def record_trajectory(task: PlanTask, shown: Sequence[Tool], seed: int = 0):
    """The oracle-driven MultiRoleAgent on simulated tools; the Trajectory, or None when the
    episode did not end as planned (a simulated output the plan cannot use)."""
    from toollearn.agents.multi_role import MultiRoleAgent
    from toollearn.data.trajectories import trajectory_from_trace
    from toollearn.envs.environment import Environment

    oracle = PlanOracle(task)
    env = Environment.simulated(list(shown), seed=seed)
    agent = MultiRoleAgent(oracle.planner, oracle.caller, oracle.summarizer, env,
                           max_steps=len(task.steps) + 2)  # fmt: skip
    try:
        trace = agent.run(task.query, list(shown), example_id=task.id)
    except (KeyError, IndexError, ValueError, TypeError):
        return None  # the answer template or a "$k.field" did not fit the simulated output
    want = "give_up" if task.give_up else "concluded"
    if trace.meta.get("outcome") != want or trace.errors:
        return None
    return trajectory_from_trace(trace, list(shown))


def generate_trajectories(
    tools: Sequence[Tool], n: int, *, seed: int = 0, exclusions: Exclusions | None = None,
    p_give_up: float = 0.1, mix: dict[str, float] | None = None, plan_style: str = "plain",
    candidates: str = "fixed",
) -> tuple[list[Any], Generated]:  # fmt: skip
    """n recorded trajectories over `tools` (instances from datagen.seal), with rejections;
    `plan_style` is one of PLAN_STYLES, `candidates` one of CANDIDATE_MODES."""
    from toollearn.datagen.seal import ToolPool, check_instance, plan_calls

    if plan_style not in PLAN_STYLES:
        raise ValueError(f"plan style must be one of {PLAN_STYLES}, not {plan_style!r}")
    if candidates not in CANDIDATE_MODES:
        raise ValueError(f"candidates must be one of {CANDIDATE_MODES}, not {candidates!r}")
    pool = ToolPool(tools, exclusions)
    mix = mix or {"single": 0.25, "multi": 0.45, "nested": 0.3}
    out = Generated(config={"generator": "umi", "n": n, "seed": seed, "mix": mix,
                            "p_give_up": p_give_up, "tools": len(pool.tools)})  # fmt: skip
    if plan_style != "plain":  # the plain style's config (and so its data hash) stays as it was
        out.config["plan_style"] = plan_style
    if candidates != "fixed":  # likewise
        out.config["candidates"] = "{}-{}".format(*VARIED_CANDIDATES)
    trajectories = []
    for i in range(n):
        rng = random.Random(f"umi:{seed}:{i}")
        kind = rng.choices(list(mix), weights=list(mix.values()))[0]
        calls = plan_calls(pool, kind, rng)
        if calls is None:
            out.reject(f"{kind}: the tools drawn cannot make one")
            continue
        by_name = {c.name: pool.by_name[c.name] for c in calls}
        query = write_query(calls, by_name, rng)
        if check_instance(query, calls, by_name):
            out.reject("instance check failed")
            continue
        if candidates == "fixed":  # the draws in their first order, so old datasets reproduce
            shown = pool.candidates(query, list(by_name), rng)
            give_up = rng.random() < p_give_up
        else:
            give_up = rng.random() < p_give_up
            k = max(rng.randint(*VARIED_CANDIDATES), len(by_name))
            # a give-up draws one tool more and drops the missing one below: k shown all the same
            shown = pool.candidates(query, list(by_name), rng, k + give_up)
        if give_up:
            missing = pool.by_name[calls[0].name]
            shown = [t for t in shown if t.name != missing.name]
            task = give_up_task(f"umi-{seed}-{i}", query, missing, shown)
        else:
            task = task_from_calls(f"umi-{seed}-{i}", query, calls, shown, rng, plan_style)
        traj = record_trajectory(task, shown, seed)
        if traj is None:
            out.reject("episode did not end as planned")
            continue
        trajectories.append(traj)
    return trajectories, out


def role_samples(trajectories: Sequence[Any], formats: Sequence[str] = ROLE_FORMATS) -> list:
    """Planner, caller, summarizer and single-LLM samples of the trajectories (or any of
    SAMPLE_FORMATS)."""
    from dataclasses import replace

    from toollearn.datagen.samples import to_training_sample

    out = []
    for traj in trajectories:
        for fmt in formats:
            for s in to_training_sample(traj, fmt):
                meta = {**s.metadata, "kind": fmt, "query": traj.instruction,
                        "tools": [t.name for t in traj.tools]}  # fmt: skip
                if traj.metadata.get("queries"):  # the requests a joined query was made of
                    meta["queries"] = [traj.instruction, *traj.metadata["queries"]]
                out.append(replace(s, metadata=meta))
    return out


def step_count(trajectories: Sequence[Any]) -> int:
    """Planner steps of the trajectories (what the stepwise benchmark scores)."""
    return sum(1 for t in trajectories for m in t.conversations if m.role == "assistant")


def dev_trajectories(
    trajectories: Sequence[Any], trained: set[str], n: int, seed: int = 1
) -> tuple[list[Any], dict[str, int]]:
    """A dev set: `n` of the (training-pool) trajectories whose query no training run drew
    (`trained`, e.g. `evaluation.calibration.trained_queries` of each stage), chosen with the
    seed; and the counts of what was left out. Its tools are training tools: a seen-tool dev
    set, for choosing settings that the unseen-tool test set then measures once."""
    free = [t for t in trajectories if t.instruction not in trained]
    picked = random.Random(f"{seed}:umi-dev").sample(free, min(n, len(free)))
    counts = {"pool_trajectories": len(trajectories), "left_out": len(trajectories) - len(free),
              "picked": len(picked), "steps": step_count(picked)}  # fmt: skip
    return picked, counts
