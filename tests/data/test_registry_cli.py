"""Dataset specs, data roots, and `toollearn data stats` on the sample and the full data."""

from __future__ import annotations

import json

import pytest

from toollearn.cli.main import main
from toollearn.core.errors import DataError
from toollearn.data.registry import load_examples, load_tool_pool, sample_root


def test_sample_specs_need_no_root():
    assert len(load_examples("sample/seal-tools-prompts/test_in_domain")) == 100
    assert len(load_examples("sample/seal-tools/dev")) == 100
    assert len(load_examples("sample/tooldeer/test")) == 100
    assert len(load_examples("sample/tooldeer/tool_corpus")) == 25
    assert len(load_tool_pool("sample/seal-tools")) > 300
    assert len(load_tool_pool("sample/tooldeer/test")) > 40


def test_missing_root_tells_the_user_what_to_do(monkeypatch):
    monkeypatch.delenv("TOOLLEARN_DATA", raising=False)
    with pytest.raises(DataError, match="--data-root"):
        load_examples("seal-tools/dev")


def test_env_root_and_bad_specs(monkeypatch, tmp_path):
    monkeypatch.setenv("TOOLLEARN_DATA", str(sample_root()))
    assert len(load_examples("tooldeer/valid")) == 52
    with pytest.raises(DataError, match="unknown dataset 'apibank'"):
        load_examples("apibank/test")
    with pytest.raises(DataError, match="needs a split"):
        load_examples("tooldeer")
    with pytest.raises(DataError, match="not a folder"):
        load_examples("tooldeer/test", root=tmp_path / "nope")


def test_stats_on_the_bundled_sample(monkeypatch, capsys):
    monkeypatch.delenv("TOOLLEARN_DATA", raising=False)
    assert main(["data", "stats", "seal-tools"]) == 0
    out = capsys.readouterr().out
    assert "bundled sample" in out and "test_in_domain" in out
    assert main(["data", "stats", "tooldeer", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["splits"]["test"]["instances"] == 100


@pytest.mark.shared
@pytest.mark.slow
def test_stats_cli_on_the_full_data(shared_data, capsys):
    assert main(["data", "stats", "seal-tools", "--data-root", str(shared_data)]) == 0
    out = capsys.readouterr().out
    assert "tools: 4076" in out
    for row in ("dev                     700", "test_out_domain         654"):
        assert row in out
    assert main(["data", "stats", "tooldeer", "--data-root", str(shared_data)]) == 0
    out = capsys.readouterr().out
    assert "tools: 977" in out
    assert [
        line.split()[:5] for line in out.splitlines() if line.startswith(("valid", "test"))
    ] == [
        ["valid", "1065", "526", "346", "193"],
        ["test", "743", "445", "298", "0"],
    ]


def test_stats_error_is_reported(capsys, tmp_path):
    assert main(["data", "stats", "seal-tools", "--data-root", str(tmp_path)]) == 1
    assert "no Seal-Tools data here" in capsys.readouterr().err


@pytest.mark.parametrize(
    "spec",
    [
        "sample/seal-tools-prompts/test_out_domain",
        "sample/seal-tools/dev",
        "sample/tooldeer/valid",
        "sample/tooldeer/tool_bench",
    ],
)
def test_loaded_examples_survive_json(spec):
    from toollearn.core.types import Example

    for ex in load_examples(spec):
        d = json.loads(json.dumps(ex.to_dict()))
        assert Example.from_dict(d).to_dict() == ex.to_dict()
