"""Fuzzing `/v1/chat/completions`: malformed and odd requests get a 4xx in OpenAI's error
shape, never a 500 or a hang, and a normal request is answered after them.

Requests are drawn by hypothesis: a valid body with one or more fields replaced by arbitrary
JSON or by near-valid shapes (messages with odd roles, contents and tool calls; tools with odd
names and JSON Schemas; odd tool_choice, response_format, stop, limits, stream options), whole
bodies that are not objects, and bytes that are not JSON. The server runs a scripted engine
that compiles nothing, so what is measured is the request path (parsing, validation, grammar
building, answer reading, streaming), thousands of requests a minute; `--engine tuned` runs
the real model (slow: use few requests). Each request has a 20 s client timeout (a hang).

    python benchmarks/server_fuzz.py --requests 5000
Writes benchmarks/results/server_fuzz.json and server_fuzz.md (with `--engine`:
server_fuzz-ENGINE.*). `tests/serve/test_fuzz.py`
runs the same strategies with fewer requests.
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from typing import Any

from hypothesis import strategies as st

KEYS = ("model", "messages", "tools", "tool_choice", "max_tokens", "max_completion_tokens",
        "temperature", "top_p", "seed", "stop", "stream", "stream_options", "n",
        "response_format", "parallel_tool_calls", "logprobs", "top_logprobs", "user",
        "metadata", "store", "frequency_penalty")  # fmt: skip

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids,
                                                              max_size=4),
    max_leaves=12,
)  # fmt: skip
names = st.sampled_from(["get_weather", "f", "", "a b", "x" * 300, "ünï", "1x", "a.b", "$"])
schemas = st.recursive(
    st.fixed_dictionaries({"type": st.sampled_from(
        ["string", "integer", "number", "boolean", "null", "array", "object", "date", 7])})
    | st.fixed_dictionaries({"enum": st.lists(json_values, max_size=4)})
    | st.fixed_dictionaries({"const": json_values}) | json_values,
    lambda kids: st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.dictionaries(st.text(max_size=6), kids,
                                                                  max_size=4)},
        optional={"required": st.lists(st.text(max_size=6), max_size=3) | json_values})
    | st.fixed_dictionaries({"type": st.just("array"), "items": kids},
                            optional={"minItems": st.integers(-3, 40),
                                      "maxItems": st.integers(-3, 40)})
    | st.fixed_dictionaries({"anyOf": st.lists(kids, max_size=3)}),
    max_leaves=8,
)  # fmt: skip
tools = st.lists(
    st.fixed_dictionaries({"type": st.sampled_from(["function", "function", "retrieval"]),
                           "function": st.fixed_dictionaries(
                               {"name": names}, optional={"description": json_values,
                                                          "parameters": schemas})})
    | json_values,
    max_size=4,
)  # fmt: skip
tool_calls = st.lists(
    st.fixed_dictionaries({"id": st.sampled_from(["c1", "c2", ""]) | json_values,
                           "type": st.just("function"),
                           "function": st.fixed_dictionaries(
                               {"name": names | json_values,
                                "arguments": st.sampled_from(['{"city": "Rome"}', "{", "[]",
                                                              "null", ""]) | json_values})})
    | json_values,
    max_size=2,
)  # fmt: skip
contents = (st.text(max_size=40) | st.none() | json_values
            | st.lists(st.fixed_dictionaries({"type": st.sampled_from(["text", "image_url"]),
                                              "text": st.text(max_size=10) | json_values}),
                       max_size=3))  # fmt: skip
messages = st.lists(
    st.fixed_dictionaries({"role": st.sampled_from(["system", "developer", "user", "assistant",
                                                    "tool", "robot"]) | json_values,
                           "content": contents},
                          optional={"tool_calls": tool_calls,
                                    "tool_call_id": st.sampled_from(["c1", "c2"]) | json_values})
    | json_values,
    max_size=5,
)  # fmt: skip
near = {
    "messages": messages,
    "tools": tools,
    "tool_choice": st.sampled_from(["auto", "none", "required", "sometimes"])
    | st.fixed_dictionaries({"type": st.just("function"),
                             "function": st.fixed_dictionaries({"name": names})}),
    "response_format": st.fixed_dictionaries(
        {"type": st.sampled_from(["text", "json_object", "json_schema", "yaml"])},
        optional={"json_schema": st.fixed_dictionaries({"name": names},
                                                       optional={"schema": schemas,
                                                                 "strict": st.booleans()})}),
    "stop": st.text(max_size=5) | st.lists(st.text(max_size=5), max_size=5),
    "stream": st.booleans(),
    "stream_options": st.fixed_dictionaries({"include_usage": st.booleans() | json_values}),
    "max_tokens": st.integers(-5, 10**9),
    "n": st.integers(-1, 12),
}  # fmt: skip


@st.composite
def bodies(draw: Any) -> bytes:
    """One request body (bytes): mostly a valid body with fields replaced, sometimes junk."""
    kind = draw(st.sampled_from(["fields", "fields", "fields", "fields", "json", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=60))
    if kind == "json":
        return json.dumps(draw(json_values)).encode()
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}],
                            "max_tokens": 8}  # fmt: skip
    for key in draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=4, unique=True)):
        odd = draw(st.booleans())
        body[key] = draw(near[key]) if key in near and not odd else draw(json_values)
    return json.dumps(body, ensure_ascii=draw(st.booleans())).encode()


class FuzzEngine:
    """A scripted engine for the request path: a call-shaped answer under a call grammar, a
    reply otherwise."""

    name, supports_constraints = "fuzz", True

    def complete(self, prompts: Any, *, constraint: Any = None, **kw: Any) -> list[Any]:
        from toollearn.engines.base import Completion

        text = "ok"
        if constraint is not None:
            text = {"tool-calls": '[{"name": "get_weather", "arguments": {"city": "Rome"}}]',
                    "tool-calls-no-call": "[]\nok"}.get(constraint.name, "{}")  # fmt: skip
        return [Completion(text, "stop", 3, 2) for _ in prompts]


def check(response: Any) -> str | None:
    """What is wrong with a response (None: a 2xx, or a 4xx in OpenAI's error shape)."""
    if response.status_code >= 500:
        return f"{response.status_code}: {response.text[:200]}"
    if response.status_code >= 400:
        try:
            err = response.json()["error"]
            assert {"message", "type", "param", "code"} <= set(err) and err["message"]
        except Exception:
            return f"{response.status_code} not in OpenAI's error shape: {response.text[:200]}"
    return None


def fuzz(url: str, requests: int, seed: int = 0) -> dict[str, Any]:
    """Send `requests` drawn bodies to `url` (the /v1 root), then one normal request."""
    import random

    import httpx
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed

    statuses: collections.Counter = collections.Counter()
    failures: list[str] = []
    client = httpx.Client(timeout=20)
    rng = random.Random(seed)

    @hseed(seed)
    @settings(max_examples=requests, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(body=bodies())
    def one(body: bytes) -> None:
        ctype = "application/json" if rng.random() < 0.95 else "text/plain"
        try:
            r = client.post(f"{url}/chat/completions", content=body,
                            headers={"content-type": ctype})  # fmt: skip
        except httpx.TimeoutException:
            statuses["hang"] += 1
            failures.append(f"hang: {body[:200]!r}")
            return
        statuses[r.status_code] += 1
        problem = check(r)
        if problem:
            failures.append(f"{problem} <- {body[:300]!r}")

    t0 = time.perf_counter()
    one()
    seconds = time.perf_counter() - t0
    normal = client.post(f"{url}/chat/completions", json={
        "model": "m", "messages": [{"role": "user", "content": "Weather in Rome?"}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {
            "type": "object", "properties": {"city": {"type": "string"}}}}}]})  # fmt: skip
    return {
        "requests": sum(statuses.values()),
        "statuses": {str(k): v for k, v in sorted(statuses.items(), key=str)},
        "failures": failures[:50],
        "n_failures": len(failures),
        "seconds": round(seconds, 1),
        "normal_after": normal.status_code,
    }


def main() -> None:
    from _results import RESULTS, write_results

    from toollearn.serve.app import BackgroundServer, ServerConfig

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=5000)
    ap.add_argument("--engine", default=None, help="a real engine spec (default: scripted)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    if args.engine:
        from toollearn.engines import load_engine

        engine: Any = load_engine(args.engine, n_threads=args.threads)
    else:
        engine = FuzzEngine()
    with BackgroundServer(engine, ServerConfig(model_id="m", timeout=60)) as server:
        result = fuzz(server.url, args.requests)
    result["engine"] = args.engine or "scripted"
    statuses = ", ".join(f"{k}: {v}" for k, v in result["statuses"].items())
    table = (
        f"# Fuzzing /v1/chat/completions ({result['engine']} engine)\n\n"
        f"| requests | status codes | failures (5xx, hang, not OpenAI's error shape) | "
        f"seconds | a normal request after |\n|---:|---|---:|---:|---:|\n"
        f"| {result['requests']} | {statuses} | {result['n_failures']} | {result['seconds']} "
        f"| {result['normal_after']} |\n"
    )
    if result["failures"]:
        table += "\nFirst failures:\n\n" + "\n".join(f"- `{f}`" for f in result["failures"][:10])
    name = f"server_fuzz-{args.engine}" if args.engine else "server_fuzz"
    write_results(args.out, name, result, table + "\n")


if __name__ == "__main__":
    main()
