"""The general tool-calling agent (formats.answers.tool_calls): any user's tools, several calls
per turn, tool results fed back, free to decline.

Each turn the model sees the tools, the query and the turns so far, and answers with a JSON
call list or `[]` plus a plain-text reply; calls run (in order) and their results come back as
`tool` messages; a reply without calls ends the episode. Constrained decoding admits only
listed tools with typed arguments, or the no-call answer.

With a call gate (`call_gate`, `call_threshold`; `ToolCallsAgent.gated` takes the DEER call
gate toollearn ships) the agent first decides whether any shown tool fits the query, as DEER
does: when the gate's NoCall margin exceeds the threshold, the model's first turn may only
decline (`[]` and a reply; no model turn at all for an engine without constraints). With a
sure-call threshold too (`sure_call_threshold`, below the gate's; `gated` takes the shipped
one, chosen on ToolDEER's valid split), a margin at or below it makes the gate alone decide
that a tool fits: the first turn must call (constrained engines only). Between the two
thresholds the model decides. The decision is a `gate` step of the trace.

Each turn's answer goes through the repair loop (`agents.repairs`, `repairs` and
`repair_budget`): a cut-off call list is asked again shorter, calls a free answer writes
against the tools' schemas are asked again; with `ask_again_on_repeat` (constrained engines), a
call list that repeats a call already made in the episode (the same tool and arguments: a small
model looping between two similar tools) is generated again with the repeated tools left out
of the grammar, the no-call answer still open. The answer asked again stays in the trace,
marked as retried with the reason.

With a call plan (`plan="due"` or `"order"`, constrained engines; `agents.clause_plan`: each
of the query's requests gets its closest shown tool, in the order asked), each turn makes one
call while planned tools are left: only the due one (`due`: the reply waits until the plan is
done, unless the first turn's gate leaves the model free to decline), or the due one or a tool
outside the plan (`order`: no later step first, the reply open). Then the turns are free, but
where the plan ends at a request no shown tool fits (`Plan.unfit`), or with `"due-reply"`:
then the reply. With `"batch"` each turn calls every planned request's tool not called yet in one
list, in order (a tool asked twice called twice; where a request found no tool, an optional
call of any shown tool), but a request that waits for an earlier result while an earlier one
is not called yet; then the reply. The plan is a `planner` step of
the trace.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from toollearn.agents.acting import ActionRunner, start_episode
from toollearn.agents.base import engine_label
from toollearn.agents.clause_plan import MODES, ClausePlanner, Plan
from toollearn.agents.repairs import Fault, RepairLoop, Turn, note_message
from toollearn.core.errors import FormatError
from toollearn.core.types import ErrorKind, Message, Step, Tool, Trace
from toollearn.decoding.repair_loop import results_of, said_of
from toollearn.decoding.tool_calls import no_call_constraint, tool_calls_constraint
from toollearn.engines.base import Sampling, prompt_docs
from toollearn.envs.environment import Environment
from toollearn.formats.answers import tool_calls


def planned_turn(plan: Plan | None, mode: str, called: Sequence[str], shown: list[Tool],
                 step: int, decision: str | None = None) -> tuple[list[Tool], Any]:  # fmt: skip
    """The tools a turn may call and its grammar while planned calls are left (see the module
    doc; `called`: the tools called so far in order, a tool called twice listed twice; `step`:
    the turns already taken, `decision`: the call gate's); (shown, None) otherwise: the turn's
    usual grammar."""
    if mode == "batch":
        return batch_turn(plan, called, shown, step, decision)
    due = plan.due(set(called)) if plan is not None else None
    closes = plan is not None and (plan.unfit is not None or mode == "due-reply" and plan.tools)
    if due is None and closes:
        return [], no_call_constraint()  # the planned calls made: the reply, no more calls
    if due is None:
        return shown, None
    if mode in ("due", "due-reply"):  # the reply only where the gate leaves the first turn free
        keep, may_decline = {due}, step == 0 and decision != "sure call"
    else:  # no later planned tool first; the reply open but where the gate is sure
        keep = {due} | ({t.name for t in shown} - set(plan.tools))
        may_decline = step > 0 or decision != "sure call"
    offered = [t for t in shown if t.name in keep]
    return offered, tool_calls_constraint(offered, allow_no_call=may_decline, max_calls=1)


def batch_turn(plan: Plan | None, called: Sequence[str], shown: list[Tool], step: int,
               decision: str | None = None) -> tuple[list[Tool], Any]:  # fmt: skip
    """`"batch"`: the planned calls not made yet in one list, in order, but a request that
    waits for a result while a request before it is not made yet; in the first batch, an
    optional call of any shown tool where a request is planned to no tool (`Plan.slots`);
    then the reply; (shown, None) where nothing is planned."""
    slots = plan.slots if plan is not None else []
    if not slots:
        return shown, None
    made = Counter(called)
    first = not any(made[tool] for tool, _ in slots if tool)
    left: list[tuple[str | None, bool]] = []
    for tool, waits in slots:
        if tool is None:
            if first:
                left.append((None, False))
        elif made[tool]:
            made[tool] -= 1
        else:
            left.append((tool, waits))
    due = [i for i, (tool, _) in enumerate(left) if tool]
    if not due:
        return [], no_call_constraint()  # the planned calls made: the reply, no more calls
    batch = [tool for i, (tool, waits) in enumerate(left) if not waits or i == due[0]]
    names = {tool for tool in batch if tool}
    offered = shown if None in batch else [t for t in shown if t.name in names]
    may_decline = step == 0 and decision != "sure call"
    return offered, tool_calls_constraint(offered, allow_no_call=may_decline, sequence=batch)


class ToolCallsAgent:
    """Call lists until a plain-text answer, a loop, or the step budget; see the module doc.
    execute=False stops at the first call list (what `toollearn call` prints)."""

    name = "tool-calls"

    def __init__(
        self,
        engine: Any,
        env: Environment | None = None,
        *,
        constrained: bool = True,
        max_steps: int = 4,
        max_repeats: int = 2,
        max_tokens: int = 256,
        execute: bool = True,
        chat: bool = True,
        seed: int = 0,
        sampling: Sampling | None = None,
        docs: str | None = None,
        call_gate: Any = None,
        call_threshold: float | None = None,
        sure_call_threshold: float | None = None,
        ask_again_on_repeat: bool = False,
        plan: str | None = None,
        planner: Any = None,
        repairs: Sequence[str] = ("cut_off", "schema"),
        repair_budget: int = 2,
    ):
        if (call_gate is None) != (call_threshold is None):
            raise ValueError("a call gate needs its threshold, and a threshold its gate")
        if sure_call_threshold is not None and (
            call_threshold is None or sure_call_threshold > call_threshold
        ):
            raise ValueError("a sure-call threshold needs a call gate, at or below its threshold")
        self.call_gate, self.call_threshold = call_gate, call_threshold
        self.sure_call_threshold = sure_call_threshold
        self.engine, self.env, self.constrained = engine, env, constrained
        self.docs = docs or prompt_docs(engine)  # as the model was trained to see tools
        self.max_steps, self.max_repeats, self.max_tokens = max_steps, max_repeats, max_tokens
        self.chat, self.seed, self.execute = chat, seed, execute
        self.sampling = sampling or Sampling(seed=seed)
        self.ask_again_on_repeat = ask_again_on_repeat
        checks = [*repairs, *(["repeated"] if ask_again_on_repeat else [])]
        self.repairs = RepairLoop(checks, repair_budget,
                                  getattr(engine, "supports_constraints", False))  # fmt: skip
        if plan is not None and plan not in MODES:
            raise ValueError(f"plan must be one of {MODES}, not {plan!r}")
        self.plan_mode = plan
        if planner is None and plan is not None:
            planner = ClausePlanner.for_mode(plan)
        self.planner = planner

    @classmethod
    def gated(cls, engine: Any, env: Environment | None = None, *, threads: int | None = 1,
              sure_call: bool = True, **options: Any) -> ToolCallsAgent:  # fmt: skip
        """The agent with the DEER call gate toollearn ships (`toollearn.models.deer_gates()`:
        a MiniLM with a LoRA adapter and its threshold) deciding whether a shown tool fits, and
        (`sure_call`) its sure-call threshold, below which the first turn must call."""
        from toollearn.agents.call_gate import shipped_call_gate, shipped_sure_call_threshold

        gate, threshold = shipped_call_gate(engine, threads)
        sure = shipped_sure_call_threshold() if sure_call else None
        return cls(engine, env, call_gate=gate, call_threshold=threshold,
                   sure_call_threshold=sure, **options)  # fmt: skip

    def config(self) -> dict[str, Any]:
        out = {"agent": self.name, "engine": engine_label(self.engine),
               "constrained": self.constrained, "max_steps": self.max_steps}  # fmt: skip
        if self.call_gate is not None:
            out.update(call_threshold=self.call_threshold, **self.call_gate.describe())
        if self.sure_call_threshold is not None:
            out["sure_call_threshold"] = self.sure_call_threshold
        if self.ask_again_on_repeat:
            out["ask_again_on_repeat"] = True
        if self.repairs.checks != ["cut_off", "schema"] or self.repairs.budget != 2:
            out["repairs"] = [*self.repairs.checks, f"budget {self.repairs.budget}"]
        if self.plan_mode is not None:
            out.update(plan=self.plan_mode, **self.planner.describe())
        return out if self.docs == "json" else {**out, "docs": self.docs}

    def _gate(self, rec: Any, query: str, shown: Sequence[Tool]) -> str | None:
        """The call gate's decision, recorded as a `gate` step: "no call" (no shown tool fits),
        "sure call" (the margin is at or below the sure-call threshold), "call" (the model
        decides), or None without a gate."""
        from toollearn.agents.call_gate import gate_decision

        if self.call_gate is None or not shown:
            return None
        sure = self.sure_call_threshold
        decision, score = gate_decision(self.call_gate, self.call_threshold, sure, query, shown)
        side = ">" if decision == "no call" else "<="
        detail = f"NoCall margin {score['nocall_margin']} {side} threshold {self.call_threshold}"
        if decision == "sure call":
            detail += f"; <= sure-call threshold {sure}"
        data = {**score, "threshold": self.call_threshold}
        if sure is not None:
            data["sure_call_threshold"] = sure
        rec.add(Step("gate", "decision", decision, detail=detail, data=data))
        return decision

    def run(
        self, query: str, tools: Sequence[Tool] | None = None, *, example_id: str = ""
    ) -> Trace:
        """One episode; every failure is a recorded error step, never an exception."""
        shown, rec, runner = start_episode(
            self.env, tools, seed=self.seed, query=query, example_id=example_id, chat=self.chat,
            sampling=self.sampling,
        )  # fmt: skip
        constraint = tool_calls_constraint(shown) if self.constrained and shown else None
        decision = self._gate(rec, query, shown)
        if decision == "no call" and not getattr(self.engine, "supports_constraints", False):
            return rec.finish(None, **self.config(), outcome="no_call")
        first = constraint  # the first turn's: the gate may narrow it
        if decision == "no call":
            first = no_call_constraint()
        elif decision == "sure call" and constraint is not None:
            first = tool_calls_constraint(shown, allow_no_call=False)
        plan = self._plan(rec, query, shown, constraint, decision)
        called: list[str] = []
        history: list[Message] = []
        for step in range(self.max_steps):
            messages = tool_calls.render_messages(query, shown, history, self.docs)
            offered, turn = self._planned_turn(plan, called, shown, step, decision)
            turn = turn or (constraint if step else first)
            text = self._turn(rec, messages, offered, turn, runner)
            try:
                answer = tool_calls.parse(text) if text is not None else None
            except FormatError as exc:
                rec.amend_last(kind="error", error=ErrorKind.FORMAT, detail=str(exc))
                return rec.finish(None, **self.config(), outcome="format_error")
            if answer is None:
                return rec.finish(None, **self.config(), outcome="no_output")
            if answer.declined:
                rec.amend_last(kind="answer")
                outcome = "answered" if step else "no_call"
                return rec.finish(answer.text or None, **self.config(), outcome=outcome)
            rec.amend_last(calls=answer.calls)
            if not self.execute:  # the answer is the call list itself
                return rec.finish(text, **self.config(), outcome="planned")
            history.append(Message("assistant", text))
            called.extend(c.name for c in answer.calls)
            for call in answer.calls:
                result = runner.run(call)
                rec.observe(result)
                history.append(tool_calls.tool_result_message(call, result.observation_text()))
            if runner.repeats >= self.max_repeats:
                detail = f"{runner.repeats} identical calls in a row"
                rec.error("agent", ErrorKind.REPEATED_CALL, detail)
                return rec.finish(None, **self.config(), outcome="loop")
        rec.error("agent", ErrorKind.STEP_LIMIT, f"no answer after {self.max_steps} turns")
        return rec.finish(None, **self.config(), outcome="step_limit")

    def _plan(self, rec: Any, query: str, shown: Sequence[Tool], constraint: Any,
              decision: str | None) -> Plan | None:  # fmt: skip
        """The call plan (recorded as a `planner` step), or None: no plan mode, no grammar,
        or the gate's no-call verdict."""
        if self.plan_mode is None or constraint is None or decision == "no call":
            return None
        plan = self.planner.plan(query, shown)
        rec.add(plan.step(f"{self.plan_mode}: one request's closest tool each, in order"))
        return plan

    def _planned_turn(self, plan: Plan | None, called: list[str], shown: list[Tool], step: int,
                      decision: str | None) -> tuple[list[Tool], Any]:  # fmt: skip
        """The tools a turn may call and its grammar (`planned_turn`)."""
        return planned_turn(plan, self.plan_mode or "due", called, shown, step, decision)

    def _turn(self, rec: Any, messages: list[Message], tools: list[Tool], constraint: Any,
              runner: ActionRunner) -> str | None:  # fmt: skip
        """One model turn (recorded), then the repair loop's tries again (`agents.repairs`),
        each recorded, the answer it retries marked with the reason."""
        text = rec.model(self.engine, messages, role="agent", kind="call",
                         max_tokens=self.max_tokens, constraint=constraint)  # fmt: skip

        def ask(fault: Fault, answer: str) -> str | None:
            rec.amend_last(data={"retried": fault.detail})
            extra = note_message(fault, answer) if fault.note else []
            return rec.model(self.engine, [*messages, *extra], role="agent", kind="call",
                             max_tokens=self.max_tokens, constraint=fault.constraint)  # fmt: skip

        turn = Turn(tools, constraint, runner.made, said=said_of(messages),
                    results=results_of(messages))  # fmt: skip
        return self.repairs.run(text, turn, ask)[0]
