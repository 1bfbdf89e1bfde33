"""DEER's answer format: the decision-search / decision-call target, parsed and rendered.

Released targets look like
  `#Begin# Need to look up the API Pool. #SearchAPI# The API Pool including: [names], and the
  introduction and usage of each API is as follows: \\n{dict}\\n...{dict} #CallAPI# f(a=..)
  #APIResponse#  #End#`,
the same with `#NoCallAPI# There is no proper API ... #End#`, or the no-search answer
  `#Begin# Don't need to look up the API Pool, I can answer this question with my own
  knowledge. #End#`.
Pool dicts are read with `ast.literal_eval` and calls with `toollearn.formats.pycall` (never run).

Serving the released format: the prompt is the bare query (`render_messages`); the model writes
`#Begin# Need to look up the API Pool. #SearchAPI#` or the no-search answer; the agent then
appends the pool text and the model continues with ` #CallAPI# f(...) #APIResponse#` or
` #NoCallAPI# ... #End#`; the agent appends the tool's response and `#End#`. `segments` splits a
target into the pieces the model writes and the pieces the agent inserts, so a training sample
puts loss exactly where the model writes. Tools whose names are not Python identifiers are
shown and called under an alias (`pool_tools`); `parse_deer` maps the alias back.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from toollearn.core.errors import FormatError
from toollearn.core.types import Message, Tool, ToolCall
from toollearn.formats.pycall import (
    call_name,
    callable_alias,
    in_declared_order,
    parse_call_lenient,
    render_call,
)
from toollearn.formats.schemas.tooldeer import deer_pool_entry

BEGIN, SEARCH, CALL, RESPONSE, NOCALL, END = (
    "#Begin#", "#SearchAPI#", "#CallAPI#", "#APIResponse#", "#NoCallAPI#", "#End#",
)  # fmt: skip
NO_SEARCH_TEXT = (
    "Don't need to look up the API Pool, I can answer this question with my own knowledge."
)
SEARCH_TEXT = "Need to look up the API Pool."
NO_CALL_TEXT = "There is no proper API and I need to answer this question with my own knowledge."
POOL_HEAD = "The API Pool including: "
POOL_MID = ", and the introduction and usage of each API is as follows: \n"
SEARCH_SPAN = f"{BEGIN} {SEARCH_TEXT} {SEARCH}"
NO_SEARCH_SPAN = f"{BEGIN} {NO_SEARCH_TEXT} {END}"
NO_CALL_SPAN = f" {NOCALL} {NO_CALL_TEXT} {END}"
_POOL_NAMES = re.compile(re.escape(POOL_HEAD) + r"(\[.*?\])" + re.escape(POOL_MID[:-1]), re.S)


@dataclass(frozen=True)
class DeerAnswer:
    """A parsed DEER answer.

    search: Decision-Search (False = answer from own knowledge). call: the chosen call, None for
    NoCall/NoSearch. pool: the pool's names as listed (ToolDEER api_names). text: the raw text.
    error: non-empty when the call decision could not be read completely (e.g. no #CallAPI# /
    #NoCallAPI# after #SearchAPI#, or a call whose arguments are unreadable; then `call` keeps
    the name only when that much is readable).
    """

    search: bool
    call: ToolCall | None
    pool: tuple[str, ...] = ()
    text: str = ""
    error: str = ""

    @property
    def decision(self) -> str:
        """'NoSearch', 'NoCall' or 'Call' (the DEER sample types)."""
        if not self.search:
            return "NoSearch"
        return "Call" if self.call is not None else "NoCall"


def _pool_names(text: str) -> tuple[str, ...]:
    m = _POOL_NAMES.search(text)
    if not m:
        return ()
    try:
        names = ast.literal_eval(m.group(1))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return ()
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        return tuple(names)
    return ()


def _read_call(segment: str, tools: Sequence[Tool]) -> tuple[ToolCall | None, str]:
    """The call after #CallAPI# (up to #APIResponse#/#End#) and an error text if unreadable."""
    text = re.split(re.escape(RESPONSE) + "|" + re.escape(END), segment, maxsplit=1)[0].strip()
    name = call_name(text)
    tool = next((t for t in tools if t.name == name), None)
    alias = next((a for a in map(callable_alias, tools) if a.name == name), None)
    real = tool.name if tool else alias.metadata.get("alias_of", alias.name) if alias else name
    try:
        call = parse_call_lenient(text, tool or alias)
        return ToolCall(real or call.name, call.arguments), ""
    except FormatError as exc:
        if name:
            return ToolCall(name=real or name), f"call arguments unreadable: {exc}"
        return None, f"no call after {CALL}: {exc}"


def parse_deer(text: str, tools: Sequence[Tool] = ()) -> DeerAnswer:
    """Read the decisions (and the call) from a DEER answer; FormatError if none is readable."""
    if not isinstance(text, str):
        raise FormatError(f"DEER answer must be a string, got {type(text).__name__}")
    if SEARCH in text:
        pool = _pool_names(text)
        after = text.split(SEARCH, 1)[1]
        i_call, i_no = after.find(CALL), after.find(NOCALL)
        if i_call >= 0 and (i_no < 0 or i_call < i_no):
            call, error = _read_call(after[i_call + len(CALL) :], tools)
            return DeerAnswer(True, call, pool, text, error)
        if i_no >= 0:
            return DeerAnswer(True, None, pool, text)
        return DeerAnswer(True, None, pool, text, f"no {CALL} or {NOCALL} after {SEARCH}")
    if CALL in text:  # a call without the search marker still decides both
        call, error = _read_call(text.split(CALL, 1)[1], tools)
        return DeerAnswer(True, call, (), text, error)
    if NOCALL in text:
        return DeerAnswer(True, None, (), text)
    if END in text or "Don't need to look up" in text:
        return DeerAnswer(False, None, (), text)
    raise FormatError(f"no DEER decision marker in answer: {text[:80]!r}")


def render_messages(query: str) -> list[Message]:
    """The prompt of the released format: the user's query, nothing else."""
    return [Message("user", query)]


def pool_tools(tools: Sequence[Tool]) -> list[Tool]:
    """The pool as the model sees and calls it: tools with non-identifier names aliased."""
    return [callable_alias(t) for t in tools]


def pool_text(tools: Sequence[Tool]) -> str:
    """What the agent inserts after `#SearchAPI#`: the pool's names and one dict per tool."""
    shown = pool_tools(tools)
    names = [deer_pool_entry(t)["api_name"] for t in shown]
    lines = "\n".join(repr(deer_pool_entry(t)) for t in shown)
    return f" {POOL_HEAD}{names!r}{POOL_MID}{lines}"


def call_span(call: ToolCall, tools: Sequence[Tool] = ()) -> str:
    """What the model writes to call a pool tool (alias name, arguments in declared order)."""
    tool = next((t for t in tools if t.name == call.name), None)
    shown = callable_alias(tool) if tool else None
    name = shown.name if shown else call.name
    ordered = in_declared_order(ToolCall(name, call.arguments), shown)
    return f" {CALL} {render_call(ordered)} {RESPONSE}"


def response_span(response: str = "") -> str:
    """What the agent inserts after `#APIResponse#`: the tool's response and `#End#`."""
    return f" {response} {END}"


def segments(
    answer: DeerAnswer, pool: Sequence[Tool] = (), response: str = ""
) -> list[tuple[str, bool]]:
    """The answer as (text, written by the model) pieces, in order."""
    if not answer.search:
        return [(NO_SEARCH_SPAN, True)]
    head = [(SEARCH_SPAN, True), (pool_text(pool), False)]
    if answer.call is None:
        return [*head, (NO_CALL_SPAN, True)]
    return [*head, (call_span(answer.call, pool), True), (response_span(response), False)]


def cut_model_turn(text: str) -> str:
    """What the model wrote up to the end of its stage: through the first `#APIResponse#` or
    `#End#` (a free model may go on inventing a response or a pool)."""
    ends = [i + len(m) for m in (RESPONSE, END) if (i := text.find(m)) >= 0]
    if SEARCH in text and not ends:
        ends = [text.find(SEARCH) + len(SEARCH)]
    return text[: min(ends)] if ends else text


def render_deer(answer: DeerAnswer, pool: Sequence[Tool] = (), response: str = "") -> str:
    """Write a DEER answer in the released target format (the pool shown from `pool`)."""
    return "".join(text for text, _ in segments(answer, pool, response))


def render_target(
    answer: DeerAnswer, pool: Sequence[Tool] = ()
) -> tuple[str, list[tuple[int, int]]]:
    """The target text and the character spans the model writes (its loss spans)."""
    text, spans = "", []
    for piece, by_model in segments(answer, pool):
        if by_model:
            spans.append((len(text), len(text) + len(piece)))
        text += piece
    return text, spans


# The zero-shot option (`DecisionAgent(prompting="zero-shot")`): three questions of our own for
# a model never trained on the released format; the pool is shown as in the released format.
ZERO_SHOT_SEARCH = (
    "You can answer a question from your own knowledge, or use an external API (a tool).\n"
    "A tool is needed for live or personal data, a specific online service, or an action "
    "(search a database, book, translate, convert, look up a record). General knowledge, "
    "advice, writing and chit-chat need no tool.\n"
    "Question: {query}\nDoes this question need a tool? Answer Yes or No."
)
ZERO_SHOT_CALL = (
    "Question: {query}\nAvailable APIs:{pool}\n"
    "Can one of these APIs answer the question? Reply with the name of the API that fits, "
    "or None if no API fits."
)
ZERO_SHOT_ARGS = (
    "Question: {query}\nAPI: {name}: {description}\nUsage: {signature}\n"
    "Write the Python call of {name} that answers the question, with keyword arguments "
    "whose values come from the question. Reply with the call only."
)
NONE = "None"


def zero_shot_call_prompt(query: str, tools: Sequence[Tool]) -> str:
    """The zero-shot Decision-Call question over the pool."""
    return ZERO_SHOT_CALL.format(query=query, pool=pool_text(tools))


def zero_shot_args_prompt(query: str, tool: Tool) -> str:
    """The zero-shot question asking for the chosen tool's call (under its alias)."""
    from toollearn.formats.schemas.python_sig import tool_to_signature

    shown = callable_alias(tool)
    signature = shown.metadata.get("signature") or tool_to_signature(shown)
    return ZERO_SHOT_ARGS.format(query=query, name=shown.name, description=tool.description,
                                 signature=signature)  # fmt: skip


def read_zero_shot_call(text: str, tool: Tool) -> tuple[ToolCall | None, str]:
    """The chosen tool's call in a zero-shot answer (found by its shown name, read up to the
    matching parenthesis, never run) and an error text when it cannot be read."""
    alias = callable_alias(tool)
    m = re.search(rf"\b{re.escape(alias.name)}\s*\(", text)
    snippet = _balanced_call(text, m.start()) if m else text
    try:
        parsed = parse_call_lenient(snippet, alias)
    except FormatError as exc:
        return None, str(exc)
    return ToolCall(tool.name, parsed.arguments), ""


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
