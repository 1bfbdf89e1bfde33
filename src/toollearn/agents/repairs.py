"""One validate, repair, ask-again loop for the general call format.

After a model turn the loop runs its checks in order; the first that finds a fault asks the
model again, with a narrower grammar where the engine takes one, and the loop checks the new
answer, within a budget of tries per turn. Every try stays in the trace: the answer asked
again is marked `retried` with the check's reason. The checks:

- `cut_off`: a constrained call list cut off by max_tokens (a small model repeating a call)
  is asked again with the calls capped at those it finished;
- `repeated`: a call list repeating a call made before in the episode (a small model looping
  between two similar tools) is asked again without the repeated tools, the reply still open;
- `schema`: a call to a tool not offered, or with arguments its schema refuses (a missing
  required one, a wrong type, a value outside its enum; `envs.validate`), is asked again under
  the offered tools' grammar, or, for an engine without grammars, with the problems named.
  Under constrained decoding the grammar already rules these out, so it only acts on free
  answers and on engines without constraints (an OpenAI-compatible server, say);
- `grounded`: a call filling an optional string parameter (an enum's too) with a value the
  conversation does not state (`stated`: none of its words in the user's turns, tool results
  or the client's system text; numbers and dates are not judged, being often converted) is
  asked again for the same calls without those parameters (a small model fills optional
  parameters with values of its own: "gender": "male", "unit": "fahrenheit"), or, for an
  engine without grammars, with a note naming them. Required values are left alone: the call
  needs them, and one in other words than the user's ("GBP" for pounds) is not wrong;
- `uses_results`: a reply after tool results that names none of their values (a small model
  declines there, or answers from nothing) is asked again with the reply opened the way the
  general data's answers after results are written: `REPLY_OPENING`, then the results' fields
  in words (`result_opening`: "I checked for you: total price is 42; currency is EUR."), where
  the model may end the reply or go on; or, without grammars, with a note asking for an answer
  from the results.

`toollearn.policy.Policy.repairs` names the checks a preset runs. The loop itself
(`decoding.repair_loop`: `Turn`, `Fault`, `RepairLoop`) takes other formats' checks too
(`register_check`): the Seal-Tools runner's `seal_cut_off` (a cut-off Seal-Tools call list asked
again with its finished calls and bounded strings, then one call) and the apps' generator's
`program_defects` (a program that does not run or misuses a number the goal states, asked
again sampled), each found by the same loop and scheduled in its caller's batches.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.core.types import Message, Tool
from toollearn.core.words import result_fact_parts
from toollearn.decoding import repair_loop
from toollearn.decoding.repair_loop import Fault, Turn, register_check
from toollearn.decoding.tool_calls import no_call_constraint, tool_calls_constraint
from toollearn.envs.validate import validate_call
from toollearn.formats.answers import tool_calls

CHECKS = ("cut_off", "repeated", "schema", "grounded", "uses_results")
# how the general data's answers after tool results open (`datagen.general_kinds.REPLIES`)
REPLY_OPENING = "I checked for you: "
_WORD = re.compile(r"[^\W\d_]{3,}")


def cut_off(text: str, turn: Turn, constrained: bool) -> Fault | None:
    """A constrained call list that never closed: asked again for the calls it finished; where
    none closed (a runaway argument: greedy decoding would write it again), for a reply."""
    if turn.constraint is None or not turn.tools or not _unclosed(text):
        return None
    finished = tool_calls.finished_calls(text)
    if not finished:
        return Fault("cut_off", "cut off by max_tokens before one call closed; asked for a reply",
                     turn.tools, no_call_constraint())  # fmt: skip
    return Fault("cut_off", f"cut off by max_tokens; calls capped at {finished}", turn.tools,
                 tool_calls_constraint(turn.tools, max_calls=finished))  # fmt: skip


def repeated(text: str, turn: Turn, constrained: bool) -> Fault | None:
    """A constrained call list with a call made before in the episode."""
    if turn.constraint is None:
        return None
    answer = _parsed(text)
    names = sorted({c.name for c in answer.calls if turn.made(c)}) if answer else []
    if not names:
        return None
    left = [t for t in turn.tools if t.name not in names]
    again = tool_calls_constraint(left) if left else no_call_constraint()
    return Fault("repeated", f"repeats a call made before: {names}", left, again)


def schema(text: str, turn: Turn, constrained: bool) -> Fault | None:
    """Calls the offered tools' schemas refuse, in a turn without a grammar (one with a grammar
    cannot write them)."""
    if turn.constraint is not None:
        return None
    answer = _parsed(text)
    if answer is None or not answer.calls:
        return None
    offered = {t.name: t for t in turn.tools}
    problems = [p.detail for call in answer.calls
                for p in validate_call(call, offered.get(call.name))[0]]  # fmt: skip
    if not problems:
        return None
    detail = "; ".join(problems)
    grammar = tool_calls_constraint(turn.tools) if constrained and turn.tools else None
    note = None if grammar is not None else (
        f"That call list is not valid: {detail}. Answer again with calls to the listed tools "
        "and their arguments, or [] and a reply.")  # fmt: skip
    return Fault("schema", detail, turn.tools, grammar, note)


def stated(value: str, said: str) -> bool:
    """Whether the conversation states a string value: as a substring, or one of its words
    (the stem: all but two letters, at least three) at a word's start, case-insensitive. A
    value without a word of three letters (a number, date, time, code) counts as stated."""
    v, s = value.strip().casefold(), said.casefold()
    if not v or v in s:
        return True
    words = _WORD.findall(v)
    return not words or any(re.search(r"(?<!\w)" + re.escape(w[: max(3, len(w) - 2)]), s)
                            for w in words)  # fmt: skip


def judged(spec: Any) -> bool:
    """A string parameter whose value the conversation may state: typed string (an enum's
    too), no const, format or pattern."""
    return (isinstance(spec, dict) and spec.get("type") == "string"
            and not {"const", "format", "pattern"} & spec.keys())  # fmt: skip


def grounded(text: str, turn: Turn, constrained: bool) -> Fault | None:
    """Calls to offered tools filling an optional string parameter with a value the
    conversation does not state."""
    answer = _parsed(text) if turn.said.strip() else None
    offered = {t.name: t for t in turn.tools}
    if answer is None or not answer.calls or any(c.name not in offered for c in answer.calls):
        return None
    loose: dict[str, set[str]] = {}
    for call in answer.calls:
        tool = offered[call.name]
        for param, value in call.arguments.items():
            spec = tool.properties.get(param)
            if (param not in tool.required and judged(spec) and isinstance(value, str)
                    and value != spec.get("default") and not stated(value, turn.said)):  # fmt: skip
                loose.setdefault(call.name, set()).add(param)
    if not loose:
        return None
    detail = "optional values the conversation does not state: " + ", ".join(
        f"{name}.{param}" for name, params in loose.items() for param in sorted(params)
    )
    if not constrained:
        note = (f"Those calls fill {detail}. Call again without them: leave out what the user "
                "did not ask for.")  # fmt: skip
        return Fault("grounded", detail, turn.tools, None, note)
    narrowed = [_without(t, loose.get(t.name, set())) for t in turn.tools]
    grammar = tool_calls_constraint(narrowed, allow_no_call=False,
                                    sequence=[c.name for c in answer.calls])  # fmt: skip
    return Fault("grounded", detail, turn.tools, grammar)


def _without(tool: Tool, params: set[str]) -> Tool:
    """The tool without these of its optional parameters."""
    drop = params - set(tool.required)
    if not drop:
        return tool
    props = {k: v for k, v in tool.properties.items() if k not in drop}
    return replace(tool, parameters={**tool.parameters, "properties": props})


def result_values(results: Sequence[str]) -> list[str]:
    """The values tool results hold (strings of two characters or more, numbers), each result
    read as JSON where it parses (the general format's `{"name", "content"}` turn unwrapped)."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str):
            parsed = _json(value)
            if isinstance(parsed, (dict, list, int, float)) and not isinstance(parsed, bool):
                walk(parsed)  # a result read as JSON: its values (a number's too)
            elif len(value.strip()) >= 2:
                out.append(value.strip())
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append(json.dumps(value))

    for text in results:
        walk(_result_content(text))
    return out


def uses_results(text: str, turn: Turn, constrained: bool) -> Fault | None:
    """A reply after tool results that names none of their values."""
    answer = _parsed(text) if turn.results else None
    values = result_values(turn.results) if answer is not None else []
    if answer is None or answer.calls or not values:
        return None
    reply = (answer.text or "").casefold()
    if any(v.casefold() in reply for v in values):
        return None
    detail = "a reply after tool results that names none of their values"
    if not constrained:
        note = "Answer from the tool results above: say what they returned."
        return Fault("uses_results", detail, turn.tools, None, note)
    opening = result_opening(turn.results)
    whole = opening != REPLY_OPENING  # the results stated: the reply may end there
    constraint = no_call_constraint(opening=opening, whole=whole)
    return Fault("uses_results", detail, turn.tools, constraint)


def result_opening(results: Sequence[str]) -> str:
    """`REPLY_OPENING` and the fields of the tool results that are JSON objects, in words as
    the general data's replies state them (`core.words.result_facts`, six at most), then
    a full stop; `REPLY_OPENING` alone where no result is an object."""
    facts = []
    for text in results:
        content = _result_content(text)
        content = _json(content) if isinstance(content, str) else content
        if isinstance(content, dict) and content:
            facts += result_fact_parts(content)
    return REPLY_OPENING + "; ".join(facts[:6]) + "." if facts else REPLY_OPENING


def _result_content(text: str) -> Any:
    """A tool result read as JSON where it parses, the general format's `{"name", "content"}`
    turn unwrapped to its content."""
    if isinstance(content := _json(text), dict) and set(content) == {"name", "content"}:
        return content["content"]
    return content


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


for _name, _check in (("cut_off", cut_off), ("repeated", repeated), ("schema", schema),
                      ("grounded", grounded), ("uses_results", uses_results)):  # fmt: skip
    register_check(_name, _check)


class RepairLoop(repair_loop.RepairLoop):
    """The general format's loop: the named checks (`CHECKS`, in that order) with at most
    `budget` tries again per turn; `constrained`: whether the engine takes grammars (the
    schema, grounded and uses_results checks ask again under one). The default preset runs
    cut_off, schema, grounded and uses_results (`toollearn.policy`)."""

    def __init__(self, checks: Sequence[str] = ("cut_off", "schema"), budget: int = 2,
                 constrained: bool = True):  # fmt: skip
        super().__init__(checks, budget, constrained)


def note_message(fault: Fault, text: str) -> list[Message]:
    """The turns an engine without grammars reads before trying again: its answer, then the
    note."""
    return [Message("assistant", text), Message("user", fault.note or fault.detail)]


def _parsed(text: str) -> Any:
    try:
        return tool_calls.parse(text)
    except FormatError:
        return None


def _unclosed(text: str) -> bool:
    """A call list that never closed (the token budget ran out inside it)."""
    try:
        tool_calls.parse(text)
    except FormatError:
        return text.lstrip().startswith("[")
    return False
