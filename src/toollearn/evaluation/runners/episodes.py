"""alpha-UMi end to end: an agent runs each held-out trajectory's query by itself.

The stepwise benchmark gives every step the gold history, so a planner is only asked for the
next step of an episode that has gone right so far (and, for a "counted" planner, it can copy
the step count from gold turns). Here the agent plans, calls and concludes on its own, the
tools simulated (`Environment.simulated`, seeded). An episode
succeeds when it ends as the gold one did (concluded, or gave up) after calling the gold
tools in the gold order. Arguments are not compared (a nested argument takes a simulated
output); `stepwise` scores them. Each record keeps the agent's trace (prompts left out), and
the scores are re-read from it. The released trajectory format keeps no response fields, so a
simulated tool answers `{"result": <a made-up value>}`, not the gold observation's fields.

The agent is alpha-UMi's multi-role agent, or (`agent="tool-calls"`) the general agent that
`toollearn run` starts by default (`agents.tool_calls`: one model, call lists, results fed
back, behind the shipped call gate unless `call_gate=False`). That agent has no give-up move:
its closing reply ends every episode as a conclusion, so a gold give-up counts as ended right
when it replies after the gold calls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.formats.answers import umi

MAX_STEPS = 8  # planner turns per episode: the longest gold episode has 5 calls + conclusion
AGENTS = ("multi-role", "tool-calls")


@dataclass(frozen=True)
class EpisodeOptions:
    """How the agent runs (recorded in the run config): grammars on the planner's role choice
    and the caller's action (as `stepwise` decodes; for the general agent, on its call lists),
    the step limit (model turns for the general agent), the tools' seed, the planner's stop
    gate (agents.stop_gate; None: greedy), which agent, whether the general agent asks the
    shipped call gate first, whether that gate's sure-call threshold makes it call, and
    whether a call list that repeats a call is asked again without the repeated tools, and
    the call plan it follows (`agents.clause_plan`; None: none) and the plan's distinct margin
    (`ClausePlanner(distinct_margin=)`; None: the planner's default, negative: off) and its
    unfit gap (`unfit_gap`, the same way); for the multi-role agent, the rule by which that
    plan re-decides its planner's role (`agents.plan_gate`; None: none)."""

    constrained: bool = True
    max_steps: int = MAX_STEPS
    seed: int = 0
    stop_threshold: float | None = None
    agent: str = "multi-role"
    call_gate: bool = True
    sure_call: bool = True
    ask_again_on_repeat: bool = False
    plan: str | None = None
    plan_margin: float | None = None
    plan_unfit_gap: float | None = None
    plan_gate: str | None = None

    def __post_init__(self) -> None:
        if self.agent not in AGENTS:
            raise ValueError(f"unknown agent {self.agent!r}: one of {', '.join(AGENTS)}")


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


def plan_settings(opts: EpisodeOptions) -> dict[str, float]:
    """The plan's distinct margin and unfit gap in force ({} without a plan or plan gate),
    each only when on: a run's config records them so, and runs made before them resume as
    they were."""
    from toollearn.agents.clause_plan import plan_settings as settings

    if not (opts.plan or opts.plan_gate):
        return {}
    names = {"distinct_margin": "plan_margin", "unfit_gap": "plan_unfit_gap"}
    return {names[k]: v for k, v in settings(opts.plan_margin, opts.plan_unfit_gap).items()}


def tool_calls_agent(engine: Any, opts: EpisodeOptions) -> Any:
    """The general agent as `toollearn run` builds it, but for the call plan, followed only when
    asked (`--plan`: runs made before it resume as they were); each episode simulates its own
    tools."""
    from toollearn.agents.tool_calls import ToolCallsAgent

    options = {
        "constrained": opts.constrained,
        "max_steps": opts.max_steps,
        "seed": opts.seed,
        "ask_again_on_repeat": opts.ask_again_on_repeat,
        "plan": opts.plan,
    }
    if opts.plan:
        from toollearn.agents.clause_plan import ClausePlanner

        options["planner"] = ClausePlanner.with_settings(opts.plan_margin, opts.plan_unfit_gap)
    if opts.call_gate:
        return ToolCallsAgent.gated(engine, sure_call=opts.sure_call, **options)
    return ToolCallsAgent(engine, **options)


def _call_planner(opts: EpisodeOptions) -> Any:
    """The multi-role agent's call plan under its plan gate (None without one)."""
    if opts.plan_gate is None:
        return None
    from toollearn.agents.clause_plan import ClausePlanner

    return ClausePlanner.with_settings(opts.plan_margin, opts.plan_unfit_gap)


def run_episode(trajectory: Any, roles: dict[str, Any], opts: EpisodeOptions,
                agent: Any = None) -> dict[str, Any]:  # fmt: skip
    """One episode on the trajectory's query and tools: `agent` (one whose environment is
    simulated per episode, as the general agent's is), else a multi-role agent of `roles`."""
    from toollearn.agents.multi_role import MultiRoleAgent
    from toollearn.envs.environment import Environment

    if agent is None:
        env = Environment.simulated(list(trajectory.tools), seed=opts.seed)
        agent = MultiRoleAgent(roles["planner"], roles["caller"], roles["summarizer"], env,
                               max_steps=opts.max_steps, constrained_caller=opts.constrained,
                               constrained_plan=opts.constrained, seed=opts.seed,
                               stop_threshold=opts.stop_threshold, plan_gate=opts.plan_gate,
                               call_planner=_call_planner(opts))  # fmt: skip
    trace = agent.run(trajectory.instruction, list(trajectory.tools), example_id=trajectory.id)
    steps = [{k: v for k, v in s.to_dict().items() if k != "prompt"} for s in trace.steps]
    return {"steps": steps, "answer": trace.answer, "meta": trace.meta}


def run_episodes(trajectories: Sequence[Any], roles: dict[str, Any], writer: Any,
                 opts: EpisodeOptions = EpisodeOptions()) -> list[dict[str, Any]]:  # fmt: skip
    """Run every trajectory not yet in the writer's file; returns the records of all of them.
    `roles`: planner/caller/summarizer engines, or {"agent": engine} for the general agent."""
    from toollearn.evaluation.runners.base import progress

    done = writer.done_ids()
    todo = [t for t in trajectories if t.id not in done]
    agent = tool_calls_agent(roles["agent"], opts) if opts.agent == "tool-calls" and todo else None
    for traj in progress(todo, total=len(todo), desc="episodes"):
        trace = run_episode(traj, roles, opts, agent)
        writer.append({"id": traj.id, "gold": gold_episode(traj), "trace": trace,
                       "seconds": trace["meta"].get("seconds")})  # fmt: skip
    wanted = {t.id for t in trajectories}
    return [r for r in writer.records() if r["id"] in wanted]


def episode_output(record: dict[str, Any]) -> dict[str, Any]:
    """What the agent did, read from the record's trace: its outcome, how that ends the
    episode (the general agent's closing reply, after calls or at once, is a conclusion), the
    tools it called, and whether it can give up."""
    trace = record["trace"]
    calls = [c["name"] for s in trace["steps"] if s["kind"] == "call" for c in s["calls"]]
    outcome = trace["meta"].get("outcome")
    general = trace["meta"].get("agent") == "tool-calls"
    ended = "concluded" if general and outcome in ("answered", "no_call") else outcome
    return {"outcome": outcome, "ended": ended, "calls": calls, "can_give_up": not general}


def score_records(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Episode success, its parts, and where the wrong episodes went (rates in [0, 1])."""
    n = len(records)
    counts: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    for record in records:
        gold, pred = record["gold"], episode_output(record)
        want = "give_up" if gold["give_up"] and pred["can_give_up"] else "concluded"
        outcomes[pred["outcome"] or "none"] += 1
        ended_right = pred["ended"] == want
        tools_right = pred["calls"] == gold["calls"]
        counts["success"] += ended_right and tools_right
        counts["ended_right"] += ended_right
        counts["tools_right"] += tools_right
        if pred["ended"] == "concluded" and not gold["give_up"]:
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
