"""alpha-UMi's multi-role format: planner / caller / summarizer prompts and their parsers.

History turns use alpha-UMi's role tags (user, assistant = planner, caller, observation,
conclusion). The planner writes a rationale ending in `Next: caller.`, `Next: conclusion.`
or `Next: give up.`; the caller writes `Action: <name>\\nAction Input: <json>`; the
summarizer writes the final answer. Prompts follow the paper's Appendix A; the single-LLM
(ReAct) baseline uses ToolBench's convention: `Thought: ...` then an action, or `Action: Finish`
with {"return_type": "give_answer" | "give_up_and_restart", "final_answer": ...}.

Constrained decoding (decoding.umi) keeps the released text: the planner writes its thought
freely up to `Next:`, then continues `plan_prefill(thought)` under a grammar choosing the role;
the caller writes `Action:`/`Action Input:` under a grammar over the tools. Long histories are
cut from the left (`fit_history`), keeping the prompt's head (instructions and tools), the
task and the latest turns, as alpha-UMi does.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Sequence
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
# The prompts' own format lines, echoed back by a model, are not actions.
_ECHO = re.compile(r"^(one of\b|the name of (the )?api\b|\[|\.\.\.|<)", re.IGNORECASE)
_ECHO_LINE = re.compile(r"To finish, use Action:|Action: one of \[|Action: the name of api",
                        re.IGNORECASE)  # fmt: skip
NEXT_MARK = "Next:"
# The thought every generated planner turn before `Next: conclusion` writes (datagen.umi).
CONCLUSION_THOUGHT = "I have all the information needed to answer."


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


def plan_prefill(thought: str) -> str:
    """The planner turn up to its role choice: the thought, then `Next: `."""
    return f"{thought.strip()} {NEXT_MARK} ".lstrip()


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


def render_action(call: ToolCall, tools: Sequence[Tool] = ()) -> str:
    """A caller turn: `Action: <name>\\nAction Input: <json>` (arguments in the tool's
    declared order, as the grammar writes them)."""
    from toollearn.formats.schemas import order_like_schema

    tool = next((t for t in tools if t.name == call.name), None)
    args = order_like_schema(call.arguments, tool.parameters) if tool else call.arguments
    return f"Action: {call.name}\nAction Input: {json.dumps(args, ensure_ascii=False)}"


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


def _action_match(text: str) -> re.Match | None:
    """The first `Action:` line that is not the prompt's instruction echoed back."""
    for m in _ACTION.finditer(text):
        name = m.group(1).strip()
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.start())
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        if name and not _ECHO.match(name) and not _ECHO_LINE.search(line):
            return m
    return None


def parse_action(text: str) -> ToolCall:
    """The call in a caller turn; FormatError when there is no `Action:` or bad input."""
    m = _action_match(text)
    if not m:
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
    m = _action_match(text)
    thought = text[: m.start()].strip() if m else text.strip()
    thought = re.sub(r"^Thought\s*:\s*", "", thought, flags=re.IGNORECASE)
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


def react_head(thought: str) -> str:
    """A single-LLM turn up to its action: `Thought: <thought>` and a newline."""
    thought = re.sub(r"^\s*Thought\s*:\s*", "", thought, flags=re.IGNORECASE)
    return f"Thought: {thought.strip()}\n"


def render_react(thought: str, action: str) -> str:
    """A single-LLM turn: `Thought: <thought>` then the action text (a call or Finish)."""
    return react_head(thought) + action


def fit_history(
    build: Callable[[Sequence[Message]], str],
    history: Sequence[Message],
    fits: Callable[[str], bool],
) -> tuple[list[Message], int]:
    """The longest suffix of `history` whose prompt `fits`, keeping the first (task) turn while
    anything else can go; returns (history, turns dropped). The prompt's head (instructions,
    tools) is `build`'s and always stays."""
    turns = list(history)
    if fits(build(turns)):
        return turns, 0
    head, rest = turns[:1], turns[1:]
    for cut in range(1, len(rest) + 1):
        if fits(build(head + rest[cut:])):
            return head + rest[cut:], cut
    return [], len(turns)  # even the task alone is too long: only the prompt's head is left


def single_history(history: Sequence[Message]) -> list[Message]:
    """Multi-role turns as single-LLM turns: each planner thought and the caller action after
    it become one assistant turn `Thought: ...\nAction: ...` (unreadable plans kept as they are)."""
    out: list[Message] = []
    thought: str | None = None
    for m in history:
        if m.role == "assistant":
            try:
                thought = parse_plan(m.content).thought
            except FormatError:
                out.append(m)
                thought = None
                continue
            out.append(Message("assistant", react_head(thought).rstrip("\n")))
        elif m.role == "caller" and thought is not None and out and out[-1].role == "assistant":
            out[-1] = Message("assistant", render_react(thought, m.content))
            thought = None
        else:
            out.append(m)
            thought = None
    return out
