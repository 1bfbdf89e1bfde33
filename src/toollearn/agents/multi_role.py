"""The alpha-UMi multi-role agent: planner -> caller | summarizer | give up, in a loop.

Each role has its own prompt (formats.answers.umi) and its own engine: three models, one
model with three adapters, or one model for all. The loop feeds real observations back to
the planner until it concludes, gives up, repeats itself too often, fails to produce text,
or runs out of steps; each of those endings is recorded (Trace.meta["outcome"]).
Model steps carry data["umi_role"] (and the released-format text in data["umi_text"]) so a
Trace converts to alpha-UMi's trajectory format (data.trajectories.trajectory_from_trace).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from toollearn.agents.acting import ActionRunner, start_episode
from toollearn.agents.base import Recorder, engine_label
from toollearn.core.errors import FormatError, ToollearnError
from toollearn.core.types import ErrorKind, Message, Step, Tool, ToolCall, Trace
from toollearn.decoding.umi import action_constraint, next_constraint
from toollearn.engines.base import Sampling
from toollearn.envs.environment import Environment
from toollearn.envs.result import CallResult, failed
from toollearn.formats.answers import umi

DEFAULT_TOKENS = {"planner": 200, "caller": 160, "summarizer": 200}


def require_calls(n: int) -> Callable[[int], tuple[str, ...]]:
    """A next_policy: the caller until `n` calls have succeeded, then the conclusion."""

    def policy(ok_calls: int) -> tuple[str, ...]:
        return ("caller",) if ok_calls < n else ("conclusion",)

    policy.__name__ = f"require_calls({n})"
    return policy


class MultiRoleAgent:
    """alpha-UMi planner/caller/summarizer over an executable environment.

    caller/summarizer default to the planner's engine. constrained_caller: the caller's
    output is grammar-constrained to `Action: <shown tool>` + typed JSON arguments.
    constrained_plan: the planner writes its thought freely (stopping at `Next:`), then
    continues its own turn `<thought> Next: ` choosing the role from {caller, conclusion, give
    up} under a grammar (the released format, so a trained planner is served as trained);
    `next_policy`
    (successful calls so far -> allowed roles, e.g. `require_calls(2)`) narrows that set,
    and a single allowed role is recorded as forced without asking the model. fresh_tools:
    the constrained caller may only pick tools that have not succeeded yet (for tasks that
    need each tool once). max_tokens: per-role limits. plan_fallback:
    the next role when the planner writes no readable `Next:` (recorded as FORMAT).
    sampling: temperature / top-p / seed of every model call (recorded in the Trace).
    stop_threshold: the stop gate (agents.stop_gate) re-decides a constrained planner's choice
    between caller and conclusion by its log p(conclusion thought); the decision step keeps
    the score and what the planner had chosen. A gated call passes the planner's thought on.
    """

    name = "multi-role"

    def __init__(
        self,
        planner: Any,
        caller: Any = None,
        summarizer: Any = None,
        env: Environment | None = None,
        *,
        max_steps: int = 6,
        max_repeats: int = 2,
        constrained_caller: bool = False,
        constrained_plan: bool = False,
        plan_fallback: str = "caller",
        next_policy: Callable[[int], Sequence[str]] | None = None,
        fresh_tools: bool = False,
        max_tokens: dict[str, int] | None = None,
        chat: bool = True,
        seed: int = 0,
        sampling: Sampling | None = None,
        stop_threshold: float | None = None,
    ):
        self.sampling = sampling or Sampling(seed=seed)
        self.stop_threshold = stop_threshold
        self.planner, self.caller = planner, caller or planner
        self.summarizer, self.env = summarizer or planner, env
        self.max_steps, self.max_repeats = max_steps, max_repeats
        self.constrained_caller, self.constrained_plan = constrained_caller, constrained_plan
        self.plan_fallback, self.chat, self.seed = plan_fallback, chat, seed
        self.next_policy, self.fresh_tools = next_policy, fresh_tools
        self.tokens = {**DEFAULT_TOKENS, **(max_tokens or {})}

    @classmethod
    def on_adapters(
        cls,
        engine: Any,
        env: Environment | None = None,
        *,
        planner: str | None = "planner",
        caller: str | None = "caller",
        summarizer: str | None = "summarizer",
        **options: Any,
    ) -> MultiRoleAgent:
        """The three roles on one backbone, each under its own adapter of `engine` (a llama.cpp
        or transformers engine holding named adapters; None: the base model). The engine
        switches adapters per call, as GLPFT serves them."""
        views = [engine.with_adapter(name) for name in (planner, caller, summarizer)]
        return cls(*views, env, **options)

    def config(self) -> dict[str, Any]:
        return {
            "agent": self.name,
            "planner": engine_label(self.planner),
            "caller": engine_label(self.caller),
            "summarizer": engine_label(self.summarizer),
            "max_steps": self.max_steps,
            "constrained_caller": self.constrained_caller,
            "constrained_plan": self.constrained_plan,
            "next_policy": getattr(self.next_policy, "__name__", None),
            "fresh_tools": self.fresh_tools,
            "max_tokens": self.tokens,
            "stop_threshold": self.stop_threshold,
        }

    def run(
        self, query: str, tools: Sequence[Tool] | None = None, *, example_id: str = ""
    ) -> Trace:
        """One episode; see the class docstring for how it can end."""
        shown, rec, runner = start_episode(
            self.env, tools, seed=self.seed, query=query, example_id=example_id, chat=self.chat,
            sampling=self.sampling,
        )  # fmt: skip
        history = [Message("user", query)]
        for _ in range(self.max_steps):
            ok_calls = sum(1 for r in runner.seen.values() if r.ok)
            plan = self._plan(rec, shown, history, ok_calls)
            if plan is None:
                return rec.finish(None, **self.config(), outcome="planner_failed")
            if plan.next == "give up":
                return rec.finish(None, **self.config(), outcome="give_up")
            if plan.next == "conclusion":
                answer = self._conclude(rec, history)
                outcome = "concluded" if answer is not None else "summarizer_failed"
                return rec.finish(answer, **self.config(), outcome=outcome)
            result = self._call(rec, shown, history, plan.thought, runner)
            if runner.repeats >= self.max_repeats:
                detail = f"{runner.repeats} identical calls in a row"
                rec.error("agent", ErrorKind.REPEATED_CALL, detail, calls=(result.call,))
                return rec.finish(None, **self.config(), outcome="loop")
        rec.error("agent", ErrorKind.STEP_LIMIT, f"no conclusion after {self.max_steps} steps")
        return rec.finish(None, **self.config(), outcome="step_limit")

    def _plan(
        self, rec: Recorder, tools: list[Tool], history: list[Message], ok_calls: int
    ) -> umi.Plan | None:
        prompt = umi.planner_prompt(tools, history)
        if self.constrained_plan:
            return self._plan_constrained(rec, prompt, history, ok_calls)
        text = rec.model(self.planner, prompt, role="planner", kind="thought",
                         max_tokens=self.tokens["planner"])  # fmt: skip
        if text is None:
            return None
        at = len(rec.steps) - 1
        try:
            plan = umi.parse_plan(text)
        except FormatError as exc:
            rec.amend_last(error=ErrorKind.FORMAT, detail=f"{exc}; using {self.plan_fallback}")
            plan = umi.Plan(text.strip(), self.plan_fallback)
        return self._record_plan(rec, at, plan, history)

    def _plan_constrained(
        self, rec: Recorder, prompt: str, history: list[Message], ok_calls: int
    ) -> umi.Plan | None:
        thought = rec.model(self.planner, prompt, role="planner", kind="thought",
                            max_tokens=self.tokens["planner"],
                            stop=[umi.NEXT_MARK, "Next :"])  # fmt: skip
        if thought is None and rec.steps[-1].error != ErrorKind.EMPTY_OUTPUT:
            return None  # the engine failed; an empty thought is fine, the choice follows
        thought, at = thought or "", len(rec.steps) - 1
        allowed = tuple(self.next_policy(ok_calls)) if self.next_policy else umi.NEXT_OPTIONS
        if len(allowed) == 1:  # nothing to choose: recorded as forced, no model call
            return self._record_plan(rec, at, umi.Plan(thought.strip(), allowed[0]), history,
                                     forced=True)  # fmt: skip
        turn = [Message("user", prompt), Message("assistant", umi.plan_prefill(thought))]
        choice = rec.model(self.planner, turn, role="planner", kind="thought", max_tokens=8,
                           constraint=next_constraint(allowed),
                           data={"decision": "next", "allowed": list(allowed)})  # fmt: skip
        picked = (choice or "").strip().rstrip(".")
        if picked not in allowed:
            return None
        gate = self._stop_gate(prompt, picked, allowed)
        return self._record_plan(rec, at, umi.Plan(thought.strip(), gate.get("next", picked)),
                                 history, gate=gate)  # fmt: skip

    def _stop_gate(self, prompt: str, picked: str, allowed: Sequence[str]) -> dict[str, Any]:
        """{} without a gate; else the score, the planner's choice and the gated one (kept
        when the gated role is not allowed here, or the score cannot be computed)."""
        from toollearn.agents.stop_gate import GATED, conclusion_logprob, gated_next

        if self.stop_threshold is None or picked not in GATED:
            return {}
        try:
            score = conclusion_logprob(self.planner, prompt)
        except (ToollearnError, RuntimeError, ValueError) as exc:
            return {"planner_next": picked, "conclusion_logprob": None, "error": str(exc)}
        gated = gated_next(picked, score, self.stop_threshold)
        return {"planner_next": picked, "conclusion_logprob": round(score, 4),
                "next": gated if gated in allowed else picked}  # fmt: skip

    @staticmethod
    def _record_plan(
        rec: Recorder,
        at: int,
        plan: umi.Plan,
        history: list[Message],
        forced: bool = False,
        gate: dict[str, Any] | None = None,
    ) -> umi.Plan:
        """Tag the planner's model step for the trajectory and add the decision step (with
        the stop gate's record, if one decided)."""
        text = umi.render_plan(plan.thought, plan.next)
        step = rec.steps[at]
        rec.steps[at] = Step(**{**step.__dict__, "data": {**step.data, "umi_role": "assistant",
                                                            "umi_text": text}})  # fmt: skip
        detail = "forced by next_policy" if forced else ""
        if gate and gate.get("planner_next") != plan.next:
            detail = f"stop gate: the planner chose {gate['planner_next']}"
        data = {"next": plan.next, **({"stop_gate": gate} if gate else {})}
        rec.add(Step("planner", "decision", plan.next, data=data, detail=detail))
        history.append(Message("assistant", text))
        return plan

    def _conclude(self, rec: Recorder, history: list[Message]) -> str | None:
        text = rec.model(self.summarizer, umi.summarizer_prompt(history), role="summarizer",
                         kind="answer", max_tokens=self.tokens["summarizer"])  # fmt: skip
        if text is not None:
            rec.amend_last(data={"umi_role": "conclusion"})
            history.append(Message("conclusion", text))
        return text

    def _call(
        self,
        rec: Recorder,
        tools: list[Tool],
        history: list[Message],
        thought: str,
        runner: ActionRunner,
    ) -> CallResult:
        constraint = None
        if self.constrained_caller and tools:
            used = (
                {r.call.name for r in runner.seen.values() if r.ok} if self.fresh_tools else set()
            )
            constraint = action_constraint([t for t in tools if t.name not in used] or tools)
        prompt = umi.caller_prompt(tools, history[:-1], thought)
        text = rec.model(self.caller, prompt, role="caller", kind="call",
                         max_tokens=self.tokens["caller"],
                         stop=["\nObservation", "\nAssistant:"], constraint=constraint)  # fmt: skip
        if text is None:
            result = failed(ToolCall(""), ErrorKind.EMPTY_OUTPUT, "the caller produced no call")
        else:
            try:
                call = umi.parse_action(text)
            except FormatError as exc:
                rec.amend_last(error=ErrorKind.FORMAT, detail=str(exc), data={"umi_role": "caller"})
                result = failed(ToolCall(""), ErrorKind.FORMAT, str(exc))
            else:
                rec.amend_last(calls=(call,), data={"umi_role": "caller"})
                result = runner.run(call)
        history.append(Message("caller", text or ""))
        rec.observe(result, umi_role="observation")
        history.append(Message("observation", result.observation_text()))
        return result
