"""Persisted indexes survive a restart, a changed pool is re-indexed, stale is never served."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest

from toollearn.core.errors import RetrievalError
from toollearn.core.types import Tool
from toollearn.retrieval import IndexFields, ToolRetriever, read_manifest
from toollearn.retrieval.store import index_path

RESTART = """
import json, sys
from toollearn.core.types import Tool
from toollearn.retrieval import ToolRetriever
tools = [Tool.from_dict(d) for d in json.load(open(sys.argv[1]))]
r = ToolRetriever(tools, "bm25", index_dir=sys.argv[2], strict=True)
print(json.dumps({"loaded": r.loaded, "top": r.names("forecast for the weather in Oslo", 3)}))
"""


def test_bm25_index_survives_a_process_restart(tools, tmp_path):
    where = tmp_path / "idx"
    first = ToolRetriever(tools, "bm25", index_dir=where)
    assert not first.loaded and (where / "manifest.json").is_file()
    pool = tmp_path / "tools.json"
    pool.write_text(json.dumps([t.to_dict() for t in tools]))
    out = subprocess.run(
        [sys.executable, "-c", RESTART, str(pool), str(where)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"loaded": True, "top": first.names("forecast for the weather in Oslo", 3)}


@pytest.mark.parametrize("method", ["dense", "hybrid"])
def test_dense_index_reloads_without_re_embedding(tools, encoder, tmp_path, method):
    where = tmp_path / method
    first = ToolRetriever(tools, method, index_dir=where, encoder=encoder)
    assert encoder.encoded == len(tools)
    again = ToolRetriever(tools, method, index_dir=where, encoder=encoder)
    assert again.loaded and encoder.encoded == len(tools)  # no tool text embedded again
    q = "play a song"
    assert [h.item.name for h in again.search(q, 3)] == [h.item.name for h in first.search(q, 3)]
    assert [h.score for h in again.search(q, 3)] == pytest.approx(
        [h.score for h in first.search(q, 3)]
    )


def test_changed_pool_is_reindexed_not_served_stale(tools, encoder, tmp_path):
    where = tmp_path / "idx"
    ToolRetriever(tools, "hybrid", index_dir=where, encoder=encoder)
    old_hash = read_manifest(where)["content_hash"]
    changed = [*tools[:-1], replace(tools[-1], description="Order a pizza for delivery")]
    r = ToolRetriever(changed, "hybrid", index_dir=where, encoder=encoder)
    assert not r.loaded and read_manifest(where)["content_hash"] != old_hash
    assert r.names("order a pizza", 1) == ["playMusic"]
    grown = [*tools, Tool("orderTaxi", "Call a taxi to an address")]
    r2 = ToolRetriever(grown, "bm25", index_dir=tmp_path / "b")
    assert len(ToolRetriever(tools, "bm25", index_dir=tmp_path / "b")) == len(tools)
    assert r2.names("call a taxi", 1) == ["orderTaxi"]


def test_strict_mode_raises_on_a_stale_or_missing_index(tools, tmp_path):
    where = tmp_path / "idx"
    with pytest.raises(RetrievalError, match="no index"):
        ToolRetriever(tools, "bm25", index_dir=where, strict=True)
    ToolRetriever(tools, "bm25", index_dir=where)
    with pytest.raises(RetrievalError, match="different|hash"):
        ToolRetriever(tools[:-1], "bm25", index_dir=where, strict=True)


def test_config_changes_invalidate_the_index(tools, tmp_path):
    where = tmp_path / "idx"
    ToolRetriever(tools, "bm25", index_dir=where)
    assert not ToolRetriever(tools, "bm25", index_dir=where, k1=0.9).loaded
    assert not ToolRetriever(
        tools, "bm25", index_dir=where, k1=0.9, fields=IndexFields(param_descriptions=False)
    ).loaded
    assert ToolRetriever(
        tools, "bm25", index_dir=where, k1=0.9, fields=IndexFields(param_descriptions=False)
    ).loaded


def test_refuses_to_overwrite_a_foreign_folder(tools, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(RetrievalError, match="not a toollearn index"):
        ToolRetriever(tools, "bm25", index_dir=tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def test_index_path_uses_the_configured_root(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLLEARN_INDEX_DIR", str(tmp_path))
    assert index_path("seal-tools", "bm25") == tmp_path / "seal-tools-bm25"


def test_ivf_dense_index_persists_and_matches_exact(tools, encoder, tmp_path):
    pytest.importorskip("faiss")
    where = tmp_path / "ivf"
    ivf = ToolRetriever(tools, "dense", index_dir=where, encoder=encoder, ann="ivf", nprobe=8)
    exact = ToolRetriever(tools, "dense", encoder=encoder)
    q = "send a message by email"
    # nprobe covers every list of this tiny pool: same scores as exact search (ties may swap)
    want = [h.score for h in exact.search(q, 3)]
    assert ivf.names(q, 1) == exact.names(q, 1) == ["sendEmail"]
    assert [h.score for h in ivf.search(q, 3)] == pytest.approx(want, abs=1e-5)
    again = ToolRetriever(tools, "dense", index_dir=where, encoder=encoder, ann="ivf", nprobe=8)
    assert again.loaded and [h.score for h in again.search(q, 3)] == pytest.approx(want, abs=1e-5)
    assert (where / "index" / "ivf.faiss").is_file()
