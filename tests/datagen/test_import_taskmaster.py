"""Taskmaster-4 dialogues as records: a hand-made raw sample converts into the expected records,
and the committed converted files are well formed."""

from __future__ import annotations

import json
from pathlib import Path

from toollearn.datagen.imports import taskmaster
from toollearn.datagen.imports.records import read_jsonl_gz

ROOT = Path(__file__).resolve().parents[2]
CONVERTED = ROOT / "recipes" / "data" / "imports" / "taskmaster4"


def api(n: int, name: str, request: str | None, response: str) -> list[dict]:
    """The annotations of one call in TM-4's shape (a request may be left out)."""
    notes = [{"name": "api_call", "value": name, "context": f"api_call_{n}"}]
    if request is not None:
        notes.append({"name": "request", "value": request, "context": f"api_call_{n}"})
    return notes + [
        {"name": "api_response", "value": name, "context": f"api_response_{n}"},
        {"name": "response", "value": response, "context": f"api_response_{n}"},
    ]


def utterance(index: int, speaker: str, text: str, notes: list[dict] | None = None) -> dict:
    return {"index": index, "speaker": speaker, "text": text, "segments": [],
            "annotations": notes or []}  # fmt: skip


ORDER = {
    "conversation_id": "dlg-order",
    "vertical": "Coffee",
    "scenario": "Auto template 1",
    "instructions": None,
    "utterances": [
        utterance(0, "user", "one Chai Latte please", api(
            0, "get_menu_items", '{"query": "Chai Latte"}',
            '{"menu_items":[{"menu_item_id":"chai-latte-1","name":"Chai Latte"}]}',
        ) + api(1, "add_order_item", '{"menu_item_id": "chai-latte-1","quantity": "1"}',
                '{"order_id": "287","order_item_id":"920"}')),
        utterance(1, "assistant", "Is the order correct?"),
        utterance(2, "user", "yes, what else is there?", api(
            2, "finish_order", '{"order_id": "287"}', '{"success":true}',
        ) + api(3, "show_menu", None, '{"success":true}')),
        utterance(3, "assistant", "Here is the menu."),
    ],
}  # fmt: skip
BROKEN = {
    "conversation_id": "dlg-broken",
    "utterances": [utterance(0, "user", "a cortado", api(
        0, "get_menu_items", '{"query": "cortado"}', '{"menu_items":[{"menu_item_id":""c-1""}]}'))],
}  # fmt: skip


def tool_call(k: int, name: str, arguments: dict) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": f"call_{k}", "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)}}]}  # fmt: skip


def tool_result(k: int, response: dict) -> dict:
    return {"role": "tool", "tool_call_id": f"call_{k}", "content": json.dumps(response)}


def test_sample_converts_into_the_expected_records(tmp_path: Path) -> None:
    data = tmp_path / "raw" / "TM-4-2024" / "data"
    data.mkdir(parents=True)
    (data / "data_00.json").write_text(json.dumps([ORDER, BROKEN, ORDER]))  # ORDER twice: once
    counts = taskmaster.convert(tmp_path / "raw", tmp_path / "out")
    split = taskmaster.split_of("dlg-order")
    records = read_jsonl_gz(tmp_path / "out" / f"{split}.jsonl.gz")
    assert records == [{
        "id": f"taskmaster4/{split}/dlg-order", "source": "taskmaster4", "split": split,
        "tools": taskmaster.load_tools(),
        "messages": [
            {"role": "user", "content": "one Chai Latte please"},
            tool_call(0, "get_menu_items", {"query": "Chai Latte"}),
            tool_result(0, {"menu_items": [
                {"menu_item_id": "chai-latte-1", "name": "Chai Latte"}]}),
            tool_call(1, "add_order_item", {"menu_item_id": "chai-latte-1", "quantity": "1"}),
            tool_result(1, {"order_id": "287", "order_item_id": "920"}),
            {"role": "assistant", "content": "Is the order correct?"},
            {"role": "user", "content": "yes, what else is there?"},
            tool_call(2, "finish_order", {"order_id": "287"}),
            tool_result(2, {"success": True}),
            tool_call(3, "show_menu", {}),
            tool_result(3, {"success": True}),
            {"role": "assistant", "content": "Here is the menu."},
        ],
    }]  # fmt: skip
    assert counts["dialogues"] == 2 and counts["unreadable_ids"] == ["dlg-broken"]
    stats = counts[split]
    assert stats["records"] == 1 and stats["calls"] == 4
    assert stats["dependent_calls"] == 2  # add_order_item and finish_order take earlier ids
    assert stats["values_not_in_dialogue"] == 1  # quantity "1": "one" in the text
    assert sum(counts[s]["records"] for s in taskmaster.SPLITS) == 1


def test_split_by_hash_is_about_80_10_10() -> None:
    splits = [taskmaster.split_of(f"dlg-{i}") for i in range(2000)]
    assert set(splits) == set(taskmaster.SPLITS)
    assert 1500 < splits.count("train") < 1700 and 140 < splits.count("test") < 260
    assert taskmaster.split_of("dlg-order") == taskmaster.split_of("dlg-order")


def test_tools_are_function_tools() -> None:
    tools = taskmaster.load_tools()
    assert len(tools) == 8
    for tool in tools:
        params = tool["function"]["parameters"]
        assert tool["type"] == "function" and tool["function"]["description"]
        assert params["type"] == "object" and set(params["required"]) <= set(params["properties"])
        assert all(prop["description"] for prop in params["properties"].values())


def test_committed_files_are_well_formed() -> None:
    for path in sorted(CONVERTED.glob("*.jsonl.gz")):
        split = path.name.split(".")[0]
        records = read_jsonl_gz(path)
        assert records, path
        for record in records:
            check_record(record, "taskmaster4", split)


def check_record(record: dict, source: str, split: str) -> None:
    """The record format's fields; every call names a tool of the record with object arguments,
    and each call's result follows it."""
    assert record["source"] == source and record["split"] == split
    assert record["id"].startswith(f"{source}/{split}/")
    names = {tool["function"]["name"] for tool in record["tools"]}
    for tool in record["tools"]:
        assert tool["type"] == "function" and tool["function"]["parameters"]["type"] == "object"
    pending: list[str] = []
    for message in record["messages"]:
        assert message["role"] in {"user", "assistant", "tool"}
        for tool_call in message.get("tool_calls") or []:
            assert tool_call["type"] == "function" and tool_call["function"]["name"] in names
            assert isinstance(json.loads(tool_call["function"]["arguments"]), dict)
            pending.append(tool_call["id"])
        if message["role"] == "tool":
            assert message["tool_call_id"] == pending.pop(0)
            json.loads(message["content"])
        elif not message.get("tool_calls"):
            assert isinstance(message["content"], str)
    assert not pending
