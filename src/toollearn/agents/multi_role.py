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
from toollearn.agents.plan_gate import StepPlan, verdict
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
    plan_gate: the query's call plan (`call_planner`, default `clause_plan.ClausePlanner()`,
    recorded as a planner step) re-decides the planner's role by that rule of agents.plan_gate
    (veto / follow / plan); a call it adds passes the due request's text on as the thought,
    and while a planned tool is due a constrained caller may call only it.
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
        plan_gate: str | None = None,
        call_planner: Any = None,
    ):
        from toollearn.agents.plan_gate import RULES

        if plan_gate is not None and plan_gate not in RULES:
            raise ValueError(f"plan_gate must be one of {RULES}, not {plan_gate!r}")
        if plan_gate is not None and call_planner is None:
            from toollearn.agents.clause_plan import ClausePlanner

            call_planner = ClausePlanner()
        self.plan_gate, self.call_planner = plan_gate, call_planner
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
            **(
                {"plan_gate": self.plan_gate, **self.call_planner.describe()}
                if self.plan_gate
                else {}
            ),  # fmt: skip
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
        call_plan = self._call_plan(rec, query, shown)
        for _ in range(self.max_steps):
            ok_calls = sum(1 for r in runner.seen.values() if r.ok)
            step = None
            if call_plan is not None:
                step = verdict(call_plan, {r.call.name for r in runner.seen.values()})
            plan = self._plan(rec, shown, history, ok_calls, step, call_plan)
            if plan is None:
                return rec.finish(None, **self.config(), outcome="planner_failed")
            if plan.next == "give up":
                return rec.finish(None, **self.config(), outcome="give_up")
            if plan.next == "conclusion":
                answer = self._conclude(rec, history)
                outcome = "concluded" if answer is not None else "summarizer_failed"
                return rec.finish(answer, **self.config(), outcome=outcome)
            due = step.due if step is not None else None
            result = self._call(rec, shown, history, plan.thought, runner, due)
            if runner.repeats >= self.max_repeats:
                detail = f"{runner.repeats} identical calls in a row"
                rec.error("agent", ErrorKind.REPEATED_CALL, detail, calls=(result.call,))
                return rec.finish(None, **self.config(), outcome="loop")
        rec.error("agent", ErrorKind.STEP_LIMIT, f"no conclusion after {self.max_steps} steps")
        return rec.finish(None, **self.config(), outcome="step_limit")

    def _call_plan(self, rec: Recorder, query: str, shown: list[Tool]) -> Any:
        """The query's call plan (recorded as a planner step), or None without a plan gate."""
        if self.plan_gate is None:
            return None
        plan = self.call_planner.plan(query, shown)
        rec.add(plan.step(f"plan gate ({self.plan_gate}): one request's closest tool each",
                          end="the end"))  # fmt: skip
        return plan

    def _plan(
        self,
        rec: Recorder,
        tools: list[Tool],
        history: list[Message],
        ok_calls: int,
        step: StepPlan | None = None,
        call_plan: Any = None,
    ) -> umi.Plan | None:
        prompt = umi.planner_prompt(tools, history)
        if self.constrained_plan:
            return self._plan_constrained(rec, prompt, history, ok_calls, step, call_plan)
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
        plan, gate = self._plan_gated(plan, step, call_plan, {}, umi.NEXT_OPTIONS)
        return self._record_plan(rec, at, plan, history, gate=gate)

    def _plan_constrained(
        self,
        rec: Recorder,
        prompt: str,
        history: list[Message],
        ok_calls: int,
        step: StepPlan | None = None,
        call_plan: Any = None,
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
        plan = umi.Plan(thought.strip(), gate.get("next", picked))
        plan, gate = self._plan_gated(plan, step, call_plan, gate, allowed)
        return self._record_plan(rec, at, plan, history, gate=gate)

    def _plan_gated(
        self,
        plan: umi.Plan,
        step: StepPlan | None,
        call_plan: Any,
        gate: dict[str, Any],
        allowed: Sequence[str],
    ) -> tuple[umi.Plan, dict[str, Any]]:
        """The planner's choice under the plan gate (unchanged without one, or where the
        gated role is not allowed here); a call the gate adds takes the due request's text as
        its thought. The gate record keeps what the planner chose."""
        from toollearn.agents.plan_gate import gated_next

        gated = gated_next(plan.next, step, self.plan_gate)
        if step is None or gated == plan.next or gated not in allowed:
            return plan, gate
        thought = plan.thought
        if gated == "caller":
            asked = [r["request"] for r in call_plan.requests if r["tool"] == step.due]
            thought = asked[0] if asked else thought
        record = {"planner_next": gate.get("planner_next", plan.next),
                  "plan_gate": self.plan_gate, "due": step.due, "unfit": step.unfit}  # fmt: skip
        return umi.Plan(thought, gated), {**gate, **record}

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
        the stop or plan gate's record, if one decided)."""
        text = umi.render_plan(plan.thought, plan.next)
        step = rec.steps[at]
        rec.steps[at] = Step(**{**step.__dict__, "data": {**step.data, "umi_role": "assistant",
                                                            "umi_text": text}})  # fmt: skip
        detail = "forced by next_policy" if forced else ""
        which = "plan_gate" if gate and "plan_gate" in gate else "stop_gate"
        if gate and gate.get("planner_next") != plan.next:
            detail = f"{which.replace('_', ' ')}: the planner chose {gate['planner_next']}"
        data = {"next": plan.next, **({which: gate} if gate else {})}
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
        due: str | None = None,
    ) -> CallResult:
        """One caller turn, run; with a plan gate and a planned tool due, a constrained caller
        may call only that one."""
        constraint = None
        if self.constrained_caller and tools:
            used = (
                {r.call.name for r in runner.seen.values() if r.ok} if self.fresh_tools else set()
            )
            offered = [t for t in tools if t.name not in used] or tools
            if due is not None:
                offered = [t for t in tools if t.name == due] or offered
            constraint = action_constraint(offered)
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
