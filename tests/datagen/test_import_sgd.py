"""SGD's converter (`datagen.imports.sgd`) on a hand-made raw sample, and the committed files."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from toollearn.datagen.imports import sgd

COMMITTED = Path(__file__).resolve().parents[2] / "recipes" / "data" / "imports" / "sgd"
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _slot(name: str, values: list[str] | None = None, description: str = "") -> dict:
    return {
        "name": name,
        "description": description or f"the {name}",
        "is_categorical": values is not None,
        "possible_values": values or [],
    }


def _intent(name: str, required: list[str], optional: dict[str, str]) -> dict:
    return {
        "name": name,
        "description": f"{name} it",
        "is_transactional": False,
        "required_slots": required,
        "optional_slots": optional,
        "result_slots": required + list(optional),
    }


SCHEMA = [
    {
        "service_name": "Restaurants_1",
        "description": "Find and book restaurants",
        "slots": [
            _slot("city"),
            _slot("party_size", ["1", "2", "3"]),
            _slot("price_range", ["cheap", "pricey"]),
            _slot("restaurant_name"),
        ],
        "intents": [
            _intent("FindRestaurants", ["city"], {"price_range": "dontcare"}),
            _intent("ReserveRestaurant", ["restaurant_name", "party_size"], {}),
        ],
    },
    {
        "service_name": "Restaurants_2",
        "description": "Other restaurants",
        "slots": [_slot("location")],
        "intents": [_intent("FindRestaurants", ["location"], {})],
    },
    {
        "service_name": "Weather_1",
        "description": "Weather",
        "slots": [_slot("city")],
        "intents": [_intent("GetWeather", ["city"], {})],
    },
]


def _frame(service: str, acts: list[tuple[str, str]], **extra: object) -> dict:
    actions = [{"act": a, "slot": s, "values": [], "canonical_values": []} for a, s in acts]
    return {"service": service, "slots": [], "actions": actions, **extra}


def _turn(speaker: str, utterance: str, frames: list[dict]) -> dict:
    return {"speaker": speaker, "utterance": utterance, "frames": frames}


RESULTS = [{"restaurant_name": f"Place {i}", "city": "San Jose"} for i in range(5)]

DIALOGUES = [
    {
        "dialogue_id": "1_00000",
        "services": ["Restaurants_1", "Restaurants_2"],
        "turns": [
            _turn("USER", "Find me a place to eat.", [_frame("Restaurants_1", [])]),
            _turn(
                "SYSTEM",
                "Which city?",
                [_frame("Restaurants_1", [("REQUEST", "city"), ("REQUEST", "city")])],
            ),
            _turn("USER", "In san jose, for 2.", [_frame("Restaurants_1", [])]),
            _turn(
                "SYSTEM",
                "Place 0 is nice.",
                [
                    _frame(
                        "Restaurants_1",
                        [("OFFER", "restaurant_name"), ("INFORM_COUNT", "count")],
                        service_call={
                            "method": "FindRestaurants",
                            "parameters": {"city": "San Jose"},
                        },
                        service_results=RESULTS,
                    )
                ],
            ),
            _turn("USER", "Book it for two people.", [_frame("Restaurants_1", [])]),
            _turn(
                "SYSTEM",
                "Booked.",
                [
                    _frame(
                        "Restaurants_1",
                        [("NOTIFY_SUCCESS", "")],
                        service_call={
                            "method": "ReserveRestaurant",
                            "parameters": {"restaurant_name": "Place 1", "party_size": "2"},
                        },
                        service_results=[],
                    )
                ],
            ),
        ],
    },
    {
        "dialogue_id": "2_00000",
        "services": ["Weather_1"],
        "turns": [
            _turn("USER", "Weather?", [_frame("Weather_1", [])]),
            _turn("SYSTEM", "Where?", [_frame("Weather_1", [("REQUEST", "city")])]),
        ],
    },
]


def _variant(schema: list[dict], version: int) -> list[dict]:
    out = json.loads(json.dumps(schema))
    for service in out:
        service["service_name"] += f"_v{version}"
        for item in service["slots"] + service["intents"]:
            item["name"] = f"{item['name']}V{version}"
            item["description"] = f"{item['description']} (v{version})"
    return out


@pytest.fixture()
def raw_root(tmp_path: Path) -> Path:
    root = tmp_path / "raw"
    for split in sgd.SPLITS:
        (root / split).mkdir(parents=True)
        (root / split / "schema.json").write_text(json.dumps(SCHEMA))
        for v in range(1, 6):
            path = root / "sgd_x" / "data" / f"v{v}" / split / "schema.json"
            path.parent.mkdir(parents=True)
            path.write_text(json.dumps(_variant(SCHEMA, v)))
    (root / "train" / "dialogues_001.json").write_text(json.dumps(DIALOGUES))
    (root / "test" / "dialogues_001.json").write_text(json.dumps(DIALOGUES[1:]))
    return root


def test_convert_sample(raw_root: Path, tmp_path: Path) -> None:
    counts = sgd.convert(raw_root, tmp_path / "out")
    assert counts["train"]["dialogues"] == 2 and counts["train"]["records"] == 2
    assert counts["train"]["calls"] == 2 and counts["dev"]["records"] == 0
    assert counts["test"]["records"] == 1 and counts["variants"]["services"] == 3
    records = sgd.read_jsonl_gz(tmp_path / "out" / "train.jsonl.gz")
    first = records[0]
    assert first["id"] == "sgd/train/1_00000"
    assert (first["source"], first["split"]) == ("sgd", "train")
    names = [t["function"]["name"] for t in first["tools"]]
    assert names == [
        "Restaurants_1_FindRestaurants",
        "ReserveRestaurant",
        "Restaurants_2_FindRestaurants",
    ]
    find = first["tools"][0]["function"]
    assert find["description"] == "FindRestaurants it"
    assert find["parameters"] == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "the city"},
            "price_range": {
                "type": "string",
                "description": "the price_range",
                "enum": ["cheap", "pricey"],
                "default": "dontcare",
            },
        },
        "required": ["city"],
    }
    party = first["tools"][1]["function"]["parameters"]["properties"]["party_size"]
    assert party == {"type": "integer", "description": "the party_size", "enum": [1, 2, 3]}
    assert first["messages"] == [
        {"role": "user", "content": "Find me a place to eat."},
        {"role": "assistant", "content": "Which city?", "acts": ["REQUEST"], "requested": ["city"]},
        {"role": "user", "content": "In san jose, for 2."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_0",
                    "type": "function",
                    "function": {
                        "name": "Restaurants_1_FindRestaurants",
                        "arguments": '{"city": "San Jose"}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": json.dumps(RESULTS[:3])},
        {"role": "assistant", "content": "Place 0 is nice.", "acts": ["OFFER", "INFORM_COUNT"]},
        {"role": "user", "content": "Book it for two people."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {
                        "name": "ReserveRestaurant",
                        "arguments": '{"restaurant_name": "Place 1", "party_size": 2}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "[]"},
        {"role": "assistant", "content": "Booked.", "acts": ["NOTIFY_SUCCESS"]},
    ]
    # "San Jose" was said (as "san jose"), and "2" too; "Place 1" only in the tool result
    assert list(sgd.unseen_call_values(first)) == [("restaurant_name", "text", "Place 1")]
    assert counts["train"]["unseen_values"] == 1
    weather = records[1]
    assert [t["function"]["name"] for t in weather["tools"]] == ["GetWeather"]


def test_variants(raw_root: Path, tmp_path: Path) -> None:
    sgd.convert(raw_root, tmp_path / "out")
    maps = json.loads(gzip.decompress((tmp_path / "out" / "variants.json.gz").read_bytes()))
    assert sorted(maps) == ["Restaurants_1", "Restaurants_2", "Weather_1"]
    third = maps["Restaurants_1"][2]
    assert third["service"]["name"] == "Restaurants_1_v3"
    assert third["intents"]["FindRestaurants"] == {
        "name": "FindRestaurantsV3",
        "description": "FindRestaurants it (v3)",
    }
    assert third["slots"]["party_size"] == {
        "name": "party_sizeV3",
        "description": "the party_size (v3)",
    }
    assert all(len(v) == 5 for v in maps.values())


def test_train_subset_is_seeded(raw_root: Path, tmp_path: Path) -> None:
    records = [{"id": str(i)} for i in range(10)]
    kept = sgd.seeded_subset(records, 4, seed=0)
    assert kept == sgd.seeded_subset(records, 4, seed=0) and len(kept) == 4
    assert [r["id"] for r in kept] == sorted((r["id"] for r in kept), key=int)
    assert sgd.seeded_subset(records, None) == records
    counts = sgd.convert(raw_root, tmp_path / "out", train_limit=1, variants=False)
    assert counts["train"]["records"] == 1 and "variants" not in counts
    first = sgd.convert(raw_root, tmp_path / "a")
    again = sgd.convert(raw_root, tmp_path / "b")
    assert first == again
    for name in ("train.jsonl.gz", "variants.json.gz"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def _check_record(record: dict, split: str) -> None:
    assert set(record) == {"id", "source", "split", "tools", "messages"}
    assert record["source"] == "sgd" and record["split"] == split
    assert record["id"].startswith(f"sgd/{split}/")
    names = set()
    for tool in record["tools"]:
        assert tool["type"] == "function"
        fn = tool["function"]
        assert TOOL_NAME.match(fn["name"]) and fn["name"] not in names
        names.add(fn["name"])
        assert fn["parameters"]["type"] == "object"
        assert set(fn["parameters"]["required"]) <= set(fn["parameters"]["properties"])
    pending: set[str] = set()
    for message in record["messages"]:
        assert message["role"] in ("user", "assistant", "tool")
        for call in message.get("tool_calls") or []:
            assert call["type"] == "function" and call["function"]["name"] in names
            assert isinstance(json.loads(call["function"]["arguments"]), dict)
            pending.add(call["id"])
        if message["role"] == "tool":
            assert message["tool_call_id"] in pending
            json.loads(message["content"])
        elif message["role"] == "user" or message.get("tool_calls") is None:
            assert isinstance(message["content"], str)


@pytest.mark.parametrize("split", sgd.SPLITS)
def test_committed_files(split: str) -> None:
    path = COMMITTED / f"{split}.jsonl.gz"
    if not path.exists():
        pytest.skip(f"{path} not committed")
    records = sgd.read_jsonl_gz(path)
    assert records
    assert len({r["id"] for r in records}) == len(records)
    for record in records:
        _check_record(record, split)


def test_committed_size_and_variants() -> None:
    paths = [COMMITTED / f"{split}.jsonl.gz" for split in sgd.SPLITS]
    if not all(p.exists() for p in paths):
        pytest.skip("converted SGD files not committed")
    assert sum(p.stat().st_size for p in COMMITTED.iterdir()) <= 25 * 10**6
    variants = COMMITTED / "variants.json.gz"
    if variants.exists():
        maps = json.loads(gzip.decompress(variants.read_bytes()))
        assert all(len(v) == 5 for v in maps.values())
