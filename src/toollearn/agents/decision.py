"""The DEER decision-aware agent: decide whether to search, whether a tool fits, then call.

It serves the released ToolDEER format (formats.answers.deer), so a model trained on DEER's
decision-branch data runs here unchanged:
1. Decision-Search: the prompt is the query; the model writes `#Begin# Need to look up the API
   Pool. #SearchAPI#` or the no-search answer (then, optionally, a free answer).
2. Candidates: the given pool, else the retriever's top-k, else the environment's tools.
3. Decision-Call: the agent appends the pool text to the model's turn and the model continues
   with ` #CallAPI# f(...) #APIResponse#` or ` #NoCallAPI# ... #End#`.
4. The call is parsed (ast, literals only), executed, and its response appended with `#End#`.
call_threshold (released format): instead of letting the argmax pick the branch in step 3, a
gate (agents.call_gate: the model's log p(` #NoCallAPI#`) - log p(` #CallAPI#`), or the query's
similarity to the pool's tools) gives a NoCall margin; the agent declines when it exceeds the
threshold, and otherwise writes ` #CallAPI#` itself and has the model write the call (with
gate_tool, a call of the tool the similarity gate found closest: the retriever picks the tool,
the model writes its arguments). The margin is kept in the decision step's data. A threshold
is chosen on held-out training examples (`toollearn eval deer-calibrate`).
search_threshold: likewise for step 1, a search gate (agents.search_gate: a classifier over the
query's embedding, or its similarity to the whole tool library) gives a NoSearch margin; above
the threshold the agent writes the no-search turn itself, otherwise the search marker, and the
model writes neither.
`prompting="zero-shot"` asks three questions of our own instead (Yes/No, a candidate name or
None, the call), for models never trained on the format. Either way each decision is a
`decision` Step, so `Trace.decisions()` gives {"needs_tool", "has_suitable_tool", "tool"}, and
`meta["deer_text"]` holds the released-format turn as it was produced.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from toollearn.agents.base import Recorder, engine_label
from toollearn.core.errors import FormatError, ToollearnError
from toollearn.core.types import ErrorKind, Message, Step, Tool, ToolCall, Trace
from toollearn.decoding.constraint import choice_constraint
from toollearn.decoding.deer import deer_constraint
from toollearn.decoding.pycall import pycall_constraint
from toollearn.engines.base import Sampling
from toollearn.envs.environment import Environment
from toollearn.formats.answers import deer

FALLBACK = "fallback: the model's answer was unreadable"
PROMPTING = ("released", "zero-shot")


class DecisionAgent:
    """DEER's decision-aware agent over any engine; see the module docstring for the steps.

    constrained: decode under the format's grammars (decisions as fixed choices, the call
    typed for the pool). answer: write a free-text answer when no tool is used (benchmarks
    skip it). decide_search=False skips Decision-Search (recorded as forced) to measure
    Decision-Call alone. call_threshold: decide Call/NoCall by the gate's margin (see the
    module docstring; None: the model's own greedy branch); call_gate: the gate (default
    the model's own branch log-probabilities); gate_tool: the call is constrained to the
    gate's closest tool (a similarity gate). search_threshold / search_gate: decide
    Search/NoSearch by a search gate's margin instead of the model. answer_engine: writes
    the free answer when no tool is used (default: the engine itself). retriever: anything with
    `.search(query, k)` returning hits whose `.item` is a Tool. sampling: temperature /
    top-p / seed of every model call.
    """

    name = "deer"

    def __init__(
        self,
        engine: Any,
        env: Environment | None = None,
        *,
        retriever: Any = None,
        k: int = 5,
        constrained: bool = True,
        answer: bool = True,
        decide_search: bool = True,
        execute: bool = True,
        prompting: str = "released",
        chat: bool = True,
        seed: int = 0,
        sampling: Sampling | None = None,
        call_threshold: float | None = None,
        call_gate: Any = None,
        gate_tool: bool = False,
        search_threshold: float | None = None,
        search_gate: Any = None,
        answer_engine: Any = None,
    ):
        if prompting not in PROMPTING:
            raise ValueError(f"prompting must be one of {PROMPTING}, not {prompting!r}")
        if (search_threshold is None) != (search_gate is None):
            raise ValueError("search_threshold and search_gate go together")
        if search_threshold is not None and prompting != "released":
            raise ValueError("search_threshold applies to the released format's search step")
        self.search_threshold, self.search_gate = search_threshold, search_gate
        self.answer_engine = answer_engine
        if call_threshold is not None:
            if prompting != "released":
                raise ValueError("call_threshold applies to the released format's call step")
            if call_gate is None:
                from toollearn.agents.call_gate import ModelGate

                call_gate = ModelGate(engine)
            if gate_tool and not getattr(call_gate, "names_tool", False):
                raise ValueError(
                    "gate_tool needs a gate that finds the closest tool (similarity, rerank)"
                )
        elif gate_tool:
            raise ValueError("gate_tool needs call_threshold (and a similarity gate)")
        self.call_threshold, self.call_gate, self.gate_tool = call_threshold, call_gate, gate_tool
        self.engine, self.env, self.retriever, self.k = engine, env, retriever, k
        self.constrained, self.answer, self.execute = constrained, answer, execute
        self.decide_search, self.prompting = decide_search, prompting
        self.chat, self.seed = chat, seed
        self.sampling = sampling or Sampling(seed=seed)

    @classmethod
    def gated(cls, engine: Any, env: Environment | None = None, *, threads: int | None = 1,
              search_classifier: bool = False, **options: Any) -> DecisionAgent:  # fmt: skip
        """The agent with the gates toollearn ships (`toollearn.models.deer_gates()`: the call
        threshold picked on ToolDEER valid, a search gate's on held-out training branches): the
        call gate decides Call/NoCall
        and the tool, the model writes the arguments (and decides Search unless the settings
        name a search gate, or `search_classifier` turns on the shipped optional search
        classifier). `options` as for the constructor."""
        from toollearn.agents.call_gate import make_gate
        from toollearn.agents.search_gate import make_search_gate
        from toollearn.models import deer_gates

        gates = deer_gates(search_classifier)
        call, search = gates["call"], gates.get("search")
        if search:
            options["search_threshold"] = search["threshold"]
            options["search_gate"] = make_search_gate(f"{search['gate']}:{search['path']}",
                                                      threads=threads)  # fmt: skip
        return cls(engine, env, call_threshold=call["threshold"],
                   call_gate=make_gate(call["gate"], engine, threads),
                   gate_tool=call["gate_tool"], **options)  # fmt: skip

    def config(self) -> dict[str, Any]:
        return {"agent": self.name, "engine": engine_label(self.engine), "k": self.k,
                "constrained": self.constrained, "direct_answer": self.answer,
                "decide_search": self.decide_search, "prompting": self.prompting,
                **({"call_threshold": self.call_threshold, **self.call_gate.describe()}
                   if self.call_threshold is not None else {}),
                **({"gate_tool": True} if self.gate_tool else {}),
                **({"answer_engine": engine_label(self.answer_engine)}
                   if self.answer_engine is not None else {}),
                **({"search_threshold": self.search_threshold, **self.search_gate.describe()}
                   if self.search_threshold is not None else {})}  # fmt: skip

    def candidates(self, query: str, tools: Sequence[Tool] | None) -> list[Tool]:
        """The pool to choose from: given tools, else retrieved, else the environment's."""
        if tools:
            return list(tools)
        if self.retriever is not None:
            return [hit.item for hit in self.retriever.search(query, self.k)]
        return self.env.tools if self.env else []

    def run(
        self, query: str, tools: Sequence[Tool] | None = None, *, example_id: str = ""
    ) -> Trace:
        """Run the decision pipeline on one query; see the class docstring."""
        rec = Recorder(query, example_id, self.chat, self.sampling)
        zero_shot = self.prompting == "zero-shot"
        turn = _Turn()
        needs = self._search_zero_shot(rec, query) if zero_shot else self._search(rec, query, turn)
        if not needs:
            answer = self._direct_answer(rec, query, "no tool needed")
            return self._finish(rec, turn, answer, "no_search")
        pool = self.candidates(query, tools)
        rec.add(Step("retriever", "observation", ", ".join(t.name for t in pool),
                     data={"candidates": [t.name for t in pool]}))  # fmt: skip
        if not pool:
            rec.add(Step("agent", "decision", deer.NONE, detail="no candidate tools",
                         data={"has_suitable_tool": False, "tool": None}))  # fmt: skip
            return self._finish(rec, turn, self._direct_answer(rec, query, "no tools"), "no_call")
        call, outcome = (
            self._call_zero_shot(rec, query, pool)
            if zero_shot
            else self._call(rec, query, pool, turn)
        )
        if call is None:
            answer = None
            if outcome == "no_call":
                answer = self._direct_answer(rec, query, "no suitable tool")
            return self._finish(rec, turn, answer, outcome)
        if not self.execute:
            return self._finish(rec, turn, None, "call")
        env = self.env or Environment.simulated(pool, seed=self.seed)
        env.reset()
        result = env.execute(call)
        rec.observe(result)
        turn.add(deer.response_span(result.observation_text()))
        outcome = "called" if result.ok else "call_failed"
        return self._finish(rec, turn, result.observation_text(), outcome)

    def _finish(self, rec: Recorder, turn: _Turn, answer: str | None, outcome: str) -> Trace:
        extra = {"deer_text": turn.text} if turn.text else {}
        return rec.finish(answer, **self.config(), outcome=outcome, **extra)

    def _direct_answer(self, rec: Recorder, query: str, why: str) -> str | None:
        if not self.answer:
            return None
        engine = self.answer_engine or self.engine
        return rec.model(engine, query, role="agent", kind="answer", max_tokens=128,
                         data={"reason": why})  # fmt: skip

    # -- the released format ---------------------------------------------------------------

    def _search(self, rec: Recorder, query: str, turn: _Turn) -> bool:
        if not self.decide_search:  # evaluate the Decision-Call stage on its own
            turn.add(deer.SEARCH_SPAN)
            rec.add(Step("agent", "decision", "Yes", data={"needs_tool": True},
                         detail="forced: decide_search=False"))  # fmt: skip
            return True
        if self.search_threshold is not None:
            return self._search_gated(rec, query, turn)
        constraint = deer_constraint((), "search") if self.constrained else None
        text = rec.model(self.engine, deer.render_messages(query), role="agent", kind="thought",
                         max_tokens=40, constraint=constraint,
                         data={"decision": "needs_tool"})  # fmt: skip
        try:
            needs, detail = deer.parse_deer(text or "").search, ""
        except FormatError as exc:  # unreadable: look for a tool rather than guess an answer
            if text is not None:
                rec.amend_last(kind="error", error=ErrorKind.FORMAT, detail=str(exc))
            needs, detail = True, FALLBACK
        turn.add(deer.cut_model_turn(text or "") if not needs else deer.SEARCH_SPAN)
        rec.add(Step("agent", "decision", "Yes" if needs else "No", data={"needs_tool": needs},
                     detail=detail))  # fmt: skip
        return needs

    def _search_gated(self, rec: Recorder, query: str, turn: _Turn) -> bool:
        """Decision-Search by the search gate's margin (a failing gate: search, recorded)."""
        t0 = time.perf_counter()
        try:
            scored = self.search_gate.score(query)
        except (ToollearnError, RuntimeError, ValueError, OSError) as exc:
            rec.error("agent", ErrorKind.ENGINE_ERROR, f"{type(exc).__name__}: {exc}",
                      data={"decision": "needs_tool"})  # fmt: skip
            turn.add(deer.SEARCH_SPAN)
            rec.add(Step("agent", "decision", "Yes", data={"needs_tool": True}, detail=FALLBACK))
            return True
        needs = scored["nosearch_margin"] <= self.search_threshold
        turn.add(deer.SEARCH_SPAN if needs else deer.NO_SEARCH_SPAN)
        rec.add(Step("agent", "decision", "Yes" if needs else "No",
                     data={"needs_tool": needs, **scored, "search_threshold": self.search_threshold,
                           "gate_seconds": round(time.perf_counter() - t0, 3)}))  # fmt: skip
        return needs

    def _call(
        self, rec: Recorder, query: str, pool: list[Tool], turn: _Turn
    ) -> tuple[ToolCall | None, str]:
        """(the call, or None) and the outcome when there is none."""
        turn.add(deer.pool_text(pool))
        messages = [*deer.render_messages(query), Message("assistant", turn.text)]
        scored: dict[str, Any] = {}
        stage = "call"
        if self.call_threshold is not None:
            scored = self._gate(rec, query, pool, messages)
            if not scored:
                self._call_decision(rec, None, FALLBACK)
                return None, "call_format_error"
            if scored["nocall_margin"] > self.call_threshold:
                turn.add(deer.NO_CALL_SPAN)
                self._call_decision(rec, None, "", scored)
                return None, "no_call"
            turn.add(f" {deer.CALL}")
            messages[-1] = Message("assistant", turn.text)
            stage = "args"
        callable_tools = pool
        if self.gate_tool:
            callable_tools = [t for t in pool if t.name == scored["closest_tool"]]
        constraint = deer_constraint(callable_tools, stage) if self.constrained else None
        text = rec.model(self.engine, messages, role="agent", kind="call", max_tokens=200,
                         constraint=constraint,
                         data={"decision": "has_suitable_tool"})  # fmt: skip
        if text is None:  # engine failure or nothing written: no decision could be read
            self._call_decision(rec, None, FALLBACK, scored)
            return None, "call_format_error"
        turn.add(deer.cut_model_turn(text))
        answer = deer.parse_deer(turn.text, pool)
        if answer.call is None and not answer.error:
            self._call_decision(rec, None, "", scored)
            return None, "no_call"
        if answer.call is None or answer.error:  # unreadable: recorded, no call made
            rec.amend_last(kind="error", error=ErrorKind.FORMAT, detail=answer.error)
            self._call_decision(rec, answer.call.name if answer.call else None, FALLBACK, scored)
            return None, "call_format_error"
        rec.amend_last(calls=(answer.call,))
        self._call_decision(rec, answer.call.name, "", scored)
        return answer.call, "call"

    def _gate(
        self, rec: Recorder, query: str, pool: list[Tool], messages: list[Message]
    ) -> dict[str, Any]:
        """The gate's NoCall margin and what it read ({} when it failed, recorded)."""
        t0 = time.perf_counter()
        try:
            scored = self.call_gate.score(query, pool, messages)
        except (ToollearnError, RuntimeError, ValueError, OSError) as exc:
            rec.error("agent", ErrorKind.ENGINE_ERROR, f"{type(exc).__name__}: {exc}",
                      data={"decision": "has_suitable_tool"})  # fmt: skip
            return {}
        return {**scored, "call_threshold": self.call_threshold,
                "gate_seconds": round(time.perf_counter() - t0, 3)}  # fmt: skip

    @staticmethod
    def _call_decision(
        rec: Recorder, name: str | None, detail: str, scored: dict[str, Any] | None = None
    ) -> None:
        rec.add(Step("agent", "decision", name or deer.NONE,
                     data={"has_suitable_tool": name is not None, "tool": name,
                           **(scored or {})},
                     detail=detail))  # fmt: skip

    # -- the zero-shot option --------------------------------------------------------------

    def _decide(self, rec: Recorder, prompt: str, options: list[str], key: str) -> str | None:
        constraint = choice_constraint(options, key) if self.constrained else None
        return rec.model(self.engine, prompt, role="agent", kind="thought", max_tokens=24,
                         constraint=constraint, data={"decision": key})  # fmt: skip

    def _search_zero_shot(self, rec: Recorder, query: str) -> bool:
        if not self.decide_search:
            rec.add(Step("agent", "decision", "Yes", data={"needs_tool": True},
                         detail="forced: decide_search=False"))  # fmt: skip
            return True
        prompt = deer.ZERO_SHOT_SEARCH.format(query=query)
        text = self._decide(rec, prompt, ["Yes", "No"], "needs_tool")
        try:
            needs, detail = deer.parse_yes_no(text or ""), ""
        except FormatError as exc:  # unreadable: look for a tool rather than guess an answer
            if text is not None:
                rec.amend_last(kind="error", error=ErrorKind.FORMAT, detail=str(exc))
            needs, detail = True, FALLBACK
        rec.add(Step("agent", "decision", "Yes" if needs else "No", data={"needs_tool": needs},
                     detail=detail))  # fmt: skip
        return needs

    def _call_zero_shot(
        self, rec: Recorder, query: str, pool: list[Tool]
    ) -> tuple[ToolCall | None, str]:
        shown = deer.pool_tools(pool)
        names = [t.name for t in shown]
        text = self._decide(rec, deer.zero_shot_call_prompt(query, pool), [*names, deer.NONE],
                            "has_suitable_tool")  # fmt: skip
        try:
            name, detail = deer.parse_choice(text or "", names), ""
        except FormatError as exc:
            if text is not None:
                rec.amend_last(kind="error", error=ErrorKind.FORMAT, detail=str(exc))
            name, detail = None, FALLBACK
        tool = next((t for t, a in zip(pool, shown) if a.name == name), None)
        self._call_decision(rec, tool.name if tool else None, detail)
        if tool is None:
            return None, "no_call"
        call = self._write_call_zero_shot(rec, query, tool)
        return call, "call" if call else "call_format_error"

    def _write_call_zero_shot(self, rec: Recorder, query: str, tool: Tool) -> ToolCall | None:
        alias = deer.pool_tools([tool])[0]
        constraint = pycall_constraint([alias]) if self.constrained else None
        text = rec.model(self.engine, deer.zero_shot_args_prompt(query, tool), role="agent",
                         kind="call", max_tokens=160, constraint=constraint)  # fmt: skip
        if text is None:
            return None
        call, error = deer.read_zero_shot_call(text, tool)
        if call is None:
            rec.amend_last(kind="error", error=ErrorKind.FORMAT, detail=error)
            return None
        rec.amend_last(calls=(call,))
        return call


class _Turn:
    """The released-format assistant turn as it grows (model pieces and inserted pieces)."""

    def __init__(self) -> None:
        self.text = ""

    def add(self, piece: str) -> None:
        self.text += piece
