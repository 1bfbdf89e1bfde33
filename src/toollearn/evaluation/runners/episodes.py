"""alpha-UMi end to end: the multi-role agent runs each held-out trajectory's query by itself.

The stepwise benchmark gives every step the gold history, so a planner is only asked for the
next step of an episode that has gone right so far (and, for a "counted" planner, it can copy
the step count from gold turns). Here the agent plans, calls and concludes on its own, the
tools simulated (`Environment.simulated`, seeded). An episode
succeeds when it ends as the gold one did (concluded, or gave up) after calling the gold
tools in the gold order. Arguments are not compared (a nested argument takes a simulated
output); `stepwise` scores them. Each record keeps the agent's trace (prompts left out), and
the scores are re-read from it. The released trajectory format keeps no response fields, so a
simulated tool answers `{"result": <a made-up value>}`, not the gold observation's fields.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.formats.answers import umi

MAX_STEPS = 8  # planner turns per episode: the longest gold episode has 5 calls + conclusion


@dataclass(frozen=True)
class EpisodeOptions:
    """How the agent runs (recorded in the run config): grammars on the planner's role choice
    and the caller's action (as `stepwise` decodes), the step limit, the tools' seed and the
    planner's stop gate (agents.stop_gate; None: greedy)."""

    constrained: bool = True
    max_steps: int = MAX_STEPS
    seed: int = 0
    stop_threshold: float | None = None


def gold_episode(trajectory: Any) -> dict[str, Any]:
    """The gold tool sequence and whether the gold planner gives up."""
    calls, give_up = [], False
    for turn in trajectory.conversations:
        try:
            if turn.role == "caller":
                calls.append(umi.parse_action(turn.content).name)
            elif turn.role == "assistant":
                give_up = give_up or umi.parse_plan(turn.content).next == "give up"
        except FormatError:
            continue  # an unreadable gold turn: neither a call nor a plan
    return {"calls": calls, "give_up": give_up}


def run_episode(trajectory: Any, roles: dict[str, Any], opts: EpisodeOptions) -> dict[str, Any]:
    """One episode of the multi-role agent on the trajectory's query and tools."""
    from toollearn.agents.multi_role import MultiRoleAgent
    from toollearn.envs.environment import Environment

    env = Environment.simulated(list(trajectory.tools), seed=opts.seed)
    agent = MultiRoleAgent(roles["planner"], roles["caller"], roles["summarizer"], env,
                           max_steps=opts.max_steps, constrained_caller=opts.constrained,
                           constrained_plan=opts.constrained, seed=opts.seed,
                           stop_threshold=opts.stop_threshold)  # fmt: skip
    trace = agent.run(trajectory.instruction, list(trajectory.tools), example_id=trajectory.id)
    steps = [{k: v for k, v in s.to_dict().items() if k != "prompt"} for s in trace.steps]
    return {"steps": steps, "answer": trace.answer, "meta": trace.meta}


def run_episodes(trajectories: Sequence[Any], roles: dict[str, Any], writer: Any,
                 opts: EpisodeOptions = EpisodeOptions()) -> list[dict[str, Any]]:  # fmt: skip
    """Run every trajectory not yet in the writer's file; returns the records of all of them."""
    from toollearn.evaluation.runners.base import progress

    done = writer.done_ids()
    todo = [t for t in trajectories if t.id not in done]
    for traj in progress(todo, total=len(todo), desc="episodes"):
        trace = run_episode(traj, roles, opts)
        writer.append({"id": traj.id, "gold": gold_episode(traj), "trace": trace,
                       "seconds": trace["meta"].get("seconds")})  # fmt: skip
    wanted = {t.id for t in trajectories}
    return [r for r in writer.records() if r["id"] in wanted]


def episode_output(record: dict[str, Any]) -> dict[str, Any]:
    """What the agent did, read from the record's trace: its ending and the tools it called."""
    trace = record["trace"]
    calls = [c["name"] for s in trace["steps"] if s["kind"] == "call" for c in s["calls"]]
    return {"outcome": trace["meta"].get("outcome"), "calls": calls}


def score_records(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Episode success, its parts, and where the wrong episodes went (rates in [0, 1])."""
    n = len(records)
    counts: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    for record in records:
        gold, pred = record["gold"], episode_output(record)
        want = "give_up" if gold["give_up"] else "concluded"
        outcomes[pred["outcome"] or "none"] += 1
        ended_right = pred["outcome"] == want
        tools_right = pred["calls"] == gold["calls"]
        counts["success"] += ended_right and tools_right
        counts["ended_right"] += ended_right
        counts["tools_right"] += tools_right
        if pred["outcome"] == "concluded" and not gold["give_up"]:
            made, needed = len(pred["calls"]), len(gold["calls"])
            counts["concluded_too_early"] += made < needed
            counts["concluded_after_extra_calls"] += made > needed
        counts["gold_calls"] += len(gold["calls"])
        counts["calls_made"] += len(pred["calls"])
    rate = lambda k: counts[k] / n if n else 0.0  # noqa: E731
    return {
        "episodes": n,
        "success": rate("success"),
        "ended_right": rate("ended_right"),
        "tools_right": rate("tools_right"),
        "counts": dict(counts),
        "outcomes": dict(outcomes),
        "run": {"seconds": round(sum(r.get("seconds") or 0 for r in records), 1)},
    }


COLUMNS = ["system", "episodes", "success", "ended_right", "tools_right", "too_early", "extra"]


def summary_row(scores: dict[str, Any], label: str) -> dict[str, Any]:
    """One table row (percent; the early and extra-call endings as counts)."""
    return {"system": label, "episodes": scores["episodes"],
            **{k: round(100 * scores[k], 2) for k in ("success", "ended_right", "tools_right")},
            "too_early": scores["counts"].get("concluded_too_early", 0),
            "extra": scores["counts"].get("concluded_after_extra_calls", 0)}  # fmt: skip
