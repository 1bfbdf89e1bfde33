"""Schema-Guided Dialogue (SGD, DSTC8) converted into the imports' record format.

The raw data is the layout of github.com/google-research-datasets/dstc8-schema-guided-dialogue:
``{train,dev,test}/schema.json`` and ``{train,dev,test}/dialogues_NNN.json``, and SGD-X's variant
schemas under ``sgd_x/data/v{1..5}/{split}/schema.json``. Each dialogue becomes one record::

    {"id": "sgd/<split>/<dialogue_id>", "source": "sgd", "split": ..., "tools": [...],
     "messages": [...]}

``tools`` are OpenAI function tools, one per intent of every service of the dialogue (named by
the intent; prefixed by the service where two services of the dialogue share an intent name).
``messages`` follow the dialogue: a USER turn is a user message; a SYSTEM turn whose frames hold
a ``service_call`` is an assistant tool-call message, one tool message per call (the first
``MAX_RESULTS`` ``service_results`` as JSON) and the utterance as an assistant message; other
SYSTEM turns are the utterance alone. Every assistant text message carries ``acts`` (the turn's
dialogue act types) and, where the system requests slots, ``requested`` (their names).

Only the standard library is used; the module has no command line (``convert`` is the API).
"""

from __future__ import annotations

import gzip
import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

SOURCE = "sgd"
SPLITS = ("train", "dev", "test")
VARIANTS = ("v1", "v2", "v3", "v4", "v5")
MAX_RESULTS = 3
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_INTEGER = re.compile(r"^-?[0-9]+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{1,2}:\d{2}$")

Record = dict[str, Any]
Schemas = dict[str, dict[str, Any]]


# --- schemas -> tools -------------------------------------------------------------------------


def load_schemas(raw_root: Path, split: str) -> Schemas:
    """The services of ``<raw_root>/<split>/schema.json``, by service name."""
    services = json.loads((raw_root / split / "schema.json").read_text(encoding="utf-8"))
    return {service["service_name"]: service for service in services}


def slot_type(slot: dict[str, Any]) -> str:
    """``"integer"`` for a slot whose possible values are all integers, else ``"string"``."""
    values = slot.get("possible_values") or []
    if values and all(_INTEGER.match(value) for value in values):
        return "integer"
    return "string"


def typed(value: str, json_type: str) -> str | int:
    """A dataset value as the schema's JSON type (integers only where the text is one)."""
    if json_type == "integer" and _INTEGER.match(value):
        return int(value)
    return value


def slot_property(slot: dict[str, Any], default: str | None = None) -> dict[str, Any]:
    """The JSON-schema property of a slot: type, description, enum if categorical, default."""
    json_type = slot_type(slot)
    prop: dict[str, Any] = {"type": json_type, "description": slot["description"]}
    if slot.get("is_categorical"):
        prop["enum"] = [typed(value, json_type) for value in slot["possible_values"]]
    if default is not None:
        prop["default"] = typed(default, json_type)
    return prop


def intent_tool(service: dict[str, Any], intent: dict[str, Any], name: str) -> dict[str, Any]:
    """The OpenAI function tool of one intent: required slots, then optional ones."""
    slots = {slot["name"]: slot for slot in service["slots"]}
    properties = {name_: slot_property(slots[name_]) for name_ in intent["required_slots"]}
    for name_, default in intent["optional_slots"].items():
        properties[name_] = slot_property(slots[name_], default)
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": intent["description"],
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(intent["required_slots"]),
            },
        },
    }


def tool_names(services: Iterable[str], schemas: Schemas) -> dict[tuple[str, str], str]:
    """Each (service, intent) of a dialogue -> its tool name, unique within the dialogue."""
    pairs = [(s, intent["name"]) for s in services for intent in schemas[s]["intents"]]
    counts = Counter(intent for _, intent in pairs)
    names = {(s, i): (i if counts[i] == 1 else f"{s}_{i}") for s, i in pairs}
    for name in names.values():
        if not TOOL_NAME.match(name):
            raise ValueError(f"tool name {name!r} does not match {TOOL_NAME.pattern}")
    return names


def dialogue_tools(names: dict[tuple[str, str], str], schemas: Schemas) -> list[dict[str, Any]]:
    """The tools of a dialogue, in the order of its services and their intents."""
    tools = []
    for (service, intent_name), name in names.items():
        intent = next(i for i in schemas[service]["intents"] if i["name"] == intent_name)
        tools.append(intent_tool(schemas[service], intent, name))
    return tools


# --- dialogues -> messages ----------------------------------------------------------------------


def system_acts(turn: dict[str, Any]) -> dict[str, list[str]]:
    """A system turn's act types (in order, once each) and the slots its REQUEST acts name."""
    acts: list[str] = []
    requested: list[str] = []
    for frame in turn["frames"]:
        for action in frame.get("actions", []):
            if action["act"] not in acts:
                acts.append(action["act"])
            if action["act"] == "REQUEST" and action["slot"] not in requested:
                requested.append(action["slot"])
    extra: dict[str, list[str]] = {"acts": acts}
    if requested:
        extra["requested"] = requested
    return extra


def call_arguments(call: dict[str, Any], service: dict[str, Any]) -> dict[str, str | int]:
    """A service call's parameters typed as the tool's schema says."""
    types = {slot["name"]: slot_type(slot) for slot in service["slots"]}
    return {k: typed(v, types.get(k, "string")) for k, v in call["parameters"].items()}


def system_messages(
    turn: dict[str, Any],
    names: dict[tuple[str, str], str],
    schemas: Schemas,
    first_call: int,
) -> list[dict[str, Any]]:
    """The messages of one SYSTEM turn; call ids are numbered from ``first_call``."""
    calls, results = [], []
    for frame in turn["frames"]:
        if "service_call" not in frame:
            continue
        service, call = frame["service"], frame["service_call"]
        call_id = f"call_{first_call + len(calls)}"
        arguments = call_arguments(call, schemas[service])
        calls.append(
            {
                "id": call_id,
                "type": "function",
                "function": {
                    "name": names[(service, call["method"])],
                    "arguments": json.dumps(arguments, ensure_ascii=False),
                },
            }
        )
        content = json.dumps(frame.get("service_results", [])[:MAX_RESULTS], ensure_ascii=False)
        results.append({"role": "tool", "tool_call_id": call_id, "content": content})
    messages: list[dict[str, Any]] = []
    if calls:
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        messages.extend(results)
    messages.append({"role": "assistant", "content": turn["utterance"], **system_acts(turn)})
    return messages


def dialogue_record(dialogue: dict[str, Any], split: str, schemas: Schemas) -> Record:
    """One SGD dialogue as a record."""
    names = tool_names(dialogue["services"], schemas)
    messages: list[dict[str, Any]] = []
    n_calls = 0
    for turn in dialogue["turns"]:
        if turn["speaker"] == "USER":
            messages.append({"role": "user", "content": turn["utterance"]})
            continue
        turn_messages = system_messages(turn, names, schemas, n_calls)
        n_calls += sum(len(m.get("tool_calls") or []) for m in turn_messages)
        messages.extend(turn_messages)
    return {
        "id": f"{SOURCE}/{split}/{dialogue['dialogue_id']}",
        "source": SOURCE,
        "split": split,
        "tools": dialogue_tools(names, schemas),
        "messages": messages,
    }


def dialogue_files(raw_root: Path, split: str) -> list[Path]:
    """The split's ``dialogues_NNN.json`` files that are present, in order."""
    return sorted((raw_root / split).glob("dialogues_*.json"))


def split_records(raw_root: Path, split: str) -> Iterator[Record]:
    """Every dialogue of a split's present files as a record, in file order."""
    schemas = load_schemas(raw_root, split)
    for path in dialogue_files(raw_root, split):
        for dialogue in json.loads(path.read_text(encoding="utf-8")):
            yield dialogue_record(dialogue, split, schemas)


def seeded_subset(records: list[Record], limit: int | None, seed: int = 0) -> list[Record]:
    """At most ``limit`` records: a ``random.Random(seed)`` sample, kept in original order."""
    if limit is None or len(records) <= limit:
        return records
    keep = sorted(random.Random(seed).sample(range(len(records)), limit))
    return [records[i] for i in keep]


# --- call values ---------------------------------------------------------------------------------


def value_kind(value: str | int) -> str:
    """A rough kind of a call value, for reporting: date, time, number, boolean, dontcare, text."""
    text = str(value)
    if _DATE.match(text):
        return "date"
    if _TIME.match(text):
        return "time"
    if _INTEGER.match(text) or re.match(r"^-?\d+\.\d+$", text):
        return "number"
    if text in ("True", "False"):
        return "boolean"
    if text == "dontcare":
        return "dontcare"
    return "text"


def unseen_call_values(record: Record) -> Iterator[tuple[str, str, str | int]]:
    """(slot, kind, value) of each call argument not in the conversation before its call.

    The conversation is the user and assistant text so far, compared case-insensitively.
    """
    seen = ""
    for message in record["messages"]:
        if message["role"] in ("user", "assistant") and message.get("content"):
            seen += "\n" + message["content"].lower()
        for call in message.get("tool_calls") or []:
            for slot, value in json.loads(call["function"]["arguments"]).items():
                if str(value).lower() not in seen:
                    yield slot, value_kind(value), value


def call_stats(records: Iterable[Record]) -> dict[str, Any]:
    """Calls, argument values and those not found verbatim earlier in the conversation."""
    calls = values = 0
    unseen: Counter[str] = Counter()
    for record in records:
        for message in record["messages"]:
            for call in message.get("tool_calls") or []:
                calls += 1
                values += len(json.loads(call["function"]["arguments"]))
        unseen.update(kind for _, kind, _ in unseen_call_values(record))
    return {
        "calls": calls,
        "call_values": values,
        "unseen_values": sum(unseen.values()),
        "unseen_by_kind": dict(unseen.most_common()),
    }


# --- SGD-X variants ------------------------------------------------------------------------------


def _renamed(variant: dict[str, Any]) -> dict[str, str]:
    """The name and description of a variant's intent or slot."""
    return {"name": variant["name"], "description": variant["description"]}


def variant_maps(raw_root: Path) -> dict[str, list[dict[str, Any]]]:
    """Each original service -> its five SGD-X variants' intent and slot names and descriptions.

    Like SGD-X's own ``generate_sgdx_dialogues.py``, a variant schema is matched to the original
    by position (services, slots and intents are in the same order); a service met in several
    splits takes its first (train, dev, test). Empty if the variant schemas are absent.
    """
    maps: dict[str, list[dict[str, Any]]] = {}
    for index, version in enumerate(VARIANTS):
        for split in SPLITS:
            path = raw_root / "sgd_x" / "data" / version / split / "schema.json"
            if not path.exists():
                return {}
            originals = json.loads((raw_root / split / "schema.json").read_text(encoding="utf-8"))
            variants = json.loads(path.read_text(encoding="utf-8"))
            for original, variant in zip(originals, variants, strict=True):
                entries = maps.setdefault(original["service_name"], [])
                if len(entries) > index:
                    continue
                entries.append(service_variant(original, variant))
    return maps


def service_variant(original: dict[str, Any], variant: dict[str, Any]) -> dict[str, Any]:
    """One service's variant: its new name and description, intents' and slots' renamings."""
    pairs = zip(original["intents"], variant["intents"], strict=True)
    slot_pairs = zip(original["slots"], variant["slots"], strict=True)
    return {
        "service": {"name": variant["service_name"], "description": variant["description"]},
        "intents": {o["name"]: _renamed(v) for o, v in pairs},
        "slots": {o["name"]: _renamed(v) for o, v in slot_pairs},
    }


# --- files ---------------------------------------------------------------------------------------


def _gzip_bytes(text: str) -> bytes:
    """Deterministic gzip (no name, no time) so that equal content gives equal bytes."""
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def write_jsonl_gz(path: Path, records: Iterable[Record]) -> int:
    """Write records as gzip-compressed JSON Lines; returns the file's size in bytes."""
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _gzip_bytes(lines)
    path.write_bytes(data)
    return len(data)


def read_jsonl_gz(path: Path) -> list[Record]:
    """The records of a gzip-compressed JSON Lines file."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def convert(
    raw_root: Path,
    out_dir: Path,
    train_limit: int | None = None,
    seed: int = 0,
    splits: Iterable[str] = SPLITS,
    variants: bool = True,
) -> dict[str, Any]:
    """Convert the raw SGD files under ``raw_root`` into ``out_dir/{split}.jsonl.gz``.

    ``train_limit`` keeps a seeded random subset (``seed``) of the train dialogues; dev and test
    are kept whole. With ``variants``, SGD-X's renamings go to ``out_dir/variants.json.gz`` when
    the variant schemas are there. Returns counts per split (files, dialogues, records kept,
    calls, call values not seen before their call, bytes written).
    """
    raw_root, out_dir = Path(raw_root), Path(out_dir)
    counts: dict[str, Any] = {}
    for split in splits:
        records = list(split_records(raw_root, split))
        kept = seeded_subset(records, train_limit, seed) if split == "train" else records
        size = write_jsonl_gz(out_dir / f"{split}.jsonl.gz", kept)
        counts[split] = {
            "files": len(dialogue_files(raw_root, split)),
            "dialogues": len(records),
            "records": len(kept),
            **call_stats(kept),
            "bytes": size,
        }
    if variants:
        maps = variant_maps(raw_root)
        if maps:
            text = json.dumps(maps, ensure_ascii=False, sort_keys=True)
            path = out_dir / "variants.json.gz"
            path.write_bytes(_gzip_bytes(text))
            counts["variants"] = {"services": len(maps), "bytes": path.stat().st_size}
    return counts
