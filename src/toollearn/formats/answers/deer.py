"""DEER's answer format: the decision-search / decision-call target, parsed and rendered.

Released targets look like
  `#Begin# Need to look up the API Pool. #SearchAPI# The API Pool including: [names], and the
  introduction and usage of each API is as follows: \\n{dict}\\n...{dict} #CallAPI# f(a=..)
  #APIResponse#  #End#`,
the same with `#NoCallAPI# There is no proper API ... #End#`, or the no-search answer
  `#Begin# Don't need to look up the API Pool, I can answer this question with my own
  knowledge. #End#`.
Pool dicts are read with `ast.literal_eval` and calls with `toollearn.formats.pycall` (never run).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from toollearn.core.errors import FormatError
from toollearn.core.types import Tool, ToolCall
from toollearn.formats.pycall import call_name, parse_call_lenient, render_call
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
    try:
        return parse_call_lenient(text, tool), ""
    except FormatError as exc:
        if name:
            return ToolCall(name=name), f"call arguments unreadable: {exc}"
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


def render_pool(pool_tools: Sequence[Tool]) -> str:
    """The '#SearchAPI# ...' pool text for these tools, as in the released targets."""
    names = [deer_pool_entry(t)["api_name"] for t in pool_tools]
    lines = "\n".join(repr(deer_pool_entry(t)) for t in pool_tools)
    return f"{SEARCH} {POOL_HEAD}{names!r}{POOL_MID}{lines}"


def render_deer(answer: DeerAnswer, pool_tools: Sequence[Tool] = ()) -> str:
    """Write a DEER answer in the released target format (pool from `pool_tools`)."""
    if not answer.search:
        return f"{BEGIN} {NO_SEARCH_TEXT} {END}"
    head = f"{BEGIN} {SEARCH_TEXT} {render_pool(pool_tools)}"
    if answer.call is None:
        return f"{head} {NOCALL} {NO_CALL_TEXT} {END}"
    return f"{head} {CALL} {render_call(answer.call)} {RESPONSE}  {END}"
