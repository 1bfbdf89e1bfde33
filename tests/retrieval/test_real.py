"""Retrieval with the real MiniLM (marker `model`) and on the real data (marker `shared`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from toollearn.cli.main import main
from toollearn.retrieval import MiniLMEncoder, ToolRetriever, read_manifest, tool_clusters
from toollearn.retrieval.evalsets import seal_dpr_set, seal_pool
from toollearn.retrieval.metrics import retrieval_scores


@pytest.mark.model
def test_minilm_dense_retrieval_is_semantic_and_persists(tools, demos, tmp_path):
    enc = MiniLMEncoder()
    vecs = enc.encode([d.query for d in demos] + [t.description for t in tools])
    assert vecs.shape == (len(demos) + len(tools), 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    r = ToolRetriever(tools, "dense", index_dir=tmp_path / "d")
    assert r.names("Is it going to rain in Oslo tomorrow?", 1) == ["getWeatherForecast"]
    assert r.names("I need a plane ticket to Lisbon", 1) == ["bookFlight"]
    assert "all-MiniLM-L6-v2" in read_manifest(tmp_path / "d")["spec"]["model"]
    assert ToolRetriever(tools, "hybrid", index_dir=tmp_path / "h").names("ticker quote", 1) == [
        "getStockPrice"
    ]
    clusters = tool_clusters(tools, n_clusters=3)
    assert set(clusters) == {t.name for t in tools} and set(clusters.values()) == {0, 1, 2}


@pytest.mark.shared
def test_bm25_recall_on_seal_tools_test_in_domain(shared_data):
    pool, _ = seal_pool(shared_data)
    assert len(pool) == 4076
    rset = seal_dpr_set(shared_data, "test_in_domain", pool)
    r = ToolRetriever(pool, "bm25")
    names = [[h.item.name for h in row] for row in r.search_batch(rset.queries, 10)]
    scores = retrieval_scores(names, rset.golds)
    assert scores["queries"] == 700 and scores["gold_pairs"] == 1794
    assert scores["R@5"] > 80 and scores["AllGold@5"] > 55  # measured 84.5 / 61.1


def test_cli_build_query_and_strict(tools, tmp_path, capsys):
    pool = tmp_path / "mytools.json"
    pool.write_text(json.dumps([t.to_dict() for t in tools]))
    common = ["--pool", str(pool), "--method", "bm25", "--index-dir", str(tmp_path / "idx")]
    assert main(["retrieve", "query", "weather in Paris", *common, "--strict"]) == 1
    assert "no index" in capsys.readouterr().err
    assert main(["retrieve", "build", *common]) == 0
    assert "built in" in capsys.readouterr().out
    assert main(["retrieve", "build", *common]) == 0
    assert "reloaded" in capsys.readouterr().out
    assert main(["retrieve", "query", "weather in Paris", *common, "-k", "2", "--json"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["name"] == "getWeatherForecast" and first["rank"] == 1
    assert main(["retrieve", "query", "  ", *common]) == 1
    assert "empty query" in capsys.readouterr().err
    (tmp_path / "empty.json").write_text("[]")
    assert (
        main(
            [
                "retrieve",
                "build",
                "--pool",
                str(tmp_path / "empty.json"),
                "--method",
                "bm25",
                "--index-dir",
                str(tmp_path / "idx"),
            ]
        )
        == 1
    )
    assert "empty tool pool" in capsys.readouterr().err


@pytest.mark.shared
def test_cli_eval_retrieval_bm25_on_tooldeer(shared_data, tmp_path, capsys):
    out = tmp_path / "run"
    argv = [
        "eval",
        "retrieval",
        "--dataset",
        "tooldeer",
        "--data-root",
        str(shared_data),
        "--methods",
        "bm25",
        "--index-dir",
        str(tmp_path / "idx"),
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    assert "tooldeer/test" in capsys.readouterr().out
    rows = json.loads((out / "scores.json").read_text())["scores"]
    assert rows[0]["queries"] == 445 and rows[0]["pool"] == 977
    assert sum(1 for _ in (out / "predictions.jsonl").open()) == 445  # rankings: the records
