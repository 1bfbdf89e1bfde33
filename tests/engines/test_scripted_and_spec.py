"""Engine protocol pieces that need no model: ScriptedEngine, load_engine specs, helpers."""

from __future__ import annotations

import pytest

from toollearn.core.errors import EngineError
from toollearn.core.types import Message
from toollearn.decoding import Constraint
from toollearn.engines import Completion, Engine, ScriptedEngine, load_engine, user
from toollearn.engines.base import as_messages, cut_at_stop


def test_scripted_engine_answers_in_order_and_records_requests():
    engine = ScriptedEngine(["first STOP tail", "second"])
    c = Constraint("gbnf", 'root ::= "x"')
    out = engine.complete(["p1", user("p2")], max_tokens=9, stop=["STOP"], constraint=c)
    assert [o.text for o in out] == ["first ", "second"]
    assert isinstance(engine, Engine)
    assert engine.requests[0]["max_tokens"] == 9 and engine.requests[0]["constraint"] is c
    assert engine.prompts == ["p1", [Message("user", "p2")]]
    with pytest.raises(EngineError, match="ran out"):
        engine.complete(["p3"])


def test_scripted_engine_from_a_function_sees_the_prompt():
    engine = load_engine("scripted", responses=lambda p: f"echo {p}")
    assert engine.complete(["hi"])[0].text == "echo hi"


def test_completion_defaults_and_ok():
    c = Completion("x")
    assert c.finish_reason == "stop" and c.ok
    assert not Completion("", "error", error="down").ok


def test_cut_at_stop_takes_the_earliest_stop_string():
    assert cut_at_stop("a]b}c", ["}", "]"]) == ("a", True)
    assert cut_at_stop("abc", ["x", ""]) == ("abc", False)


def test_as_messages_accepts_dicts_and_rejects_raw_text():
    assert as_messages([{"role": "user", "content": "q"}]) == [Message("user", "q")]
    with pytest.raises(TypeError):
        as_messages("raw")


@pytest.mark.parametrize("spec", ["nope", "hf:", "openai:"])
def test_bad_specs_are_clear_errors(spec):
    with pytest.raises(EngineError):
        load_engine(spec)


def test_missing_gguf_is_a_clear_error(tmp_path):
    pytest.importorskip("llama_cpp")
    with pytest.raises(EngineError, match="not found"):
        load_engine(f"llama:{tmp_path / 'missing.gguf'}")


def test_adapter_specs_name_files_stacks_and_adapter_sets(tmp_path):
    import json

    from toollearn.engines import adapter_stack, split_adapter

    assert split_adapter("llama:/m.gguf@/a.gguf") == ("llama:/m.gguf", "/a.gguf")
    assert split_adapter("openai:http://u@h/v1#m") == ("openai:http://u@h/v1#m", "")
    assert adapter_stack("/a.gguf+/b.gguf", "llama") == ["/a.gguf", "/b.gguf"]
    (tmp_path / "adapters.json").write_text(json.dumps({
        "gguf": {"planner": ["single/adapter.gguf", "planner/adapter.gguf"]},
        "peft": {"planner": ["single/adapter", "planner/adapter"]}}))  # fmt: skip
    assert adapter_stack(f"{tmp_path}#planner", "hf") == [
        str(tmp_path / "single/adapter"), str(tmp_path / "planner/adapter")]  # fmt: skip
    with pytest.raises(EngineError, match="no adapter 'caller'.*planner"):
        adapter_stack(f"{tmp_path}#caller", "llama")
    with pytest.raises(EngineError, match="adapters.json not found"):
        adapter_stack(f"{tmp_path / 'nowhere'}#planner", "llama")
    with pytest.raises(EngineError, match="unknown engine spec"):
        from toollearn.engines import load_engines

        load_engines({"x": "scripted@/a.gguf"})
