"""The OpenAI-compatible engine against a real local llama.cpp server (and failing servers)."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import socket
import subprocess
import threading
import time
import urllib.request

import pytest

from toollearn.core.types import Tool
from toollearn.decoding.seal_tools import seal_calls_constraint
from toollearn.engines import load_engine, user
from toollearn.engines.openai_http import OpenAIEngine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """`python -m llama_cpp.server` with the embedded model on 127.0.0.1 (killed after), its
    models loaded as toollearn loads them (`cpu_weight_buffers`: no AMX buffers on AMX CPUs)."""
    pytest.importorskip("llama_cpp.server.app")
    from toollearn.engines.llama import embedded_model_path, llama_cpp_server_argv

    port = _free_port()
    cmd = llama_cpp_server_argv(embedded_model_path(), "--host", "127.0.0.1", "--port",
                                str(port), "--n_threads", "1", "--n_ctx", "2048")  # fmt: skip
    env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(url + "/models", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("llama_cpp.server exited at start")
                time.sleep(0.25)
        else:
            pytest.fail("llama_cpp.server did not start in 60 s")
        yield proc, url
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.model
@pytest.mark.slow
def test_real_server_completions_chat_constraint_then_killed(server):
    proc, url = server
    engine = load_engine(f"openai:{url}#smollm2", concurrency=2, retries=1, backoff=0.05)
    raw, chat = engine.complete(["The capital of France is", user("Say hi.")], max_tokens=8)
    assert raw.ok and chat.ok and raw.completion_tokens > 0 and chat.text
    tool = Tool("getTime", "Current time", responses={"time": {"type": "str"}})
    c = seal_calls_constraint([tool], allow_empty=False)
    got = engine.complete([user("What time is it?")], max_tokens=48, constraint=c)[0]
    assert json.loads(got.text)[0]["api"] == "getTime"

    proc.kill()
    proc.wait(timeout=10)
    t0 = time.perf_counter()
    dead = engine.complete(["hello"], max_tokens=4)[0]
    assert not dead.ok and dead.finish_reason == "error"
    assert "gave up after 2 attempts" in dead.error and "cannot reach" in dead.error
    assert time.perf_counter() - t0 < 10


class _Flaky(http.server.BaseHTTPRequestHandler):
    """A real HTTP server that answers "ok" prompts, is slow on "slow", 503s on the rest."""

    calls: dict[str, int] = {}

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["prompt"]
        _Flaky.calls[prompt] = _Flaky.calls.get(prompt, 0) + 1
        if prompt == "slow":
            time.sleep(1.0)
        if prompt == "ok":
            out = json.dumps(
                {
                    "choices": [{"text": " fine", "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1},
                }
            ).encode()
            self.send_response(200)
        elif prompt == "bad":
            out = b'{"error": "bad request"}'
            self.send_response(400)
        else:
            out = b'{"error": "overloaded"}'
            self.send_response(503)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError):
            self.wfile.write(out)

    def log_message(self, *args):
        pass


@pytest.fixture()
def flaky():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Flaky)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    _Flaky.calls = {}
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()
    srv.server_close()


def test_retries_then_clear_errors_and_finished_results_kept(flaky):
    engine = OpenAIEngine(flaky, timeout=0.3, retries=2, backoff=0.01, concurrency=3)
    ok, busy, slow, bad = engine.complete(["ok", "busy", "slow", "bad"], max_tokens=4)
    assert ok.ok and ok.text == " fine"
    assert "HTTP 503" in busy.error and "gave up after 3 attempts" in busy.error
    assert "cannot reach" in slow.error and "gave up after 3 attempts" in slow.error
    assert "HTTP 400" in bad.error and "bad request" in bad.error
    assert _Flaky.calls == {"ok": 1, "busy": 3, "slow": 3, "bad": 1}  # 4xx is not retried


def test_constraint_styles(flaky):
    from toollearn.core.errors import EngineError
    from toollearn.decoding import Constraint

    g = Constraint("gbnf", 'root ::= "x"')
    assert OpenAIEngine(flaky)._constraint_fields(g) == {"grammar": 'root ::= "x"'}
    assert OpenAIEngine(flaky, constraint_style="vllm")._constraint_fields(g) == {
        "guided_grammar": 'root ::= "x"'
    }
    with pytest.raises(EngineError):
        OpenAIEngine(flaky, constraint_style="none").complete(["ok"], constraint=g)
