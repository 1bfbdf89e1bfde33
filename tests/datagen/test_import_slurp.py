"""SLURP's text annotations as records: a hand-made raw sample converts into the expected records,
and the committed converted files are well formed."""

from __future__ import annotations

import json
from pathlib import Path

from toollearn.datagen.imports import slurp
from toollearn.datagen.imports.records import read_jsonl_gz

ROOT = Path(__file__).resolve().parents[2]
CONVERTED = ROOT / "recipes" / "data" / "imports" / "slurp"


def line(slurp_id: int, sentence: str, annotation: str, scenario: str, action: str,
         intent: str | None = None) -> str:  # fmt: skip
    """One raw jsonl line in SLURP's release shape (tokens and recordings left short)."""
    return json.dumps({
        "slurp_id": slurp_id, "sentence": sentence, "sentence_annotation": annotation,
        "intent": intent or f"{scenario}_{action}", "action": action, "scenario": scenario,
        "tokens": [{"surface": w, "id": i} for i, w in enumerate(sentence.split())],
        "entities": [], "recordings": [{"file": f"audio-{slurp_id}.flac"}],
    })  # fmt: skip


def write_raw(root: Path) -> None:
    folder = root / "dataset" / "slurp"
    folder.mkdir(parents=True)
    train = [
        line(1, "wake me up at seven am tomorrow",
             "wake me up at [time : seven am] [date : tomorrow]", "alarm", "set"),
        line(1, "wake me up at seven am tomorrow", "wake me up at [time : seven am]",
             "alarm", "set"),  # the same slurp_id again: dropped
        line(2, "is it sunny in paris",
             "is it [weather_descriptor : sunny] in [place_name : Paris]",
             "weather", "query", intent="query"),  # intent without its scenario prefix
        line(3, "how are you today", "how are you [date : today]", "general", "quirky"),
    ]  # fmt: skip
    (folder / "train.jsonl").write_text("\n".join(train) + "\n")
    (folder / "devel.jsonl").write_text(line(
        4, "play songs by adele and then by queen",
        "play songs by [artist_name : adele] and then by [artist_name : queen]", "play", "music",
    ) + "\n")  # fmt: skip
    (folder / "test.jsonl").write_text(
        line(5, "show bio of rihanna", "show bio of [artist_name : rihana]", "qa", "factoid") + "\n"
    )
    (folder / "train_synthetic.jsonl").write_text(
        line(6, "never read", "never read", "alarm", "set") + "\n")  # fmt: skip


def call(name: str, arguments: dict[str, str]) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_0", "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)}}]}  # fmt: skip


def test_sample_converts_into_the_expected_records(tmp_path: Path) -> None:
    write_raw(tmp_path / "raw")
    counts = slurp.convert(tmp_path / "raw", tmp_path / "out")
    schemas = slurp.load_schemas()
    records = {s: read_jsonl_gz(tmp_path / "out" / f"{s}.jsonl.gz") for s in slurp.SPLITS}
    assert [r["id"] for r in records["train"]] == ["slurp/train/1", "slurp/train/2",
                                                   "slurp/train/3"]  # fmt: skip
    alarm, weather, quirky = records["train"]
    assert alarm == {
        "id": "slurp/train/1", "source": "slurp", "split": "train",
        "tools": schemas.scenario_tools("alarm"),
        "messages": [{"role": "user", "content": "wake me up at seven am tomorrow"},
                     call("alarm_set", {"time": "seven am", "date": "tomorrow"})],
    }  # fmt: skip
    assert [t["function"]["name"] for t in alarm["tools"]] == [
        "alarm_query", "alarm_remove", "alarm_set"]  # fmt: skip
    # the intent is scenario_action; "Paris" is the sentence's "paris"
    assert weather["messages"][1] == call(
        "weather_query", {"weather_descriptor": "sunny", "place_name": "paris"}
    )
    assert quirky["no_call"] is True and quirky["messages"] == [
        {"role": "user", "content": "how are you today"}]  # fmt: skip
    assert {t["function"]["name"].split("_")[0] for t in quirky["tools"]} <= set(
        slurp.DISTRACTOR_SCENARIOS)  # fmt: skip
    (music,) = records["dev"]
    assert music["id"] == "slurp/dev/4"
    assert music["messages"][1] == call("play_music", {"artist_name": "adele"})  # first kept
    (factoid,) = records["test"]
    assert factoid["messages"][1] == call("qa_factoid", {"artist_name": "rihanna"})
    assert counts["missing"] == []
    assert counts["train"]["commands"] == 3 and counts["train"]["no_call"] == 1
    assert counts["train"]["intent_field_differs"] == 1
    assert counts["dev"]["sentences_with_repeated_slot_type"] == 1
    assert counts["test"]["values_respelt_from_sentence"] == 1
    assert counts["test"]["values_not_in_sentence"] == 0


def test_absent_split_and_train_subset(tmp_path: Path) -> None:
    write_raw(tmp_path / "raw")
    (tmp_path / "raw" / "dataset" / "slurp" / "test.jsonl").unlink()
    counts = slurp.convert(tmp_path / "raw", tmp_path / "out", train_limit=2)
    assert counts["missing"] == ["test.jsonl"] and counts["train"]["records"] == 2
    assert not (tmp_path / "out" / "test.jsonl.gz").exists()


def test_slot_text_is_the_sentences_own() -> None:
    plain, slots = slurp.parse_annotation("book [place_name : New York] at [time : five pm]")
    assert plain == "book New York at five pm"
    assert [(s.type, s.value) for s in slots] == [("place_name", "New York"), ("time", "five pm")]
    sentence = "book new york at five pm"
    assert slurp.slot_text(sentence, plain, slots[0]) == "new york"
    plain, slots = slurp.parse_annotation("tweet complain at [business_name : @comcast]")
    sentence = "tweet complain at comcast"
    assert slurp.slot_text(sentence, plain, slots[0]) is None
    assert slurp.aligned_text(sentence, plain, slots[0]) == "comcast"
    plain, slots = slurp.parse_annotation("complain to [business_name : tesco]")
    assert slurp.aligned_text("complain about this pasta", plain, slots[0]) is None


def test_schemas_are_function_tools() -> None:
    schemas = slurp.load_schemas()
    assert schemas.no_call == {"general_greet", "general_joke", "general_quirky"}
    for name, tool in schemas.tools.items():
        fn = tool["function"]
        assert tool["type"] == "function" and fn["name"] == name and fn["description"]
        params = fn["parameters"]
        assert params["type"] == "object" and set(params["required"]) <= set(params["properties"])
        for prop in params["properties"].values():
            assert prop["type"] == "string" and prop["description"]


def test_committed_files_are_well_formed() -> None:
    for path in sorted(CONVERTED.glob("*.jsonl.gz")):
        split = path.name.split(".")[0]
        records = read_jsonl_gz(path)
        assert records, path
        for record in records:
            check_record(record, "slurp", split)


def check_record(record: dict, source: str, split: str) -> None:
    """The record format's fields; every call names a tool of the record with object arguments."""
    assert record["source"] == source and record["split"] == split
    assert record["id"].startswith(f"{source}/{split}/")
    names = {tool["function"]["name"] for tool in record["tools"]}
    for tool in record["tools"]:
        assert tool["type"] == "function" and tool["function"]["parameters"]["type"] == "object"
    assert record["messages"] and record["messages"][0]["role"] == "user"
    for message in record["messages"]:
        assert message["role"] in {"user", "assistant", "tool"}
        for tool_call in message.get("tool_calls") or []:
            assert tool_call["type"] == "function" and tool_call["function"]["name"] in names
            assert isinstance(json.loads(tool_call["function"]["arguments"]), dict)
        if message["role"] == "tool":
            json.loads(message["content"])
        if not message.get("tool_calls"):
            assert isinstance(message["content"], str)
    if record.get("no_call"):
        assert not any(m.get("tool_calls") for m in record["messages"])
