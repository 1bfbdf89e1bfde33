"""alpha-UMi's static step-level evaluation on trajectories in its conversation format.

Every planner turn of a gold trajectory is one step. The model sees the GOLD history up to
that turn (teacher forcing) and decodes greedily:
- multi-role: the planner predicts the next role; on gold call steps the caller, given the
  gold thought, predicts the call; on gold finish steps the summarizer, given the gold
  history, predicts the answer (each role is judged on its own sub-task).
- single (the single-LLM baseline): one ReAct turn predicts the action and its call or
  Finish answer at once.
Constrained (the default), each role decodes as the agents do: the planner's role choice and
the caller's action under the format's grammars. Histories are cut from the left to fit the
context. Records keep every raw model text; scores re-read them.
Scores: evaluation.metrics.stepwise (Plan ACC, Act EM, Hallucination, Arg F1, Rouge-L); a
run may re-decide the planner's choice by the stop gate (`stop_threshold`, agents.stop_gate)
or by the query's call plan (`plan_gate`, agents.plan_gate), scored beside greedy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from toollearn.core.errors import FormatError, ToollearnError
from toollearn.core.types import Message
from toollearn.decoding.umi import action_constraint, next_constraint
from toollearn.evaluation.metrics.stepwise_io import step_output
from toollearn.formats.answers import umi

TOKENS = {"planner": 128, "caller": 96, "summarizer": 128, "single": 160}
ROLES = ("planner", "caller", "summarizer")
NEXT_TO_ACTION = {"caller": "call", "conclusion": "finish", "give up": "give_up"}
ACTION_TO_NEXT = {a: n for n, a in NEXT_TO_ACTION.items()}
MODES = ("multi-role", "single")


@dataclass(frozen=True)
class StepCase:
    """One evaluation step: gold history before the planner turn, gold thought and target."""

    id: str
    trajectory: Any
    index: int  # position of the planner turn in the conversation
    thought: str
    target: Any  # metrics.stepwise.StepTarget

    @property
    def history(self) -> list[Message]:
        return list(self.trajectory.conversations[: self.index])


def trajectory_file(path: str | Path | None) -> Path:
    """A run's trajectory file: the given path, or the shipped demo trajectories for None,
    "builtin:demo", or a stored path to them that does not exist on this machine."""
    from toollearn.agents.oracle import DEMO_TRAJECTORIES

    if path is None or str(path) == "builtin:demo":
        return DEMO_TRAJECTORIES
    p = Path(path)
    if not p.exists() and p.name == DEMO_TRAJECTORIES.name:
        return DEMO_TRAJECTORIES
    return p


def step_cases(trajectories: Sequence[Any]) -> tuple[list[StepCase], int]:
    """All planner steps of the trajectories, and how many unreadable gold turns were skipped."""
    from toollearn.evaluation.metrics.stepwise import StepTarget

    cases, skipped = [], 0
    for traj in trajectories:
        turns = traj.conversations
        names = tuple(t.name for t in traj.tools)
        for i, turn in enumerate(turns):
            if turn.role != "assistant":
                continue
            try:
                plan = umi.parse_plan(turn.content)
                nxt = turns[i + 1] if i + 1 < len(turns) else None
                action = NEXT_TO_ACTION[plan.next]
                if action == "call":
                    if nxt is None or nxt.role != "caller":
                        raise FormatError("a 'Next: caller' turn not followed by a caller turn")
                    call = umi.parse_action(nxt.content)
                    target = StepTarget("call", call.name, dict(call.arguments), candidates=names)
                else:
                    answer = nxt.content if nxt is not None and nxt.role == "conclusion" else ""
                    target = StepTarget(action, answer=answer, candidates=names)
            except FormatError:
                skipped += 1
                continue
            cases.append(StepCase(f"{traj.id}:{i}", traj, i, plan.thought, target))
    return cases, skipped


@dataclass(frozen=True)
class StepwiseOptions:
    """How each role is decoded (recorded in the run config).

    constrained: the planner's role choice and the caller's action under the format's grammars
    (decoding.umi), the single-LLM action under its grammar; context: the model's context in
    tokens, histories are cut from the left to fit it with the role's output budget. roles:
    the roles asked in multi-role mode (the planner alone measures Plan ACC; the other
    metrics are then None); stop_scores: each record keeps `conclusion_logprob`, the
    planner's log p(conclusion thought), which `score_records(stop_threshold=...)` gates on.
    """

    constrained: bool = True
    context: int = 4096
    tokens: tuple[tuple[str, int], ...] = tuple(TOKENS.items())
    roles: tuple[str, ...] = ROLES  # multi-role: which roles are asked (the planner always)
    stop_scores: bool = False  # record the planner's conclusion log-probability (stop_gate)

    def limit(self, role: str) -> int:
        return dict(self.tokens)[role]


def _ask(
    engine: Any, prompt: Any, max_tokens: int, stop: Sequence[str] = (), constraint: Any = None
) -> tuple[str, float]:
    """Greedy completion of one chat prompt (a user text, or messages); an engine failure reads
    as empty text (a miss), with the reason kept in the text as `<engine error: ...>`."""
    sent = [Message("user", prompt)] if isinstance(prompt, str) else list(prompt)
    try:
        comp = engine.complete([sent], max_tokens=max_tokens, stop=stop, constraint=constraint)[0]
    except (ToollearnError, RuntimeError, ValueError, OSError) as exc:
        return f"<engine error: {exc}>", 0.0
    if comp.error:
        return f"<engine error: {comp.error}>", comp.seconds
    return comp.text or "", comp.seconds


def fitted_prompt(
    engine: Any, build: Any, history: Sequence[Message], opts: StepwiseOptions, role: str
) -> tuple[str, int]:
    """The role's prompt with the history cut from the left until prompt + output fit the
    context (tokens counted by the engine when it can, else about 3 characters a token)."""
    count = getattr(engine, "count_tokens", None)
    budget = opts.context - opts.limit(role)

    def fits(prompt: str) -> bool:
        n = count([Message("user", prompt)]) if count else len(prompt) // 3
        return n <= budget

    kept, dropped = umi.fit_history(build, history, fits)
    return build(kept), dropped


def predict_multi_role(
    case: StepCase, roles: dict[str, Any], opts: StepwiseOptions = StepwiseOptions()
) -> tuple[dict[str, str], float, int, dict[str, Any]]:
    """(raw texts, seconds, history turns dropped, the planner's stop score if asked) for one
    step with planner/caller/summarizer engines; the caller is asked on gold call steps, the
    summarizer on gold finish steps (each when in opts.roles)."""
    tools, history = list(case.trajectory.tools), case.history
    texts: dict[str, str] = {}
    build = lambda h: umi.planner_prompt(tools, h)  # noqa: E731
    prompt, dropped = fitted_prompt(roles["planner"], build, history, opts, "planner")
    texts["planner"], secs = _plan(roles["planner"], prompt, opts)
    extra = _stop_score(roles["planner"], prompt) if opts.stop_scores else {}
    if case.target.action == "call" and "caller" in opts.roles:
        build = lambda h: umi.caller_prompt(tools, h, case.thought)  # noqa: E731
        prompt, _ = fitted_prompt(roles["caller"], build, history, opts, "caller")
        grammar = action_constraint(tools) if opts.constrained and tools else None
        texts["caller"], s = _ask(roles["caller"], prompt, opts.limit("caller"),
                                  ["\nObservation"], grammar)  # fmt: skip
        secs += s
    elif case.target.action == "finish" and "summarizer" in opts.roles:
        gold_turn = case.trajectory.conversations[case.index]
        build = lambda h: umi.summarizer_prompt([*h, gold_turn])  # noqa: E731
        prompt, _ = fitted_prompt(roles["summarizer"], build, history, opts, "summarizer")
        texts["summarizer"], s = _ask(roles["summarizer"], prompt, opts.limit("summarizer"))
        secs += s
    return texts, secs, dropped, extra


def _stop_score(engine: Any, prompt: str) -> dict[str, Any]:
    """{"conclusion_logprob": the planner's log p(conclusion thought)}, or None with the
    reason it could not be computed (the gate then keeps the greedy choice)."""
    from toollearn.agents.stop_gate import conclusion_logprob

    try:
        return {"conclusion_logprob": round(conclusion_logprob(engine, prompt), 6)}
    except (ToollearnError, RuntimeError, ValueError, OSError) as exc:
        return {"conclusion_logprob": None, "conclusion_error": str(exc)}


def _plan(engine: Any, prompt: str, opts: StepwiseOptions) -> tuple[str, float]:
    """A planner turn: free, or the thought free up to `Next:` then the role under a grammar
    (the turn as the released format writes it)."""
    if not opts.constrained:
        return _ask(engine, prompt, opts.limit("planner"))
    thought, secs = _ask(engine, prompt, opts.limit("planner"), [umi.NEXT_MARK, "Next :"])
    if thought.startswith("<engine error"):
        return thought, secs
    head = umi.plan_prefill(thought)
    turn = [Message("user", prompt), Message("assistant", head)]
    choice, s = _ask(engine, turn, 8, constraint=next_constraint())
    return head + choice, secs + s


def predict_single(
    case: StepCase, engine: Any, opts: StepwiseOptions = StepwiseOptions()
) -> tuple[dict[str, str], float, int]:
    """(raw texts, seconds, history turns dropped) for one step of the single-LLM baseline."""
    tools = list(case.trajectory.tools)
    build = lambda h: umi.react_prompt(tools, umi.single_history(h))  # noqa: E731
    prompt, dropped = fitted_prompt(engine, build, case.history, opts, "single")
    if not opts.constrained:
        text, secs = _ask(engine, prompt, opts.limit("single"), ["\nObservation"])
        return {"single": text}, secs, dropped
    thought, secs = _ask(engine, prompt, opts.limit("single"), ["Action:", "\nObservation"])
    if thought.startswith("<engine error"):
        return {"single": thought}, secs, dropped
    head = umi.react_head(thought)
    turn = [Message("user", prompt), Message("assistant", head)]
    action, s = _ask(engine, turn, opts.limit("single"),
                     constraint=action_constraint(tools, finish=True))  # fmt: skip
    return {"single": head + action}, secs + s, dropped


def run_stepwise(
    cases: Sequence[StepCase],
    roles: dict[str, Any],
    mode: str,
    writer: Any,
    opts: StepwiseOptions = StepwiseOptions(),
) -> list:
    """Predict every step not yet in the writer's file; returns the records of `cases`.
    Each record keeps the raw texts of every model call; scores re-read them."""
    from toollearn.evaluation.runners.base import progress

    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    done = writer.done_ids()
    todo = [c for c in cases if c.id not in done]
    for case in progress(todo, total=len(todo), desc=f"stepwise/{mode}"):
        extra: dict[str, Any] = {}
        if mode == "single":
            texts, secs, dropped = predict_single(case, roles["planner"], opts)
        else:
            texts, secs, dropped, extra = predict_multi_role(case, roles, opts)
        out = step_output({"texts": texts})
        writer.append({"id": case.id, "trajectory": case.trajectory.id, "turn": case.index,
                       "gold": asdict(case.target), "pred": asdict(out), "texts": texts,
                       **extra, "history_dropped": dropped,
                       "seconds": round(secs, 3)})  # fmt: skip
    wanted = {c.id for c in cases}
    return [r for r in writer.records() if r["id"] in wanted]


def score_records(
    records: Sequence[dict[str, Any]],
    stop_threshold: float | None = None,
    roles: Sequence[str] = ROLES,
    plan_gate: str | None = None,
    plans: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Stepwise scores of the records: gold as stored, predictions re-read from the raw texts.
    stop_threshold: the planner's caller/conclusion choice is the stop gate's
    (agents.stop_gate, on each record's `conclusion_logprob`); `stop_gate` then gives greedy's
    Plan ACC beside it. plan_gate: the planner's choice re-decided by that rule of
    agents.plan_gate on each step's `plans[id]` (`step_plans`); `plan_gate` then gives
    greedy's Plan ACC beside it. The metrics of multi-role roles not asked (`roles`) are None."""
    from toollearn.evaluation.metrics.stepwise import StepTarget, stepwise_scores

    golds = [StepTarget(**{**r["gold"], "candidates": tuple(r["gold"]["candidates"])})
             for r in records]  # fmt: skip
    greedy = [step_output(r) for r in records]
    preds = greedy if stop_threshold is None else gated_outputs(records, greedy, stop_threshold)
    if plan_gate is not None:
        preds = plan_gated_outputs(records, preds, plan_gate, plans or {})
    scores = stepwise_scores(preds, golds)
    gated = stop_threshold is not None or plan_gate is not None
    base = stepwise_scores(greedy, golds) if gated else {}
    changed = sum(p.action != g.action for p, g in zip(preds, greedy))
    if stop_threshold is not None:
        scores["stop_gate"] = {
            "threshold": stop_threshold, "greedy_plan_acc": base["plan_acc"],
            "greedy_plans": base["plans"], "changed": changed,
            "unscored": sum(r.get("conclusion_logprob") is None for r in records),
        }  # fmt: skip
    if plan_gate is not None:
        scores["plan_gate"] = {
            "rule": plan_gate, "greedy_plan_acc": base["plan_acc"],
            "greedy_plans": base["plans"], "changed": changed,
            "unplanned": sum(r["id"] not in (plans or {}) for r in records),
        }  # fmt: skip
    unasked = {"caller": ("act_em", "arg_f1", "hallucination"), "summarizer": ("rouge_l",)}
    for role, keys in unasked.items():
        if role not in roles:
            scores.update(dict.fromkeys(keys))
    secs = sum(r.get("seconds") or 0 for r in records)
    scores["run"] = {"generation_seconds": round(secs, 1),
                     "unreadable_plans": sum(p.action is None for p in greedy)}  # fmt: skip
    return scores


def regated(records: Sequence[dict[str, Any]], preds: Sequence[Any], decide: Any) -> list[Any]:
    """The step outputs with the planner's choice re-decided: `decide(record, next role)`
    gives the role (caller / conclusion / give up) a gate chooses."""
    from dataclasses import replace

    out = []
    for rec, pred in zip(records, preds):
        nxt = decide(rec, ACTION_TO_NEXT.get(pred.action))
        out.append(replace(pred, action=NEXT_TO_ACTION.get(nxt, pred.action)))
    return out


def gated_outputs(
    records: Sequence[dict[str, Any]], greedy: Sequence[Any], threshold: float
) -> list[Any]:
    """The step outputs with the planner's choice re-decided by the stop gate."""
    from toollearn.agents.stop_gate import gated_next

    return regated(
        records, greedy, lambda rec, nxt: gated_next(nxt, rec.get("conclusion_logprob"), threshold)
    )


def plan_gate_config(rule: str, margin: float | None = None, gap: float | None = None) -> dict:
    """A run config's `plan_gate`: the rule and the call plan's settings in force (each given,
    or the planner's default for None; recorded only when on)."""
    from toollearn.agents.clause_plan import plan_settings

    return {"rule": rule, **plan_settings(margin, gap)}


def plan_gate_plans(cases: Sequence[StepCase], gate: dict[str, Any] | None) -> dict | None:
    """The steps' call plans under a run config's `plan_gate` (None without one)."""
    if not gate:
        return None
    from toollearn.agents.clause_plan import ClausePlanner

    planner = ClausePlanner(distinct_margin=gate.get("distinct_margin"),
                            unfit_gap=gate.get("unfit_gap"))  # fmt: skip
    return step_plans(cases, planner)


def step_plans(cases: Sequence[StepCase], planner: Any) -> dict[str, Any]:
    """{step id: agents.plan_gate.StepPlan}: each step's call plan (`planner`, a
    clause_plan.ClausePlanner, on its trajectory's instruction and tools) after the calls of
    its gold history."""
    from toollearn.agents.plan_gate import step_plan

    plans: dict[str, Any] = {}
    out = {}
    for case in cases:
        traj = case.trajectory
        if traj.id not in plans:
            plans[traj.id] = planner.plan(traj.instruction, list(traj.tools))
        out[case.id] = step_plan(plans[traj.id], case.history)
    return out


def plan_gated_outputs(
    records: Sequence[dict[str, Any]], preds: Sequence[Any], rule: str, plans: dict[str, Any]
) -> list[Any]:
    """The step outputs with the planner's choice re-decided by the call plan's rule."""
    from toollearn.agents.plan_gate import gated_next

    return regated(records, preds, lambda rec, nxt: gated_next(nxt, plans.get(rec["id"]), rule))


def gate_steps(records: Sequence[dict[str, Any]]) -> list[Any]:
    """The records as stop_gate.GateStep (greedy choice, conclusion score, gold choice), for
    `stop_gate.threshold_sweep` on held-out steps."""
    from toollearn.agents.stop_gate import GateStep

    return [GateStep(ACTION_TO_NEXT.get(step_output(r).action), r.get("conclusion_logprob"),
                     ACTION_TO_NEXT[r["gold"]["action"]]) for r in records]  # fmt: skip


PAPER = {  # ToolBench static evaluation, Table 1, 7B: Plan ACC, Act EM, Hallu, Arg F1, R-L
    "alpha-UMi 7B (in-domain)": (88.92, 58.94, 0.57, 52.24, 43.17),
    "alpha-UMi 7B (out-of-domain)": (89.72, 60.47, 0.45, 53.60, 46.26),
    "single-LLM 7B (out-of-domain)": (84.61, 56.54, 2.26, 50.09, 47.99),
    "ChatGPT 0-shot (out-of-domain)": (81.62, 54.67, 8.19, 40.08, 22.85),
}
COLUMNS = ["system", "steps", "plan_acc", "act_em", "hallucination", "arg_f1", "rouge_l"]


def plan_errors(scores: dict[str, Any]) -> str:
    """The wrong plans, gold -> predicted, most frequent first (from scores["plans"])."""
    wrong = [(n, f"{gold} -> {pred}") for gold, row in scores.get("plans", {}).items()
             for pred, n in row.items() if pred != gold and n]  # fmt: skip
    shown = ", ".join(f"{what} {n}" for n, what in sorted(wrong, key=lambda w: -w[0]))
    return f"wrong plans (gold -> predicted): {shown or 'none'}"


def summary_rows(scores: dict[str, Any], label: str) -> list[dict[str, Any]]:
    """Our row (percent) then the paper's rows (on ToolBench, not on this file)."""
    pct = lambda x: None if x is None else round(100 * x, 2)  # noqa: E731
    rows = [{"system": label, "steps": scores["steps"], **{c: pct(scores[c]) for c in COLUMNS[2:]}}]
    for system, vals in PAPER.items():
        rows.append({"system": f"paper (ToolBench): {system}", **dict(zip(COLUMNS[2:], vals))})
    return rows
