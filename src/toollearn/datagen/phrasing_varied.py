"""Varied template queries, shaped like the Seal-Tools dev split's (measured there, never on a
test split): the plain templates (datagen.phrasing) name every value by its parameter's words,
never quote a value, write dates as the calls do (2022-05-01) and join most lists with
"First, ... Next, ... Finally, ...". In dev, 38% of the string values that a query states are
introduced by their parameter's words, 25% are quoted, 101 of its 3,354 values are ISO dates the
query writes otherwise (mostly in words: "May 1, 2022"), and 12% of the queries say "First,".
So this writer:

- introduces a value by its parameter's words (45%), by its description's noun phrase ("the
  unique identifier of the neonate", 40%) or by no name at all ("for 'Oslo'", 15%);
- quotes a string value in a quarter of the cases ('sales_data', "Project Infinite");
- writes an ISO date in words in 60% of the cases (May 1, 2022 / 1 May 2022 / May 1st, 2022),
  the call keeping the ISO form (so the model learns the transformation);
- joins a list as sentences ("Please ... Then, ... Additionally, I would like to ... Lastly,
  ...") for 60% of the lists, the plain frames otherwise.

Nested arguments are described as in the plain templates (`phrasing.clauses_of` with this
module's argument writer). `values.spoken_forms` lists the ways a
value may be written, which is what the instance check accepts.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from toollearn.core.types import Tool, ToolCall
from toollearn.core.words import literal_text, param_words
from toollearn.datagen.phrasing import ARG_FRAMES, VERBS, _cap, clauses_of, request
from toollearn.datagen.values import date_words

NAME = "templates-varied"
P_PARAM_WORDS, P_DESCRIPTION = 0.45, 0.40  # else no name
P_QUOTE = 0.25
P_DATE_WORDS = 0.6
P_SENTENCES = 0.6

NAMED_FRAMES = (*ARG_FRAMES, "with {a} {name} of {value}", "with the {name} being {value}",
                "where the {name} should be {value}")  # fmt: skip
UNNAMED_FRAMES = ("for {value}", "on {value}", "about {value}", "with {value}")
FIRST = ("Please {c}.", "I need to {c}.", "I would like to {c}.", "Can you {c}?", "{C}.",
         "Could you {c}?", "Help me {c}.", "I want to {c}.")  # fmt: skip
MIDDLE = ("Then, {c}.", "After that, please {c}.", "Additionally, I would like to {c}.",
          "Also, {c}.", "Next, {c}.", "Then I need to {c}.", "Moreover, please {c}.",
          "Once that is done, {c}.")  # fmt: skip
LAST = ("Finally, {c}.", "Lastly, {c}.", "Finally, I would like to {c}.", "Lastly, please {c}.",
        "Also, {c}.", "And please {c}.")  # fmt: skip
_ARTICLE = re.compile(r"^(the|a|an)\s+", re.IGNORECASE)


def value_text(value: Any, rng: random.Random) -> str:
    """A literal value as a query states it: a date sometimes in words, a string sometimes
    quoted, anything else as the plain templates write it."""
    dates = date_words(value)
    if dates and rng.random() < P_DATE_WORDS:
        return rng.choice(dates)
    text = literal_text(value)
    if isinstance(value, str) and rng.random() < P_QUOTE:
        quote = "'" if rng.random() < 0.7 else '"'
        return f"{quote}{text}{quote}"
    return text


def description_phrase(spec: Any) -> str:
    """A parameter's description as a short noun phrase ("The name of the film (e.g., ...)" ->
    "name of the film"); "" when it is missing or longer than 8 words."""
    text = spec.get("description", "") if isinstance(spec, dict) else ""
    text = str(text).split("(")[0].strip().rstrip(".").strip()
    text = _ARTICLE.sub("", text)
    if not text or len(text.split()) > 8 or text.split()[0].lower() in VERBS:
        return ""  # too long, or an instruction ("Enter the ...") rather than a noun phrase
    return text[:1].lower() + text[1:]


def _argument(name: str, value: Any, tool: Tool, rng: random.Random) -> str:
    draw = rng.random()
    phrase = description_phrase(tool.properties.get(name))
    if draw >= P_PARAM_WORDS + P_DESCRIPTION:
        return rng.choice(UNNAMED_FRAMES).format(value=value_text(value, rng))
    words = phrase if draw >= P_PARAM_WORDS and phrase else param_words(name)
    article = "an" if words[:1].lower() in "aeiou" else "a"
    return rng.choice(NAMED_FRAMES).format(name=words, a=article, value=value_text(value, rng))


def sentences(clauses: Sequence[str], rng: random.Random) -> str:
    """A list of clauses as sentences: a request, then continuations, then a closing one."""
    out = [rng.choice(FIRST).format(c=clauses[0], C=_cap(clauses[0]))]
    out += [rng.choice(MIDDLE).format(c=c) for c in clauses[1:-1]]
    out.append(rng.choice(LAST).format(c=clauses[-1]))
    return " ".join(out)


def write_query_varied(
    calls: Sequence[ToolCall], tools: dict[str, Tool], rng: random.Random
) -> str:
    """A varied template request for a calling list (refs to earlier calls in words)."""
    clauses = clauses_of(calls, tools, rng, _argument)
    if len(clauses) > 1 and rng.random() < P_SENTENCES:
        return sentences(clauses, rng)
    return request(clauses, rng)


write_query_varied.name = NAME  # type: ignore[attr-defined]
