"""The engine names `base`, `tuned`, `tuned-deer`, `tuned-seal`, `tuned-papers`, `tuned-apps`,
`tuned-agent` and `tuned-umi` (the shipped adapters), resolved without a model."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

import toollearn.models as models
from toollearn.cli.common import engine_options, is_llama, role_specs
from toollearn.core.errors import EngineError
from toollearn.models import (
    AGENT_ADAPTER,
    APPS_ADAPTER,
    DEER_ADAPTER,
    PAPERS_ADAPTER,
    SEAL_ADAPTER,
    TUNED_ADAPTER,
    UMI_ROLES,
    resolve_alias,
    tuned_info,
)


def test_aliases_resolve_to_llama_specs():
    assert resolve_alias("base") == "llama"
    assert resolve_alias("base@/x.gguf") == "llama@/x.gguf"
    assert resolve_alias("tuned") == "tuned"  # merged by the engine
    assert resolve_alias("tuned@/x.gguf") == "tuned@/x.gguf"
    assert resolve_alias("tuned-apps") == f"tuned:{APPS_ADAPTER}"  # the apps adapter, merged
    assert resolve_alias("tuned-apps@/x.gguf") == f"tuned:{APPS_ADAPTER}@/x.gguf"
    assert resolve_alias("tuned-papers") == f"tuned:{PAPERS_ADAPTER}"  # the papers' formats
    assert resolve_alias("tuned-deer") == f"tuned:{DEER_ADAPTER}"  # DEER's format only
    assert resolve_alias("tuned-seal") == f"tuned:{SEAL_ADAPTER}"  # Seal-Tools' format only
    stack = f"tuned:{PAPERS_ADAPTER}+{AGENT_ADAPTER}"  # the agent adapter on the papers' one
    assert resolve_alias("tuned-agent") == stack
    assert resolve_alias("tuned-agent@/x.gguf") == f"{stack}@/x.gguf"
    for other in ("llama", "llama:/m.gguf@/a.gguf", "hf:/dir", "openai:http://h/v1#m"):
        assert resolve_alias(other) == other
    assert is_llama("tuned") and is_llama("base@/x.gguf") and not is_llama("hf:/dir")
    assert is_llama("tuned-apps") and is_llama("tuned-agent")
    assert is_llama("tuned-papers") and is_llama("tuned-deer") and is_llama("tuned-seal")
    assert models.spec_docs("tuned-seal") == models.adapter_docs(SEAL_ADAPTER)
    # a newly trained adapter merged in: --threads and --n-seq must reach llama.cpp too
    assert is_llama("tuned:/a.gguf+/b.gguf") and is_llama("tuned:/a.gguf@/c.gguf")
    assert engine_options("tuned:/a.gguf", 1, n_seq=8) == {"n_threads": 1, "n_seq": 8}
    assert engine_options("hf:/dir", 1, n_seq=8) == {}


def test_the_alpha_umi_roles_resolve_to_their_adapter_stacks():
    from toollearn.engines import adapter_stack

    assert resolve_alias("tuned-umi") == f"llama@{UMI_ROLES}#single"
    planner = resolve_alias("tuned-umi#planner")
    assert planner == f"llama@{UMI_ROLES}#planner" and is_llama("tuned-umi#caller")
    stack = adapter_stack(planner.partition("@")[2], "llama")
    assert [Path(p).name for p in stack] == ["single.gguf", "planner.gguf"]
    assert all(Path(p).is_file() for p in stack)
    with pytest.raises(EngineError, match="no runtime adapter"):
        resolve_alias("tuned-umi@/x.gguf")
    args = argparse.Namespace(engine="tuned-umi", role_adapters=None, caller="base")
    assert role_specs(args) == {"planner": "tuned-umi#planner", "caller": "base",
                                "summarizer": "tuned-umi#summarizer"}  # fmt: skip
    assert role_specs(args, single=True)["planner"] == "tuned-umi#single"
    args.role_adapters = "/run"  # a trained set of roles: on the model as released
    assert role_specs(args)["planner"] == "llama@/run#planner"
    args.engine = "tuned-papers"
    assert role_specs(args)["summarizer"] == "tuned-papers@/run#summarizer"


def test_the_adapters_ship_with_their_training_records():
    call_gate = TUNED_ADAPTER.parent / "deer-call-gate" / "adapter_model.safetensors"
    umi = sorted(UMI_ROLES.glob("*.gguf"))
    shipped = (TUNED_ADAPTER, PAPERS_ADAPTER, DEER_ADAPTER, SEAL_ADAPTER, APPS_ADAPTER,
               AGENT_ADAPTER, call_gate, *umi)  # fmt: skip
    sizes = [path.stat().st_size for path in shipped]
    # at most 25 MB before the general adapter (issue 15); it adds 19.6 MB (rank 32, f16), the
    # alpha-UMi roles in their own adapters 37.4 MB (four of rank 16), DEER's and Seal-Tools'
    # 9.8 each (issue 74)
    assert len(umi) == 4 and sum(sizes) < 101 * 2**20
    roles = json.loads((UMI_ROLES / "adapters.json").read_text())["gguf"]
    assert set(roles) == {"single", "planner", "caller", "summarizer"}
    assert all((UMI_ROLES / f"{name}.train.json").is_file() for name in roles)
    info = tuned_info()
    assert info["config"]["method"] == "lora" and info["datasets"]
    apps = tuned_info("apps")
    assert apps["config"]["method"] == "lora"
    assert sorted(Path(d).name for d in apps["datasets"]) == [
        "apps2-home-search", "apps2-trip-booking"]  # fmt: skip
    agent = tuned_info("agent")
    assert agent["config"]["merge_turns"] and agent["config"]["model"] == "tuned"
    assert agent["samples"]["dropped"] == {} and agent["samples"]["merge_turns"]["conversations"]
    notice = (TUNED_ADAPTER.parent / "NOTICE").read_text()
    assert "Seal-Tools" in notice and "ToolDEER" in notice and "SmolLM2" in notice
    assert "apps-135m.gguf" in notice and "agent-135m.gguf" in notice
    assert "general-135m.gguf" in notice and "tools-135m.gguf" in notice and "umi-135m/" in notice
    assert info["datasets"] and tuned_info("papers")["datasets"] != info["datasets"]
    deer = tuned_info("deer")  # DEER's decision branches only
    assert [Path(d).name for d in deer["datasets"]] == ["deer"] and "deer-135m.gguf" in notice
    seal = tuned_info("seal")  # the Seal-Tools paper's prompt and call list only
    assert [Path(d).name for d in seal["datasets"]] == ["seal-v2"] and "seal-135m.gguf" in notice


def test_a_missing_adapter_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(models, "TUNED_ADAPTER", tmp_path / "gone.gguf")
    with pytest.raises(EngineError, match="--model base"):
        resolve_alias("tuned")
    monkeypatch.setattr(models, "APPS_ADAPTER", tmp_path / "gone-too.gguf")
    with pytest.raises(EngineError, match="gone-too.gguf"):
        resolve_alias("tuned-apps")
    monkeypatch.setattr(models, "TUNED_ADAPTER", TUNED_ADAPTER)  # only the agent adapter gone
    monkeypatch.setattr(models, "AGENT_ADAPTER", tmp_path / "gone-three.gguf")
    with pytest.raises(EngineError, match="gone-three.gguf"):
        resolve_alias("tuned-agent")
    assert resolve_alias("base") == "llama"


def test_an_adapter_is_prompted_as_its_training_data_listed_tools(tmp_path):
    from toollearn.models import adapter_docs, spec_docs

    run = tmp_path / "run"
    run.mkdir()
    (run / "adapter.gguf").write_bytes(b"")
    assert adapter_docs(run / "adapter.gguf") == "json"  # no record: json
    record = {"datasets": {"a": {"docs": "json"}, "b": {"docs": "compact"}}}
    (run / "train.json").write_text(json.dumps(record))
    assert adapter_docs(run / "adapter.gguf") == "compact"
    assert spec_docs(f"llama@{run / 'adapter.gguf'}") == "compact"
    assert spec_docs(f"tuned:{run / 'adapter.gguf'}") == "compact"
    assert spec_docs("llama") == spec_docs("openai:http://x/v1") == "json"
    (run / "adapter.train.json").write_text(json.dumps({"datasets": {"a": {}}}))
    assert adapter_docs(run / "adapter.gguf") == "json"  # NAME.train.json comes first


def test_a_training_record_names_its_datasets_listing_style(tmp_path):
    from toollearn.training.data import dataset_docs

    (tmp_path / "data.jsonl").write_text("")
    assert dataset_docs(tmp_path / "data.jsonl") is None
    (tmp_path / "stats.json").write_text(json.dumps({"config": {"docs": "compact"}}))
    assert dataset_docs(tmp_path / "data.jsonl") == "compact"
    (tmp_path / "stats.json").write_text("not json")
    assert dataset_docs(tmp_path / "data.jsonl") is None
