"""Load test of `toollearn serve`: N concurrent chat requests from the official openai client.

The server runs the embedded model (default engine) on 127.0.0.1; every request asks for a tool
call over two tools (tool_choice auto, grammar-constrained). Two runs, each followed by one more
request to show the server still answers: the default admission bound (--max-queue 8: the
rest get an immediate 503), and a bound large enough to queue every request (latency then
grows with the queue, as one engine serves one request at a time). Figures: completed / 503 /
other, p50 and p95 latency of the completed ones, completed requests per second, and the
single-request latency measured first in the same process as the baseline.

    python benchmarks/server_load.py --requests 50 --threads 2
Writes benchmarks/results/server_load.json and server_load.md.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import time

from _results import RESULTS, write_results

from toollearn.engines.llama import LlamaEngine, quiet_openmp
from toollearn.serve.app import BackgroundServer, ServerConfig

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Get the current weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "get_time", "description": "Get the current time in a time zone",
        "parameters": {"type": "object", "properties": {"zone": {"type": "string"}},
                       "required": ["zone"]}}},
]  # fmt: skip
CITIES = ["Paris", "Rome", "Oslo", "Lima", "Cairo", "Tokyo", "Quito", "Perth", "Delhi", "Baku"]


async def one(client, i: int, max_tokens: int) -> tuple[str, float]:
    import openai

    t0 = time.perf_counter()
    try:
        await client.chat.completions.create(
            model="smollm2-135m", tools=TOOLS, max_tokens=max_tokens,
            messages=[{"role": "user", "content": f"What is the weather in {CITIES[i % 10]}?"}],
        )  # fmt: skip
        status = "ok"
    except openai.APIStatusError as exc:
        status = str(exc.status_code)
    except openai.APIConnectionError:
        status = "connection error"
    return status, time.perf_counter() - t0


async def burst(url: str, n: int, max_tokens: int) -> dict:
    import openai

    client = openai.AsyncOpenAI(base_url=url, api_key="none", max_retries=0, timeout=600)
    t0 = time.perf_counter()
    results = await asyncio.gather(*(one(client, i, max_tokens) for i in range(n)))
    wall = time.perf_counter() - t0
    after = await one(client, 0, max_tokens)
    await client.close()
    ok = sorted(s for status, s in results if status == "ok")
    q = statistics.quantiles(ok, n=20) if len(ok) >= 2 else [float("nan")] * 19
    return {"requests": n, "completed": len(ok),
            "rejected_503": sum(status == "503" for status, _ in results),
            "other": sum(status not in ("ok", "503") for status, _ in results),
            "p50_s": round(statistics.median(ok), 2) if ok else None,
            "p95_s": round(q[18], 2) if ok else None, "wall_s": round(wall, 1),
            "completed_per_s": round(len(ok) / wall, 2), "after": after[0],
            "after_s": round(after[1], 2)}  # fmt: skip


def run(args) -> dict:
    quiet_openmp()
    engine = LlamaEngine(n_threads=args.threads)
    rows = []
    for max_queue in (args.max_queue, args.requests + 1):
        config = ServerConfig(model_id="smollm2-135m", max_queue=max_queue, timeout=600)
        with BackgroundServer(engine, config) as server:
            if not rows:  # the baseline: one request alone, warm
                asyncio.run(burst(server.url, 1, args.max_tokens))
                single = asyncio.run(burst(server.url, 1, args.max_tokens))
                rows.append({"run": "one request alone", "max_queue": max_queue, **single})
            result = asyncio.run(burst(server.url, args.requests, args.max_tokens))
            rows.append({"run": f"{args.requests} concurrent", "max_queue": max_queue, **result})
    return {"rows": rows, "config": vars(args), "engine": engine.name,
            "platform": platform.platform(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}  # fmt: skip


def markdown(result: dict) -> str:
    base = result["rows"][0]["p50_s"]
    lines = [
        "| run | max queue | completed | 503 | other | p50 s | p95 s | p50 vs alone | "
        "completed/s | next request |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in result["rows"]:
        ratio = f"{r['p50_s'] / base:.1f}x" if r["p50_s"] and base else ""
        lines.append(
            f"| {r['run']} | {r['max_queue']} | {r['completed']} | {r['rejected_503']} "
            f"| {r['other']} | {r['p50_s']} | {r['p95_s']} | {ratio} | "
            f"{r['completed_per_s']} | {r['after']} ({r['after_s']} s) |"
        )
    c = result["config"]
    lines += ["", f"{result['engine']}, {c['threads']} threads, tool call over 2 tools, max "
              f"{c['max_tokens']} new tokens, {result['date']}; `python benchmarks/server_load.py "
              f"--requests {c['requests']} --threads {c['threads']}`"]  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--requests", type=int, default=50)
    p.add_argument("--max-queue", type=int, default=8)
    p.add_argument("--max-tokens", type=int, default=48)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args()
    result = run(args)
    write_results(args.out, "server_load", result, markdown(result))


if __name__ == "__main__":
    main()
