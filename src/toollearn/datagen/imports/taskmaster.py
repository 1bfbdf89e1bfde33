"""Taskmaster-4 (coffee ordering with API calls) converted into the imports' record format.

The raw data is ``TM-4-2024/data/data_NN.json`` of github.com/google-research-datasets/Taskmaster
(CC BY 4.0): a JSON list of dialogues, each with ``conversation_id`` and ``utterances``
(``index``, ``speaker`` "user" | "assistant", ``text``, ``annotations``). A user utterance's
annotations hold the API calls made after it, in order: ``api_call`` (the API's name) and
``request`` (its arguments as a JSON object) under context ``api_call_N``, then ``api_response``
and ``response`` (the result as JSON) under ``api_response_N``; a call's arguments often take an
id that an earlier response gave (a chain of dependent calls). Each dialogue becomes one record::

    {"id": "taskmaster4/<split>/<conversation_id>", "source": "taskmaster4", "split": ...,
     "tools": [...], "messages": [...]}

``messages`` follow the dialogue: each utterance as a user or assistant message, and after a
user utterance each of its calls as an assistant tool-call message (one call, ``call_<k>``
numbered over the dialogue) followed by the tool message with the response. Requests and
responses are re-serialised from their parsed JSON (values untouched); a call with no request
has ``{}``. A dialogue with a request or response that is not JSON is skipped and counted.
``tools`` are the eight APIs of the hand-written ``taskmaster4_tools.json`` (the dataset ships
no API definitions). TM-4 defines no splits: a dialogue's split is drawn from the sha256 of its
id (``split_of``: 80% train, 10% dev, 10% test).

Only the standard library is used; the module has no command line (``convert`` is the API).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toollearn.datagen.imports.records import seeded_subset, write_jsonl_gz

SOURCE = "taskmaster4"
SPLITS = ("train", "dev", "test")
TOOLS_PATH = Path(__file__).with_name("taskmaster4_tools.json")

Record = dict[str, Any]
Message = dict[str, Any]


class Unreadable(Exception):
    """A dialogue this converter cannot read (a request or response that is not JSON)."""


def load_tools(path: Path = TOOLS_PATH) -> list[dict[str, Any]]:
    """The OpenAI function tools of ``taskmaster4_tools.json``."""
    return json.loads(path.read_text(encoding="utf-8"))["tools"]


def split_of(conversation_id: str) -> str:
    """The dialogue's split by the sha256 of its id: 0-7 train, 8 dev, 9 test (mod 10)."""
    bucket = int(hashlib.sha256(conversation_id.encode("utf-8")).hexdigest(), 16) % 10
    return "train" if bucket < 8 else "dev" if bucket == 8 else "test"


def parse_json(text: str) -> Any:
    """A request or response's JSON (control characters inside strings allowed)."""
    try:
        return json.loads(text, strict=False)
    except ValueError as exc:
        raise Unreadable(f"not JSON: {text[:60]!r}") from exc


def dumps(value: Any) -> str:
    """JSON text of a parsed value, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False)


# --- one dialogue -------------------------------------------------------------------------------


def utterance_calls(utterance: dict[str, Any]) -> list[tuple[str, dict[str, Any], Any]]:
    """The calls after an utterance, in order: (API name, arguments, parsed response)."""
    calls: dict[str, dict[str, Any]] = {}
    for note in utterance.get("annotations", []):
        kind, _, number = note["context"].rpartition("_")
        entry = calls.setdefault(number, {})
        if note["name"] == "api_call" and kind == "api_call":
            entry["name"] = note["value"]
        elif note["name"] == "request":
            entry["request"] = note["value"]
        elif note["name"] == "response":
            entry["response"] = note["value"]
    out = []
    for entry in calls.values():
        if "name" not in entry or "response" not in entry:
            raise Unreadable("a call without its name or its response")
        arguments = parse_json(entry.get("request") or "{}")
        if not isinstance(arguments, dict):
            raise Unreadable("a request that is not a JSON object")
        out.append((entry["name"], arguments, parse_json(entry["response"])))
    return out


def call_messages(name: str, arguments: dict[str, Any], response: Any, k: int) -> list[Message]:
    """An assistant tool-call message and the tool message with its response."""
    call_id = f"call_{k}"
    call = {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": dumps(arguments)}}  # fmt: skip
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": dumps(response)},
    ]


def dialogue_messages(dialogue: dict[str, Any]) -> list[Message]:
    """The dialogue's messages in order (see the module doc)."""
    messages: list[Message] = []
    k = 0
    for utterance in sorted(dialogue["utterances"], key=lambda u: u["index"]):
        role = "user" if utterance["speaker"] == "user" else "assistant"
        messages.append({"role": role, "content": utterance["text"]})
        for name, arguments, response in utterance_calls(utterance):
            messages.extend(call_messages(name, arguments, response, k))
            k += 1
    return messages


def dialogue_record(dialogue: dict[str, Any], tools: list[dict[str, Any]]) -> Record:
    """One dialogue as a record; Unreadable where a request or response is not JSON."""
    split = split_of(dialogue["conversation_id"])
    return {
        "id": f"{SOURCE}/{split}/{dialogue['conversation_id']}",
        "source": SOURCE,
        "split": split,
        "tools": tools,
        "messages": dialogue_messages(dialogue),
    }


# --- call statistics ----------------------------------------------------------------------------


def leaf_values(value: Any) -> Iterator[str]:
    """Every string or number inside a JSON value, as text."""
    if isinstance(value, dict):
        for item in value.values():
            yield from leaf_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from leaf_values(item)
    elif isinstance(value, str):
        yield value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield str(value)


def call_stats(record: Record) -> Counter[str]:
    """Per record: calls; calls using a value an earlier response gave (any value; an id);
    argument values found nowhere earlier: in no utterance's text (ignoring case) and in no
    earlier response (as a whole value)."""
    stats: Counter[str] = Counter()
    said: list[str] = []
    given: set[str] = set()
    for message in record["messages"]:
        if message["role"] == "tool":
            given.update(leaf_values(json.loads(message["content"])))
            continue
        if not message.get("tool_calls"):
            said.append(message["content"].lower())
            continue
        for call in message["tool_calls"]:
            arguments = json.loads(call["function"]["arguments"])
            values = list(leaf_values(arguments))
            ids = [v for k, v in arguments.items() if k.endswith("_id") and isinstance(v, str)]
            known = {v.lower() for v in given}
            stats["calls"] += 1
            stats["dependent_calls"] += any(v in given for v in values)
            stats["calls_with_id_from_response"] += any(v in given for v in ids)
            stats["argument_values"] += len(values)
            stats["values_not_in_dialogue"] += sum(
                v.lower() not in known and not any(v.lower() in text for text in said)
                for v in values
            )
    return stats


# --- files --------------------------------------------------------------------------------------


def data_files(raw_root: Path) -> list[Path]:
    """The ``data_NN.json`` files under raw_root (a checkout, ``TM-4-2024`` or its ``data``)."""
    for folder in (raw_root / "TM-4-2024" / "data", raw_root / "data", raw_root):
        files = sorted(folder.glob("data_*.json"))
        if files:
            return files
    return []


def read_dialogues(raw_root: Path) -> Iterator[dict[str, Any]]:
    """The dialogues of every data file, each ``conversation_id`` once (its first)."""
    seen: set[str] = set()
    for path in data_files(raw_root):
        for dialogue in json.loads(path.read_text(encoding="utf-8")):
            if dialogue["conversation_id"] not in seen:
                seen.add(dialogue["conversation_id"])
                yield dialogue


def convert(
    raw_root: Path,
    out_dir: Path,
    train_limit: int | None = None,
    seed: int = 0,
    tools_path: Path = TOOLS_PATH,
) -> dict[str, Any]:
    """Convert the dialogues under ``raw_root`` into ``out_dir/{split}.jsonl.gz``.

    ``train_limit`` keeps a seeded random subset of train. Returns the counts: dialogues read,
    skipped (unreadable), and per split the records, calls by API and the call statistics.
    """
    tools = load_tools(tools_path)
    by_split: dict[str, list[Record]] = {split: [] for split in SPLITS}
    counts: dict[str, Any] = {"dialogues": 0, "unreadable": 0, "unreadable_ids": []}
    for dialogue in read_dialogues(Path(raw_root)):
        counts["dialogues"] += 1
        try:
            record = dialogue_record(dialogue, tools)
        except Unreadable:
            counts["unreadable"] += 1
            counts["unreadable_ids"].append(dialogue["conversation_id"])
            continue
        by_split[record["split"]].append(record)
    for split, records in by_split.items():
        kept = seeded_subset(records, train_limit if split == "train" else None, seed)
        stats: Counter[str] = Counter()
        apis: Counter[str] = Counter()
        for record in kept:
            stats.update(call_stats(record))
            for message in record["messages"]:
                apis.update(c["function"]["name"] for c in message.get("tool_calls") or [])
        size = write_jsonl_gz(Path(out_dir) / f"{split}.jsonl.gz", kept)
        counts[split] = {"records": len(kept), "of": len(records), "bytes": size,
                         "messages": sum(len(r["messages"]) for r in kept),
                         **stats, "apis": dict(sorted(apis.items()))}  # fmt: skip
    return counts
