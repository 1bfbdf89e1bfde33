"""The Seal-Tools agent: one model turn answers with several calls (nested allowed), then the
plan is executed in dependency order against the environment."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toollearn.agents.base import Recorder, engine_label
from toollearn.core.errors import FormatError
from toollearn.core.types import ErrorKind, Tool, Trace
from toollearn.engines.base import Sampling
from toollearn.envs.environment import Environment
from toollearn.envs.plan import run_plan
from toollearn.envs.result import to_jsonable


class MultiCallAgent:
    """Query + candidate tools -> one Seal-Tools call list -> executed plan.

    constrained: decode with `seal_calls_constraint(candidates)` (only well-formed calls to
    listed tools). env: where calls run; None = simulate the candidate tools (deterministic,
    seeded). execute=False stops after parsing (what the benchmark scores). tool_filter: an
    `agents.tool_filter.ToolFilter` that drops the calls to candidates no clause of the query
    points at before anything runs (a None margin drops none); foreign_values ("optional" or
    "all", with a tool_filter for the clauses): drop the arguments copied from another tool's
    clause (`agents.foreign_values`); whole_words: drop the copied strings that cut a word
    (`agents.word_spans`); refill ("dropped" or "required"): ask the engine again, on each
    call's own clauses, for the required arguments those two dropped, or for all required
    arguments of a multi-call answer (`agents.refill_values`); generic_values: drop a string
    that only repeats its parameter's name, or in a later call read the previous call's
    response there (`agents.generic_values`); missing_calls: ask the engine again for a call
    to each candidate a clause points at first that no call uses (`agents.missing_calls`, with
    a tool_filter); iso_dates: dates copied in words written YYYY-MM-DD
    (`agents.date_values`). The model step keeps its text as
    generated; its data records what they changed (`dropped_calls`, `tool_support`,
    `dropped_values`, `cut_values`, `refilled_values`, `generic_values`, `added_calls`,
    `date_changes`).
    """

    name = "multi-call"

    def __init__(
        self,
        engine: Any,
        env: Environment | None = None,
        *,
        constrained: bool = False,
        execute: bool = True,
        max_tokens: int = 512,
        chat: bool = True,
        seed: int = 0,
        sampling: Sampling | None = None,
        tool_filter: Any = None,
        iso_dates: bool = False,
        foreign_values: str | None = None,
        whole_words: bool = False,
        refill: str | None = None,
        generic_values: bool = False,
        missing_calls: bool = False,
    ):
        if (foreign_values or refill or missing_calls) and tool_filter is None:
            raise ValueError("foreign_values, refill and missing_calls need a tool_filter "
                             "(its clauses)")  # fmt: skip
        if refill and not (foreign_values or whole_words):
            raise ValueError("refill asks again for what foreign_values or whole_words dropped")
        self.whole_words, self.refill = whole_words, refill
        self.generic_values, self.missing_calls = generic_values, missing_calls
        self.sampling = sampling or Sampling(seed=seed)
        self.tool_filter, self.iso_dates = tool_filter, iso_dates
        self.foreign_values = foreign_values
        self.engine, self.env, self.constrained = engine, env, constrained
        self.execute, self.max_tokens, self.chat, self.seed = execute, max_tokens, chat, seed

    def config(self) -> dict[str, Any]:
        config = {"agent": self.name, "engine": engine_label(self.engine),
                  "constrained": self.constrained, "max_tokens": self.max_tokens}  # fmt: skip
        if self.tool_filter is not None and self.tool_filter.margin is not None:
            config["tool_filter"] = self.tool_filter.describe()
        if self.foreign_values:
            config["foreign_values"] = self.foreign_values
        if self.whole_words:
            config["whole_words"] = True
        if self.refill:
            config["refill"] = self.refill
        if self.generic_values:
            config["generic_values"] = True
        if self.missing_calls:
            config["missing_calls"] = True
        if self.iso_dates:
            config["iso_dates"] = True
        return config

    def run(
        self, query: str, tools: Sequence[Tool] | None = None, *, example_id: str = ""
    ) -> Trace:
        """Ask once, parse the call list, run it; every failure is a recorded error step."""
        from toollearn.formats.answers.seal_tools import parse_calls, render_prompt

        candidates = list(tools if tools is not None else (self.env.tools if self.env else []))
        rec = Recorder(query, example_id, self.chat, self.sampling)
        constraint = None
        if self.constrained and candidates:
            from toollearn.decoding.seal_tools import seal_calls_constraint

            constraint = seal_calls_constraint(candidates)
        text = rec.model(self.engine, render_prompt(query, candidates), role="agent", kind="call",
                         max_tokens=self.max_tokens, constraint=constraint)  # fmt: skip
        if text is None:
            return rec.finish(None, **self.config(), outcome="no_output")
        if (
            self.tool_filter is not None
            or self.iso_dates
            or self.whole_words
            or self.generic_values
        ):
            from toollearn.agents.tool_filter import postprocess

            steps = postprocess(text, query, candidates, self.tool_filter, self.iso_dates,
                                self.foreign_values, whole_words=self.whole_words,
                                refill=self.engine if self.refill else None,
                                refill_scope=self.refill or "dropped",
                                generic=self.generic_values,
                                missing=self.engine if self.missing_calls else None)  # fmt: skip
            text = steps.pop("output")
            rec.amend_last(data=steps)
        try:
            calls = parse_calls(text)
        except FormatError as exc:
            rec.amend_last(kind="error", error=ErrorKind.FORMAT, detail=str(exc))
            return rec.finish(None, **self.config(), outcome="format_error")
        rec.amend_last(calls=tuple(calls))
        if not self.execute or not calls:
            return rec.finish(text, **self.config(), outcome="planned" if calls else "no_call")
        env = self.env or Environment.simulated(candidates, seed=self.seed)
        env.reset()
        results, order = run_plan(env, calls)
        for i in order + [i for i in range(len(calls)) if i not in order]:
            rec.observe(results[i], call_index=i)
        used = {r.call for c in calls for r in c.refs()}
        finals = {f"call_{i}": to_jsonable(results[i].output) for i in range(len(calls))
                  if i not in used and results[i].ok}  # fmt: skip
        ok = all(r.ok for r in results)
        answer = json.dumps(finals, ensure_ascii=False) if finals else None
        return rec.finish(answer, **self.config(), outcome="executed" if ok else "partial")
