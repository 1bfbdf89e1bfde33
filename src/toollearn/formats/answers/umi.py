"""alpha-UMi's multi-role format: planner / caller / summarizer prompts and their parsers.

History turns use alpha-UMi's role tags (user, assistant = planner, caller, observation,
conclusion). The planner writes a rationale ending in `Next: caller.`, `Next: conclusion.`
or `Next: give up.`; the caller writes `Action: <name>\\nAction Input: <json>`; the
summarizer writes the final answer. Prompts follow the paper's Appendix A; the single-LLM
(ReAct) baseline uses ToolBench's convention: an action, or `Action: Finish` with
{"return_type": "give_answer" | "give_up_and_restart", "final_answer": ...}.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.core.types import Message, Tool, ToolCall

ROLES = ("user", "assistant", "caller", "observation", "conclusion")
NEXT_OPTIONS = ("caller", "conclusion", "give up")
FINISH = "Finish"

# "Next: caller or conclusion or give up" is the prompt's instruction echoed back, not a choice.
_NEXT = re.compile(
    r"Next\s*:\s*(caller|conclusion|summarizer|give\s*up)\b\.?(?!\s*(?:or|/|,)\s)", re.IGNORECASE
)
_ACTION = re.compile(r"Action\s*:\s*([^\n]*?)\s*(?:\n|Action Input|$)", re.IGNORECASE)
_ACTION_INPUT = re.compile(r"Action Input\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Plan:
    """A parsed planner turn: its rationale and the chosen next role (one of NEXT_OPTIONS)."""

    thought: str
    next: str


def tool_doc(tool: Tool) -> dict[str, Any]:
    """A tool as alpha-UMi/ToolBench documents it: {"Name", "function", "input"}."""
    from toollearn.formats.schemas.toolbench import tool_to_toolbench

    return tool_to_toolbench(tool)


def render_doc(tools: Sequence[Tool]) -> str:
    """The `{doc}` block of the prompts: one JSON tool document per line."""
    return "\n".join(json.dumps(tool_doc(t), ensure_ascii=False) for t in tools)


def render_history(turns: Sequence[Message]) -> str:
    """The `{history}` block: one `Role: text` paragraph per turn (assistant = planner)."""
    return "\n".join(f"{m.role.capitalize()}: {m.content}" for m in turns)


def planner_prompt(tools: Sequence[Tool], history: Sequence[Message]) -> str:
    """Appendix A.1: plan the next step and name whose turn it is."""
    return (
        f"You have access to the following apis:\n{render_doc(tools)}\n"
        f"The conversation history is:\n{render_history(history)}\n"
        "You are the assistant to plan what to do next and whether is caller's or "
        "conclusion's turn to answer.\nAnswer with a following format:\n"
        "The thought of the next step, followed by Next: caller or conclusion or give up."
    )


def caller_prompt(tools: Sequence[Tool], history: Sequence[Message], thought: str) -> str:
    """Appendix A.2: turn the planner's thought into one API call."""
    names = ", ".join(t.name for t in tools)
    return (
        f"You have access to the following apis:\n{render_doc(tools)}\n"
        f"The conversation history is:\n{render_history(history)}\n"
        f"The thought of this step is:\n{thought}\n"
        "Base on the thought make an api call in the following format:\n"
        "Action: the name of api that should be called in this step, should be exactly in "
        f"[{names}],\nAction Input: the api call request."
    )


def summarizer_prompt(history: Sequence[Message]) -> str:
    """Appendix A.3: write the final answer from the history."""
    return f"Make a conclusion based on the conversation history:\n{render_history(history)}"


def react_prompt(tools: Sequence[Tool], history: Sequence[Message]) -> str:
    """The single-LLM baseline: thought plus either an action or a Finish action."""
    names = ", ".join([*(t.name for t in tools), FINISH])
    return (
        f"You have access to the following apis:\n{render_doc(tools)}\n"
        f"The conversation history is:\n{render_history(history)}\n"
        "Think about the next step, then answer in this format:\n"
        f"Thought: ...\nAction: one of [{names}]\nAction Input: the JSON arguments. To finish, "
        'use Action: Finish with Action Input: {"return_type": "give_answer", '
        '"final_answer": "..."} (or "give_up_and_restart").'
    )


def render_plan(thought: str, next_role: str) -> str:
    """A planner turn in the released format: `<thought> Next: <role>.`"""
    if next_role not in NEXT_OPTIONS:
        raise ValueError(f"next role must be one of {NEXT_OPTIONS}, not {next_role!r}")
    return f"{thought.strip()} Next: {next_role}.".lstrip()


def parse_plan(text: str) -> Plan:
    """The rationale and the LAST `Next: ...` choice; FormatError if none is written."""
    matches = list(_NEXT.finditer(text))
    if not matches:
        raise FormatError(f"planner output has no 'Next: caller/conclusion/give up': {text!r:.120}")
    last = matches[-1]
    choice = re.sub(r"\s+", " ", last.group(1).lower())
    choice = "conclusion" if choice == "summarizer" else choice
    return Plan(thought=text[: last.start()].strip(), next=choice)


def render_action(call: ToolCall) -> str:
    """A caller turn: `Action: <name>\\nAction Input: <json>`."""
    return f"Action: {call.name}\nAction Input: {json.dumps(call.arguments, ensure_ascii=False)}"


def _load_args(text: str) -> dict[str, Any]:
    text = text.strip()
    if not text:
        return {}
    start, end = text.find("{"), text.rfind("}")
    candidates = [text] + ([text[start : end + 1]] if 0 <= start < end else [])
    for snippet in candidates:
        for loader in (json.loads, ast.literal_eval):
            try:
                value = loader(snippet)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            if isinstance(value, str):  # a JSON string holding JSON (seen in released data)
                return _load_args(value) if value.strip() != text else {}
            if isinstance(value, dict):
                return value
    raise FormatError(f"Action Input is not a JSON object: {text!r:.120}")


def parse_action(text: str) -> ToolCall:
    """The call in a caller turn; FormatError when there is no `Action:` or bad input."""
    m = _ACTION.search(text)
    if not m or not m.group(1).strip():
        raise FormatError(f"caller output has no 'Action: <name>': {text!r:.120}")
    name = m.group(1).strip().strip(" ,.\"'`")
    rest = text[m.end(1) :]
    inp = _ACTION_INPUT.search(rest)
    args = _load_args(rest[inp.end() :]) if inp else {}
    return ToolCall(name=name, arguments=args)


@dataclass(frozen=True)
class ReactStep:
    """A parsed single-LLM turn: thought, then a call or a finish (answer or give up)."""

    thought: str
    call: ToolCall | None = None
    finish: str | None = None  # "give_answer" | "give_up_and_restart"
    answer: str = ""


def parse_react(text: str) -> ReactStep:
    """Parse a single-LLM turn; `Action: Finish` ends the episode."""
    m = _ACTION.search(text)
    thought = text[: m.start()].strip() if m else text.strip()
    call = parse_action(text)
    if call.name.lower() != FINISH.lower():
        return ReactStep(thought, call=call)
    kind = str(call.arguments.get("return_type", "give_answer"))
    finish = "give_up_and_restart" if "give_up" in kind else "give_answer"
    return ReactStep(thought, finish=finish, answer=str(call.arguments.get("final_answer", "")))


def render_react_finish(answer: str, give_up: bool = False) -> str:
    """The Finish action text of the single-LLM format."""
    kind = "give_up_and_restart" if give_up else "give_answer"
    args = {"return_type": kind, "final_answer": answer}
    return f"Action: {FINISH}\nAction Input: {json.dumps(args, ensure_ascii=False)}"
