"""Malformed and odd requests get a 4xx in OpenAI's error shape, never a 500 or a hang, and a
normal request is answered after them (`benchmarks/server_fuzz.py`, fewer requests)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")
pytest.importorskip("httpx")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from server_fuzz import FuzzEngine, fuzz  # noqa: E402

from toollearn.serve.app import BackgroundServer, ServerConfig  # noqa: E402


def test_hundreds_of_odd_requests_get_4xx_never_a_500_or_a_hang():
    with BackgroundServer(FuzzEngine(), ServerConfig(model_id="m")) as server:
        result = fuzz(server.url, 500, seed=1)
    assert result["n_failures"] == 0, result["failures"][:5]
    assert result["requests"] == 500 and result["normal_after"] == 200
    assert result["statuses"].get("400", 0) > 200 and result["statuses"].get("200", 0) > 20


@pytest.mark.model
def test_odd_requests_against_the_real_model_and_its_grammars():
    from toollearn.engines import load_engine

    engine = load_engine("tuned", n_threads=2)
    with BackgroundServer(engine, ServerConfig(model_id="m", timeout=60)) as server:
        result = fuzz(server.url, 60, seed=2)
    assert result["n_failures"] == 0, result["failures"][:5]
    assert result["normal_after"] == 200
