"""What a retriever indexes: the text of a tool or a demonstration, a tokenizer, a content hash.

The indexed text is configurable (`IndexFields`) because it decides what a retriever can match:
Seal-Tools names are camelCase verbs (`getPostmodernTheory`), parameter descriptions carry
example values, ToolDEER tools have long model-facing descriptions.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from toollearn.core.errors import RetrievalError
from toollearn.core.types import Example, Tool

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[a-z0-9]+")

# A small English stop list (articles, pronouns, auxiliaries): enough for short tool texts.
_STOP_TEXT = """a an and are as at be been but by can could do does for from had has have how i if
in into is it its me my of on or our please should so than that the their them then there these
they this those to was we were what when where which who will with would you your"""
STOPWORDS = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True)
class IndexFields:
    """Which parts of a tool go into its indexed text (all on by default except examples).

    `examples` adds the tool's example queries (ToolDEER metadata["examples"]); it is off by
    default because benchmark test queries may be among them (they are in ToolDEER).
    """

    name: bool = True
    description: bool = True
    param_names: bool = True
    param_descriptions: bool = True
    category: bool = False
    examples: bool = False

    def to_dict(self) -> dict[str, bool]:
        return asdict(self)

    @classmethod
    def parse(cls, spec: str) -> IndexFields:
        """Fields from a comma list such as "name,description,param_names"."""
        names = {s.strip() for s in spec.split(",") if s.strip()}
        known = set(cls.__dataclass_fields__)
        unknown = names - known
        if unknown or not names:
            raise RetrievalError(
                f"unknown index fields {sorted(unknown)}; choose from {sorted(known)}"
            )
        return cls(**{k: k in names for k in known})


DEFAULT_FIELDS = IndexFields()


def split_identifier(name: str) -> str:
    """Identifier to words: getPostmodernTheory / get_postmodern_theory -> get Postmodern Theory."""
    return " ".join(_CAMEL.sub(" ", name.replace("_", " ").replace("-", " ")).split())


def tool_text(tool: Tool, fields: IndexFields = DEFAULT_FIELDS) -> str:
    """The text indexed for one tool (name words first, then description and parameters)."""
    parts: list[str] = []
    if fields.name:
        parts.append(split_identifier(tool.name))
    if fields.description and tool.description:
        parts.append(tool.description.strip())
    if fields.category and tool.category:
        parts.append(tool.category.replace("/", " "))
    for pname, spec in tool.properties.items():
        if fields.param_names:
            parts.append(split_identifier(pname))
        if fields.param_descriptions and isinstance(spec, dict) and spec.get("description"):
            parts.append(str(spec["description"]).strip())
    if fields.examples:
        for ex in tool.metadata.get("examples") or ():
            if isinstance(ex, dict) and ex.get("query"):
                parts.append(str(ex["query"]).strip())
    return " ".join(p for p in parts if p)


def example_text(example: Example) -> str:
    """The text indexed for a demonstration: its goal/query (SambaNova: similar goals)."""
    return example.query.strip()


def light_stem(token: str) -> str:
    """A conservative English suffix stripper (plural -s/-es/-ies, -ing, -ed)."""
    if len(token) <= 3 or token.isdigit():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("sses", "shes", "ches", "xes")):
        return token[:-2]
    if token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    if token.endswith("ing") and len(token) > 5:
        return token[:-3]
    if token.endswith("ed") and len(token) > 4:
        return token[:-2]
    return token


def tokenize(text: str, stem: bool = True) -> list[str]:
    """Lower-cased word tokens with camelCase split, stop words dropped, lightly stemmed."""
    words = _WORD.findall(_CAMEL.sub(" ", text).lower())
    out = [w for w in words if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]
    return [light_stem(w) for w in out] if stem else out


def content_hash(keys: Iterable[str], texts: Sequence[str], config: dict[str, Any]) -> str:
    """sha256 over item keys, indexed texts and the retriever config: changes iff the index must."""
    h = hashlib.sha256()
    h.update(json.dumps(config, sort_keys=True, default=str).encode())
    for key, text in zip(keys, texts, strict=True):
        h.update(b"\x1e" + key.encode() + b"\x1f" + text.encode())
    return h.hexdigest()
