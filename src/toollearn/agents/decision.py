"""The DEER decision-aware agent: decide whether to search, whether a tool fits, then call.

1. Decision-Search: does the query need a tool at all? If not, answer directly.
2. Candidates: the given pool, else the retriever's top-k, else the environment's tools.
3. Decision-Call: is one of the candidates suitable? If none, answer from own knowledge.
4. Call: write a Python call `name(arg=...)`, parse it (ast, literals only) and execute it.
Each decision is a `decision` Step with its value in `data`, so `Trace.decisions()` gives
{"needs_tool", "has_suitable_tool", "tool"}. Prompts are our own (zero-shot).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toollearn.agents.base import Recorder, engine_label
from toollearn.agents.constraints import choice_constraint, pycall_constraint
from toollearn.core.errors import FormatError
from toollearn.core.types import ErrorKind, Step, Tool, ToolCall, Trace
from toollearn.envs.environment import Environment

SEARCH_PROMPT = (
    "You can answer a question from your own knowledge, or use an external API (a tool).\n"
    "A tool is needed for live or personal data, a specific online service, or an action "
    "(search a database, book, translate, convert, look up a record). General knowledge, "
    "advice, writing and chit-chat need no tool.\n"
    "Question: {query}\nDoes this question need a tool? Answer Yes or No."
)
CALL_PROMPT = (
    "Question: {query}\nAvailable APIs:\n{pool}\n"
    "Can one of these APIs answer the question? Reply with the name of the API that fits, "
    "or None if no API fits."
)
ARGS_PROMPT = (
    "Question: {query}\nAPI: {name}: {description}\nUsage: {signature}\n"
    "Write the Python call of {name} that answers the question, with keyword arguments "
    "whose values come from the question. Reply with the call only."
)
NONE = "None"
FALLBACK = "fallback: the model's answer was unreadable"


def _signature(tool: Tool) -> str:
    from toollearn.formats.schemas.python_sig import tool_to_signature

    return tool.metadata.get("signature") or tool_to_signature(tool)


def render_pool(tools: Sequence[Tool]) -> str:
    """One line per candidate: name, description and Python signature."""
    return "\n".join(f"- {t.name}: {t.description} Usage: {_signature(t)}" for t in tools)


def parse_yes_no(text: str) -> bool:
    """The first yes/no word of an answer; FormatError when there is none."""
    m = re.search(r"\b(yes|no)\b", text, re.IGNORECASE)
    if not m:
        raise FormatError(f"no Yes/No decision in {text!r:.80}")
    return m.group(1).lower() == "yes"


def parse_choice(text: str, names: Sequence[str]) -> str | None:
    """The candidate named first in `text` (None for a 'None' answer); FormatError otherwise."""
    hits = [(m.start(), n) for n in names if (m := re.search(rf"\b{re.escape(n)}\b", text))]
    none = re.search(r"\b(none|no api|no tool)\b", text, re.IGNORECASE)
    if hits and (not none or min(hits)[0] < none.start()):
        return min(hits)[1]
    if none:
        return None
    raise FormatError(f"no candidate name or None in {text!r:.80}")


class DecisionAgent:
    """DEER's decision-aware agent over any engine; see the module docstring for the steps.

    constrained: decode the decisions as fixed choices and the call with a Python-call
    grammar for the chosen tool. answer: generate a free-text answer when no tool is used
    (the benchmark skips it: it is not scored). decide_search=False skips Decision-Search
    (recorded as a forced "Yes") to measure Decision-Call alone. retriever: anything with
    `.search(query, k)` returning hits whose `.item` is a Tool.
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
        chat: bool = True,
        seed: int = 0,
    ):
        self.engine, self.env, self.retriever, self.k = engine, env, retriever, k
        self.constrained, self.answer, self.execute = constrained, answer, execute
        self.decide_search = decide_search
        self.chat, self.seed = chat, seed

    def config(self) -> dict[str, Any]:
        return {"agent": self.name, "engine": engine_label(self.engine), "k": self.k,
                "constrained": self.constrained, "direct_answer": self.answer,
                "decide_search": self.decide_search}  # fmt: skip

    def _decide(self, rec: Recorder, prompt: str, options: list[str], key: str) -> str | None:
        constraint = choice_constraint(options, key) if self.constrained else None
        return rec.model(self.engine, prompt, role="agent", kind="thought", max_tokens=24,
                         constraint=constraint, data={"decision": key})  # fmt: skip

    def _direct_answer(self, rec: Recorder, query: str, why: str) -> str | None:
        if not self.answer:
            return None
        return rec.model(self.engine, query, role="agent", kind="answer", max_tokens=128,
                         data={"reason": why})  # fmt: skip

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
        rec = Recorder(query, example_id, self.chat)
        cfg = self.config()
        needs = self._search_decision(rec, query)
        if not needs:
            answer = self._direct_answer(rec, query, "no tool needed")
            return rec.finish(answer, **cfg, outcome="no_search")
        pool = self.candidates(query, tools)
        rec.add(Step("retriever", "observation", ", ".join(t.name for t in pool),
                     data={"candidates": [t.name for t in pool]}))  # fmt: skip
        chosen = self._call_decision(rec, query, pool) if pool else None
        if chosen is None:
            answer = self._direct_answer(rec, query, "no suitable tool")
            return rec.finish(answer, **cfg, outcome="no_call")
        call = self._write_call(rec, query, chosen)
        if call is None or not self.execute:
            return rec.finish(None, **cfg, outcome="call" if call else "call_format_error")
        env = self.env or Environment.simulated(pool, seed=self.seed)
        env.reset()
        result = env.execute(call)
        rec.observe(result)
        return rec.finish(result.observation_text(), **cfg,
                          outcome="called" if result.ok else "call_failed")  # fmt: skip

    def _search_decision(self, rec: Recorder, query: str) -> bool:
        if not self.decide_search:  # evaluate the Decision-Call stage on its own
            rec.add(Step("agent", "decision", "Yes", data={"needs_tool": True},
                         detail="forced: decide_search=False"))  # fmt: skip
            return True
        text = self._decide(rec, SEARCH_PROMPT.format(query=query), ["Yes", "No"], "needs_tool")
        try:
            needs = parse_yes_no(text or "")
        except FormatError as exc:  # unreadable: look for a tool rather than guess an answer
            if text is not None:
                rec.amend_last(kind="error", error=ErrorKind.FORMAT, detail=str(exc))
            needs, fallback = True, True
        else:
            fallback = False
        rec.add(Step("agent", "decision", "Yes" if needs else "No", data={"needs_tool": needs},
                     detail=FALLBACK if fallback else ""))  # fmt: skip
        return needs

    def _call_decision(self, rec: Recorder, query: str, pool: list[Tool]) -> Tool | None:
        names = [t.name for t in pool]
        prompt = CALL_PROMPT.format(query=query, pool=render_pool(pool))
        text = self._decide(rec, prompt, [*names, NONE], "has_suitable_tool")
        try:
            name = parse_choice(text or "", names)
            fallback = False
        except FormatError as exc:
            if text is not None:
                rec.amend_last(kind="error", error=ErrorKind.FORMAT, detail=str(exc))
            name, fallback = None, True
        rec.add(Step("agent", "decision", name or NONE,
                     data={"has_suitable_tool": name is not None, "tool": name},
                     detail=FALLBACK if fallback else ""))  # fmt: skip
        return next((t for t in pool if t.name == name), None)

    def _write_call(self, rec: Recorder, query: str, tool: Tool) -> ToolCall | None:
        from toollearn.formats.pycall import parse_call_lenient

        alias = callable_alias(tool)  # ToolBench names like "Foo-Bar| baz" are not identifiers
        prompt = ARGS_PROMPT.format(query=query, name=alias.name, description=tool.description,
                                    signature=_signature(alias))  # fmt: skip
        constraint = pycall_constraint([alias]) if self.constrained else None
        text = rec.model(self.engine, prompt, role="agent", kind="call", max_tokens=160,
                         constraint=constraint)  # fmt: skip
        if text is None:
            return None
        m = re.search(rf"\b{re.escape(alias.name)}\s*\(", text)
        snippet = _balanced_call(text, m.start()) if m else text
        try:
            parsed = parse_call_lenient(snippet, alias)
        except FormatError as exc:
            rec.amend_last(kind="error", error=ErrorKind.FORMAT, detail=str(exc))
            return None
        call = ToolCall(tool.name, parsed.arguments)
        rec.amend_last(calls=(call,))
        return call


def callable_alias(tool: Tool) -> Tool:
    """The tool itself, or a copy named with a Python identifier the model can write."""
    if tool.name.isidentifier():
        return tool
    name = re.sub(r"\W+", "_", tool.name).strip("_") or "api"
    name = name if name[0].isalpha() else f"api_{name}"
    meta = {k: v for k, v in tool.metadata.items() if k != "signature"}
    return Tool(name, tool.description, tool.parameters, tool.responses, tool.category, meta)


def _balanced_call(text: str, start: int) -> str:
    """The call starting at `start` up to its matching ')' (quotes respected)."""
    depth, quote = 0, ""
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return text[start:]
