"""Template query writing: a call becomes a clause, clauses become a request.

A call's clause is its tool's description turned into an imperative ("Retrieves the weather"
-> "retrieve the weather") followed by its argument values, each introduced by its parameter
name in one of several phrasings. A request is one of many sentence frames around the
clauses, joined by varied connectives. Every literal argument value is written verbatim, so
the "every value findable in the query" check holds by construction; a nested argument (the
output of an earlier call) is described by the response field's name instead of a value.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from toollearn.core.types import Ref, Tool, ToolCall
from toollearn.core.words import literal_text, param_words

SINGLE_FRAMES = (
    "{Clause}.",
    "Please {clause}.",
    "Can you {clause}?",
    "Could you {clause} for me?",
    "I need to {clause}.",
    "I'd like you to {clause}.",
    "Help me {clause}.",
    "I want to {clause}.",
    "Would you {clause}, please?",
    "My request: {clause}.",
    "Go ahead and {clause}.",
    "Kindly {clause}.",
)
CONNECTIVES = (
    ("First, {a}. Then {b}.", 2),
    ("{A}, and then {b}.", 2),
    ("{A}. After that, {b}.", 2),
    ("{A}. Also, {b}.", 2),
    ("Please {a}, and {b} as well.", 2),
    ("I need two things: {a}; and {b}.", 2),
    ("{A}. Once that is done, {b}.", 2),
    ("Could you {a}? Additionally, {b}.", 2),
)
LIST_FRAMES = (
    "Please do the following: {items}.",
    "I have a few tasks. {items}.",
    "Here is what I need: {items}.",
    "{items}.",
)
ARG_FRAMES = (
    "with {name} {value}",
    "where the {name} is {value}",
    "using {value} as the {name}",
    "for {name} {value}",
    "({name}: {value})",
    "setting the {name} to {value}",
)
NESTED_FRAMES = (
    "using the {field} from the previous step as the {name}",
    "with the {field} it returns as the {name}",
    "passing the resulting {field} as the {name}",
    "taking the {field} obtained above as the {name}",
)
_NOT_VERBS = {"this", "a", "an", "the", "tool", "api", "function", "service", "endpoint"}
# Verbs tool descriptions start with; a description starting with another word is a noun
# phrase ("Current weather of a city") and is introduced with "get".
_VERB_WORDS = """
access activate add adjust aggregate allocate allow analyse analyze apply approve archive
assess assign authenticate authorize automate block book browse build calculate calibrate
cancel capture categorize change check classify clean close collect command compare compile
compose compress compute conduct configure confirm connect control convert copy count create
customize decode decrease delete deploy describe design detect determine diagnose disable
discover display divide donate download draft drop edit enable encode encrypt end enhance
enroll enter establish estimate evaluate execute explain explore export extract fetch filter
find fix forecast format generate geocode get identify import improve increase initiate
insert inspect install interpret investigate invite join launch list load locate lock log
look lookup make manage map mark measure merge mint modify monitor move multiply notify
obtain open optimize order organize parse pay perform place plan play post predict prepare
print process provide publish purchase query rank rate read recognize recommend record redeem
reduce register remove rename render reorder repair replace report request reserve reset
resize resolve restore retrieve return reverse review round run save scale scan schedule
score search select send set share show sign simulate solve sort split stake start stop store
submit subscribe subtract suggest sum summarize sync test toggle track trade train transcribe
transfer transform translate turn unlock update upgrade upload validate verify view vote
write
"""
VERBS = frozenset(_VERB_WORDS.split())


def _base_form(word: str) -> str:
    """A third-person verb as its base form ("retrieves" -> "retrieve", "identifies" ->
    "identify", "searches" -> "search"); other words unchanged."""
    if len(word) <= 3 or word.endswith(("ss", "us", "is")) or not word.endswith("s"):
        return word
    forms = [word[:-3] + "y"] if word.endswith("ies") else []
    forms += [word[:-1], word[:-2]] if word.endswith("es") else [word[:-1]]
    return next((f for f in forms if f in VERBS), forms[0])


def imperative(description: str, tool_name: str) -> str:
    """A tool description as an imperative clause ("Retrieves X." -> "retrieve X")."""
    text = (description or param_words(tool_name)).strip().rstrip(".").strip()
    if not text:
        return f"call {param_words(tool_name)}"
    first, _, rest = text.partition(" ")
    if first.lower() in _NOT_VERBS:
        return f"use {param_words(tool_name)} ({text[:1].lower() + text[1:]})"
    verb = _base_form(first.lower())
    if verb not in VERBS:
        return f"get the {text[:1].lower() + text[1:]}"
    return f"{verb} {rest}".strip()


def plain_argument(name: str, value: Any, tool: Tool, rng: random.Random) -> str:
    """A literal argument named by its parameter's words, its value verbatim."""
    return rng.choice(ARG_FRAMES).format(name=param_words(name), value=literal_text(value))


ArgumentWriter = Callable[[str, Any, Tool, random.Random], str]


def argument_text(
    call: ToolCall,
    tool: Tool,
    rng: random.Random,
    producers: dict[str, tuple[str, str]],
    argument: ArgumentWriter = plain_argument,
) -> str:
    """The arguments of a call in words: literal values by `argument`, references described.
    producers: {response id: (tool name, response field)} of earlier calls."""
    parts = []
    for name, value in call.arguments.items():
        if isinstance(value, Ref) or (isinstance(value, str) and value in producers):
            ref = value.id if isinstance(value, Ref) else value
            field = param_words(producers.get(ref, ("", "result"))[1])
            parts.append(rng.choice(NESTED_FRAMES).format(field=field, name=param_words(name)))
        else:
            parts.append(argument(name, value, tool, rng))
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def clause(
    call: ToolCall,
    tool: Tool,
    rng: random.Random,
    producers: dict[str, tuple[str, str]],
    argument: ArgumentWriter = plain_argument,
) -> str:
    """One call as an imperative clause with its arguments."""
    args = argument_text(call, tool, rng, producers, argument)
    return f"{imperative(tool.description, tool.name)} {args}".strip()


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def request(clauses: Sequence[str], rng: random.Random) -> str:
    """One request around the clauses (a frame for one, a connective for two, a list above)."""
    if len(clauses) == 1:
        frame = rng.choice(SINGLE_FRAMES)
        return frame.format(clause=clauses[0], Clause=_cap(clauses[0]))
    if len(clauses) == 2 and rng.random() < 0.7:
        frame, _ = rng.choice(CONNECTIVES)
        a, b = clauses
        return frame.format(a=a, b=b, A=_cap(a))
    steps = ["First", "Next", "Then", "After that", "Also", "Finally"]
    items = []
    for i, c in enumerate(clauses):
        word = steps[-1] if i == len(clauses) - 1 else steps[min(i, len(steps) - 2)]
        items.append(f"{word}, {c}")
    return rng.choice(LIST_FRAMES).format(items=". ".join(items))


def clauses_of(
    calls: Sequence[ToolCall],
    tools: dict[str, Tool],
    rng: random.Random,
    argument: ArgumentWriter = plain_argument,
) -> list[str]:
    """Each call as a clause, refs to earlier calls described by their response fields."""
    producers: dict[str, tuple[str, str]] = {}
    out = []
    for call in calls:
        tool = tools[call.name]
        out.append(clause(call, tool, rng, producers, argument))
        fields = list(tool.responses) or ["result"]
        for rid, field in zip(call.responses, fields * len(call.responses)):
            producers[rid] = (tool.name, field)
    return out


def write_query(calls: Sequence[ToolCall], tools: dict[str, Tool], rng: random.Random) -> str:
    """A template request for a calling list (refs to earlier calls described in words)."""
    return request(clauses_of(calls, tools, rng), rng)


def literals(calls: Sequence[ToolCall], producers: set[str] = frozenset()) -> list[Any]:
    """Every literal value of a calling list (what the query must contain)."""
    out: list[Any] = []

    def walk(v: Any) -> None:
        if isinstance(v, Ref) or (isinstance(v, str) and v in producers):
            return
        if isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        else:
            out.append(v)

    for call in calls:
        for value in call.arguments.values():
            walk(value)
    return out
