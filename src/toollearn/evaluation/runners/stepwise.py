"""alpha-UMi's static step-level evaluation on trajectories in its conversation format.

Every planner turn of a gold trajectory is one step. The model sees the GOLD history up to
that turn (teacher forcing) and decodes greedily:
- multi-role: the planner predicts the next role; on gold call steps the caller, given the
  gold thought, predicts the call; on gold finish steps the summarizer, given the gold
  history, predicts the answer (each role is judged on its own sub-task).
- single (the single-LLM baseline): one ReAct turn predicts the action and its call or
  Finish answer at once.
Scores: evaluation.metrics.stepwise (Plan ACC, Act EM, Hallucination, Arg F1, Rouge-L).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from toollearn.core.errors import FormatError, ToollearnError
from toollearn.core.types import Message
from toollearn.formats.answers import umi

TOKENS = {"planner": 128, "caller": 96, "summarizer": 128, "single": 160}
NEXT_TO_ACTION = {"caller": "call", "conclusion": "finish", "give up": "give_up"}
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


def _single_history(history: Sequence[Message]) -> list[Message]:
    """Gold multi-role turns as single-LLM turns: planner thought + caller action merged."""
    out: list[Message] = []
    for m in history:
        if m.role == "caller" and out and out[-1].role == "assistant":
            out[-1] = Message("assistant", f"{out[-1].content}\n{m.content}")
        elif m.role == "assistant":
            try:
                out.append(Message("assistant", umi.parse_plan(m.content).thought))
            except FormatError:
                out.append(m)
        else:
            out.append(m)
    return out


def _ask(engine: Any, prompt: str, max_tokens: int, stop: Sequence[str] = ()) -> tuple[str, float]:
    """Greedy completion of one chat prompt; an engine failure reads as empty text (a miss),
    with the reason kept in the text as `<engine error: ...>` so the record shows it."""
    try:
        comp = engine.complete([[Message("user", prompt)]], max_tokens=max_tokens, stop=stop)[0]
    except (ToollearnError, RuntimeError, ValueError, OSError) as exc:
        return f"<engine error: {exc}>", 0.0
    if comp.error:
        return f"<engine error: {comp.error}>", comp.seconds
    return comp.text or "", comp.seconds


def predict_multi_role(
    case: StepCase, roles: dict[str, Any], tokens: dict[str, int] = TOKENS
) -> tuple[Any, dict[str, str], float]:
    """(StepOutput, raw texts, seconds) for one step with planner/caller/summarizer engines."""
    from toollearn.evaluation.metrics.stepwise import StepOutput

    tools, history = list(case.trajectory.tools), case.history
    texts: dict[str, str] = {}
    texts["planner"], secs = _ask(
        roles["planner"], umi.planner_prompt(tools, history), tokens["planner"]
    )
    try:
        action: str | None = NEXT_TO_ACTION[umi.parse_plan(texts["planner"]).next]
    except FormatError:
        action = None
    api = args = answer = None
    if case.target.action == "call":
        prompt = umi.caller_prompt(tools, history, case.thought)
        texts["caller"], s = _ask(roles["caller"], prompt, tokens["caller"], ["\nObservation"])
        secs += s
        try:
            call = umi.parse_action(texts["caller"])
            api, args = call.name, dict(call.arguments)
        except FormatError:
            pass
    elif case.target.action == "finish":
        gold_turn = case.trajectory.conversations[case.index]
        prompt = umi.summarizer_prompt([*history, gold_turn])
        texts["summarizer"], s = _ask(roles["summarizer"], prompt, tokens["summarizer"])
        answer, secs = texts["summarizer"], secs + s
    return StepOutput(action, api, args, answer), texts, secs


def predict_single(
    case: StepCase, engine: Any, tokens: dict[str, int] = TOKENS
) -> tuple[Any, dict[str, str], float]:
    """(StepOutput, raw texts, seconds) for one step of the single-LLM baseline."""
    from toollearn.evaluation.metrics.stepwise import StepOutput

    prompt = umi.react_prompt(list(case.trajectory.tools), _single_history(case.history))
    text, secs = _ask(engine, prompt, tokens["single"], ["\nObservation"])
    try:
        turn = umi.parse_react(text)
    except FormatError:
        return StepOutput(None), {"single": text}, secs
    if turn.call is not None:
        return StepOutput("call", turn.call.name, dict(turn.call.arguments)), {"single": text}, secs
    action = "finish" if turn.finish == "give_answer" else "give_up"
    return StepOutput(action, answer=turn.answer), {"single": text}, secs


def run_stepwise(
    cases: Sequence[StepCase],
    roles: dict[str, Any],
    mode: str,
    writer: Any,
    tokens: dict[str, int] | None = None,
) -> list:
    """Predict every step not yet in the writer's file; returns the records of `cases`.
    tokens: per-role generation limits (planner, caller, summarizer, single)."""
    limits = {**TOKENS, **(tokens or {})}
    from toollearn.evaluation.runners.base import progress

    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    done = writer.done_ids()
    todo = [c for c in cases if c.id not in done]
    for case in progress(todo, total=len(todo), desc=f"stepwise/{mode}"):
        if mode == "single":
            out, texts, secs = predict_single(case, roles["planner"], limits)
        else:
            out, texts, secs = predict_multi_role(case, roles, limits)
        writer.append({"id": case.id, "trajectory": case.trajectory.id, "turn": case.index,
                       "gold": asdict(case.target), "pred": asdict(out), "texts": texts,
                       "seconds": round(secs, 3)})  # fmt: skip
    wanted = {c.id for c in cases}
    return [r for r in writer.records() if r["id"] in wanted]


def score_records(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Stepwise scores of the records (gold and prediction are stored in each)."""
    from toollearn.evaluation.metrics.stepwise import StepOutput, StepTarget, stepwise_scores

    golds = [StepTarget(**{**r["gold"], "candidates": tuple(r["gold"]["candidates"])})
             for r in records]  # fmt: skip
    preds = [StepOutput(**r["pred"]) for r in records]
    scores = stepwise_scores(preds, golds)
    secs = sum(r.get("seconds") or 0 for r in records)
    scores["run"] = {"generation_seconds": round(secs, 1),
                     "unreadable_plans": sum(p.action is None for p in preds)}  # fmt: skip
    return scores


PAPER = {  # ToolBench static evaluation, Table 1, 7B: Plan ACC, Act EM, Hallu, Arg F1, R-L
    "alpha-UMi 7B (in-domain)": (88.92, 58.94, 0.57, 52.24, 43.17),
    "alpha-UMi 7B (out-of-domain)": (89.72, 60.47, 0.45, 53.60, 46.26),
    "single-LLM 7B (out-of-domain)": (84.61, 56.54, 2.26, 50.09, 47.99),
    "ChatGPT 0-shot (out-of-domain)": (81.62, 54.67, 8.19, 40.08, 22.85),
}
COLUMNS = ["system", "steps", "plan_acc", "act_em", "hallucination", "arg_f1", "rouge_l"]


def summary_rows(scores: dict[str, Any], label: str) -> list[dict[str, Any]]:
    """Our row (percent) then the paper's rows (on ToolBench, not on this file)."""
    pct = lambda x: None if x is None else round(100 * x, 2)  # noqa: E731
    rows = [{"system": label, "steps": scores["steps"], **{c: pct(scores[c]) for c in COLUMNS[2:]}}]
    for system, vals in PAPER.items():
        rows.append({"system": f"paper (ToolBench): {system}", **dict(zip(COLUMNS[2:], vals))})
    return rows
