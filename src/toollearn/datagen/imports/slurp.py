"""SLURP's text annotations converted into the imports' record format.

The raw data is ``dataset/slurp/{train,devel,test}.jsonl`` of github.com/pswietojanski/slurp
(text: CC BY 4.0): one spoken command a line, with ``slurp_id``, ``sentence``,
``sentence_annotation`` (slots written ``[type : value]``), ``scenario``, ``action`` and
``intent``. ``train_synthetic.jsonl`` (synthetic text) is never read. Each distinct command
(by ``slurp_id``, the first kept) becomes one record::

    {"id": "slurp/<split>/<slurp_id>", "source": "slurp", "split": "train"|"dev"|"test",
     "tools": [...], "messages": [user, assistant call]}

The intent is ``<scenario>_<action>`` (as SLURP's own evaluation forms it: a few lines' ``intent``
lacks the scenario prefix). Its tool, and every tool, comes from the hand-written
``slurp_schemas.json``; a record's tools are its intent's tool and the other tools of its
scenario, sorted by name. The call's arguments are the command's slots by type, each value the
sentence's own text of the slot: where the sentence writes it otherwise than the annotation
(case, or a respelling such as ``rihana`` / ``rihanna``) the slot's place is carried over onto
the sentence (``aligned_text``), and only where that fails is the annotation's text kept. Where
a type occurs twice the first is kept.
Commands of the ``no_call`` intents (chat, not an action) end with the user message and carry
``"no_call": true``; as their scenario has no tool, they are shown the tools of one scenario
of ``DISTRACTOR_SCENARIOS`` (picked by a hash of the record id), so the record asks a model to
answer without calling.

Only the standard library is used; the module has no command line (``convert`` is the API).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.datagen.imports.records import seeded_subset, write_jsonl_gz

SOURCE = "slurp"
RAW_FILES = {"train": "train.jsonl", "dev": "devel.jsonl", "test": "test.jsonl"}
SPLITS = tuple(RAW_FILES)
SCHEMAS_PATH = Path(__file__).with_name("slurp_schemas.json")
DISTRACTOR_SCENARIOS = ("alarm", "audio", "iot")
CLOSE = 0.6
_SLOT = re.compile(r"\[\s*([^\[\]:]+?)\s*:\s*([^\[\]]*?)\s*\]")

Record = dict[str, Any]
Tool = dict[str, Any]


@dataclass(frozen=True)
class Slot:
    """One annotated slot: its type, its annotated text and its span in the annotation's text."""

    type: str
    value: str
    start: int
    end: int


@dataclass(frozen=True)
class Schemas:
    """The hand-written tools by intent, and the intents that get no call."""

    tools: dict[str, Tool]
    no_call: frozenset[str]

    def knows(self, intent: str) -> bool:
        """Whether the intent has a tool or is a no-call intent."""
        return intent in self.tools or intent in self.no_call

    def scenario_tools(self, scenario: str) -> list[Tool]:
        """The tools of one scenario (intents named ``<scenario>_...``), sorted by name."""
        names = sorted(name for name in self.tools if name.split("_", 1)[0] == scenario)
        return [self.tools[name] for name in names]


def load_schemas(path: Path = SCHEMAS_PATH) -> Schemas:
    """The OpenAI function tools of ``slurp_schemas.json``, by intent."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    tools = {name: {"type": "function", "function": fn} for name, fn in doc["tools"].items()}
    return Schemas(tools=tools, no_call=frozenset(doc["no_call"]))


# --- one command --------------------------------------------------------------------------------


def intent_of(example: dict[str, Any]) -> str:
    """The command's intent as ``<scenario>_<action>``."""
    return f"{example['scenario']}_{example['action']}"


def parse_annotation(annotation: str) -> tuple[str, list[Slot]]:
    """The annotation's plain text (brackets and types removed) and its slots, in order."""
    parts: list[str] = []
    slots: list[Slot] = []
    length = 0
    last = 0
    for match in _SLOT.finditer(annotation):
        before = annotation[last : match.start()]
        parts.append(before)
        length += len(before)
        value = match.group(2)
        slots.append(Slot(match.group(1), value, length, length + len(value)))
        parts.append(value)
        length += len(value)
        last = match.end()
    parts.append(annotation[last:])
    return "".join(parts), slots


def slot_text(sentence: str, plain: str, slot: Slot) -> str | None:
    """The sentence's own text of a slot, or None where the sentence does not hold it.

    Where the annotation's text is the sentence (up to case), the slot's span is read from the
    sentence; else the slot's text is searched in the sentence, exactly, then ignoring case.
    """
    if plain == sentence or (len(plain) == len(sentence) and plain.lower() == sentence.lower()):
        return sentence[slot.start : slot.end]
    if slot.value in sentence:
        return slot.value
    at = sentence.lower().find(slot.value.lower())
    if at >= 0 and sentence[at : at + len(slot.value)].lower() == slot.value.lower():
        return sentence[at : at + len(slot.value)]
    return None


def aligned_text(sentence: str, plain: str, slot: Slot) -> str | None:
    """The sentence's text at the slot's place, where the sentence spells the words otherwise.

    The annotation's text is aligned with the sentence (``difflib``, ignoring case) and the
    slot's span carried over; kept only where it reads close to the slot (ratio >= ``CLOSE``),
    e.g. ``rihana`` -> ``rihanna``, ``@comcast`` -> ``comcast`` (a first or last word
    the alignment took in is let go where the rest reads closer).
    """
    matcher = difflib.SequenceMatcher(None, plain.lower(), sentence.lower(), autojunk=False)
    start = end = None
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if start is None and i1 <= slot.start < i2:
            start = j1 + (slot.start - i1) if tag == "equal" else j1
        if end is None and i1 <= slot.end - 1 < i2:
            end = j1 + (slot.end - i1) if tag == "equal" else j2
    if start is None or end is None:
        return None
    text = _trimmed(sentence[start:end].strip(), slot.value)
    return text if text and _closeness(text, slot.value) >= CLOSE else None


def _closeness(text: str, value: str) -> float:
    """How alike two texts read, ignoring case (``difflib`` ratio, 0 to 1)."""
    return difflib.SequenceMatcher(None, text.lower(), value.lower()).ratio()


def _trimmed(text: str, value: str) -> str:
    """The text less a first or last word while that makes it read closer to ``value``."""
    while " " in text:
        shorter = [text.split(" ", 1)[1], text.rsplit(" ", 1)[0]]
        best = max(shorter, key=lambda t: _closeness(t, value))
        if _closeness(best, value) <= _closeness(text, value):
            break
        text = best
    return text


@dataclass
class Arguments:
    """A command's call arguments, with the slots dropped, respelt or not found in its sentence."""

    values: dict[str, str]
    repeated: list[str] = field(default_factory=list)
    aligned: list[tuple[str, str]] = field(default_factory=list)
    unseen: list[str] = field(default_factory=list)


def call_arguments(example: dict[str, Any]) -> Arguments:
    """The slots of a command as arguments: the first of each type, as the sentence has it."""
    sentence = example["sentence"]
    plain, slots = parse_annotation(example["sentence_annotation"])
    args = Arguments({})
    for slot in slots:
        if slot.type in args.values:
            args.repeated.append(slot.type)
            continue
        text = slot_text(sentence, plain, slot)
        if text is None:
            text = aligned_text(sentence, plain, slot)
            if text is not None:
                args.aligned.append((slot.value, text))
        if text is None:
            args.unseen.append(slot.type)
            text = slot.value
        args.values[slot.type] = text
    return args


def distractor_tools(record_id: str, schemas: Schemas) -> list[Tool]:
    """The tools of one of ``DISTRACTOR_SCENARIOS``, picked by a hash of the record id."""
    digest = int(hashlib.sha256(record_id.encode("utf-8")).hexdigest(), 16)
    return schemas.scenario_tools(DISTRACTOR_SCENARIOS[digest % len(DISTRACTOR_SCENARIOS)])


def command_record(example: dict[str, Any], split: str, schemas: Schemas) -> Record:
    """One command as a record (see the module doc); KeyError for an intent with no tool."""
    intent = intent_of(example)
    record_id = f"{SOURCE}/{split}/{example['slurp_id']}"
    user = {"role": "user", "content": example["sentence"]}
    record: Record = {"id": record_id, "source": SOURCE, "split": split}
    if intent in schemas.no_call:
        record["tools"] = distractor_tools(record_id, schemas)
        record["messages"] = [user]
        record["no_call"] = True
        return record
    tool = schemas.tools[intent]
    arguments = call_arguments(example).values
    text = json.dumps(arguments, ensure_ascii=False)
    call = {"id": "call_0", "type": "function", "function": {"name": intent, "arguments": text}}
    record["tools"] = schemas.scenario_tools(example["scenario"]) or [tool]
    record["messages"] = [user, {"role": "assistant", "content": None, "tool_calls": [call]}]
    return record


# --- files --------------------------------------------------------------------------------------


def raw_dir(raw_root: Path) -> Path:
    """The folder of the jsonl files: ``raw_root/dataset/slurp`` in a checkout, else raw_root."""
    nested = raw_root / "dataset" / "slurp"
    return nested if nested.is_dir() else raw_root


def read_examples(path: Path) -> Iterator[dict[str, Any]]:
    """The commands of one jsonl file, each ``slurp_id`` once (its first line)."""
    seen: set[Any] = set()
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            example = json.loads(line)
            if example["slurp_id"] in seen:
                continue
            seen.add(example["slurp_id"])
            yield example


def _split_stats(examples: list[dict[str, Any]], schemas: Schemas) -> dict[str, Any]:
    """Counts over one split's commands: intents, slot types, repeated and unseen slots."""
    intents: Counter[str] = Counter()
    slot_types: Counter[str] = Counter()
    stats: Counter[str] = Counter()
    for example in examples:
        intent = intent_of(example)
        intents[intent] += 1
        if intent != example.get("intent"):
            stats["intent_field_differs"] += 1
        if intent in schemas.no_call:
            stats["no_call"] += 1
            continue
        args = call_arguments(example)
        slot_types.update(args.values.keys())
        stats["calls"] += 1
        stats["arguments"] += len(args.values)
        stats["sentences_with_repeated_slot_type"] += bool(args.repeated)
        stats["repeated_slots_dropped"] += len(args.repeated)
        stats["values_respelt_from_sentence"] += len(args.aligned)
        stats["values_not_in_sentence"] += len(args.unseen)
        properties = schemas.tools[intent]["function"]["parameters"]["properties"]
        stats["arguments_not_in_schema"] += sum(name not in properties for name in args.values)
    return {**stats, "intents": dict(sorted(intents.items())),
            "slot_types": dict(sorted(slot_types.items()))}  # fmt: skip


def convert(
    raw_root: Path,
    out_dir: Path,
    train_limit: int | None = None,
    seed: int = 0,
    schemas_path: Path = SCHEMAS_PATH,
) -> dict[str, Any]:
    """Convert the splits found under ``raw_root`` into ``out_dir/{split}.jsonl.gz``.

    A split whose file is absent is skipped (listed under ``missing``); commands of an intent
    with no tool are skipped and counted. ``train_limit`` keeps a seeded random subset of
    train. Returns the counts per split.
    """
    schemas = load_schemas(schemas_path)
    folder = raw_dir(Path(raw_root))
    counts: dict[str, Any] = {"missing": []}
    for split, name in RAW_FILES.items():
        path = folder / name
        if not path.is_file():
            counts["missing"].append(name)
            continue
        examples = list(read_examples(path))
        known = [e for e in examples if schemas.knows(intent_of(e))]
        kept = seeded_subset(known, train_limit if split == "train" else None, seed)
        records = [command_record(example, split, schemas) for example in kept]
        size = write_jsonl_gz(Path(out_dir) / f"{split}.jsonl.gz", records)
        counts[split] = {
            "commands": len(examples),
            "unknown_intent": len(examples) - len(known),
            "records": len(records),
            "bytes": size,
            **_split_stats(kept, schemas),
        }
    return counts
