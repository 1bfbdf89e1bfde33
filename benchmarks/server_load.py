"""Load test of `toollearn serve`: today's server (one request at a time), the new one
(continuous batching, `engines.llama_online`) and `llama_cpp.server` on the same GGUF.

Each server runs the shipped model the way the toolkit loads it on this CPU (`tuned`: the
adapter merged, a Q8_0 copy decoding and, for toollearn, an F16 copy reading prompts;
`llama_cpp.server` loads the same Q8_0 file, with the same thread count). The request mix is
the same for all: a weather or time question over two tools (tool_choice auto), from the
official openai client, C clients at once (closed loop, 4 x C requests; every request is
admitted). Figures per server and concurrency: completions/s, completion tokens/s (servers
answer in their own formats, so lengths differ), p50 and p95 latency. toollearn answers under
its grammar; `llama_cpp.server` answers in its chat template's format, unconstrained.

    python benchmarks/server_load.py --threads 2
Writes benchmarks/results/server_load.json and server_load.md.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import socket
import statistics
import subprocess
import time

from _procs import wait_until_up
from _results import RESULTS, write_results

from toollearn.engines import load_engine
from toollearn.engines.llama import llama_cpp_server_argv, quiet_openmp
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
ASKS = ["What is the weather in {}?", "What time is it in {}?", "Is it raining in {}?"]


async def one(client, model: str, i: int, max_tokens: int) -> tuple[str, float, int]:
    import openai

    t0 = time.perf_counter()
    question = ASKS[i % 3].format(CITIES[i % 10])
    try:
        out = await client.chat.completions.create(
            model=model, tools=TOOLS, max_tokens=max_tokens,
            messages=[{"role": "user", "content": question}])  # fmt: skip
        return "ok", time.perf_counter() - t0, out.usage.completion_tokens if out.usage else 0
    except openai.APIStatusError as exc:
        return str(exc.status_code), time.perf_counter() - t0, 0
    except openai.APIConnectionError:
        return "connection error", time.perf_counter() - t0, 0


async def clients(url: str, model: str, concurrency: int, total: int, max_tokens: int) -> dict:
    """`concurrency` clients sending `total` requests between them, each after the last."""
    import openai

    client = openai.AsyncOpenAI(base_url=url, api_key="-", max_retries=0, timeout=900)
    todo = iter(range(total))
    results: list[tuple[str, float, int]] = []

    async def worker() -> None:
        for i in todo:
            results.append(await one(client, model, i, max_tokens))

    await one(client, model, 0, max_tokens)  # warm
    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - t0
    await client.close()
    ok = sorted(s for status, s, _ in results if status == "ok")
    q = statistics.quantiles(ok, n=20) if len(ok) >= 2 else [ok[0] if ok else float("nan")] * 19
    return {"clients": concurrency, "requests": total, "completed": len(ok),
            "failed": len(results) - len(ok), "wall_s": round(wall, 1),
            "completions_per_s": round(len(ok) / wall, 2),
            "tokens_per_s": round(sum(n for *_, n in results) / wall, 1),
            "p50_s": round(statistics.median(ok), 2) if ok else None,
            "p95_s": round(q[18], 2) if ok else None}  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def llama_cpp_server(model_path: str, threads: int, levels: list[int], max_tokens: int) -> list:
    port = free_port()
    argv = llama_cpp_server_argv(model_path, "--n_threads", str(threads), "--n_threads_batch",
                                 str(threads), "--n_ctx", "4096", "--host", "127.0.0.1",
                                 "--port", str(port), "--model_alias", "m",
                                 "--chat_format", "chatml-function-calling")  # fmt: skip
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_until_up(f"{url}/models", proc=proc)
        return [asyncio.run(clients(url, "m", c, 4 * c, max_tokens)) for c in levels]
    finally:
        proc.terminate()
        proc.wait(30)


def run(args) -> dict:
    quiet_openmp()
    engine = load_engine("tuned", n_threads=args.threads)
    levels = [int(c) for c in args.clients.split(",")]
    rows = []
    for name, batch in (("toollearn serve, one at a time (before)", False),
                        ("toollearn serve, continuous batching", True)):  # fmt: skip
        config = ServerConfig(model_id="m", max_queue=max(levels) + 1, timeout=900, batch=batch)
        with BackgroundServer(engine, config) as server:
            for c in levels:
                row = asyncio.run(clients(server.url, "m", c, 4 * c, args.max_tokens))
                rows.append({"server": name, **row})
                print(rows[-1], flush=True)
            if server.app.state.worker.batcher is not None:
                server.app.state.worker.batcher.close()
    for row in llama_cpp_server(str(engine.model_path), args.threads, levels, args.max_tokens):
        rows.append({"server": "llama_cpp.server (same Q8_0 file)", **row})
        print(rows[-1], flush=True)
    return {"rows": rows, "config": vars(args), "engine": engine.name,
            "model_file": str(engine.model_path.name), "platform": platform.platform(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}  # fmt: skip


def markdown(result: dict) -> str:
    rows = result["rows"]
    before = {r["clients"]: r["completions_per_s"] for r in rows if "before" in r["server"]}
    lines = ["| server | clients | requests | completed | completions/s | vs before | "
             "completion tokens/s | p50 s | p95 s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for r in rows:
        ratio = r["completions_per_s"] / before[r["clients"]] if before.get(r["clients"]) else 0
        lines.append(f"| {r['server']} | {r['clients']} | {r['requests']} | {r['completed']} "
                     f"| {r['completions_per_s']} | {ratio:.2f}x | {r['tokens_per_s']} "
                     f"| {r['p50_s']} | {r['p95_s']} |")  # fmt: skip
    c = result["config"]
    command = f"python benchmarks/server_load.py --threads {c['threads']}"
    lines += ["", f"{result['engine']} ({result['model_file']}), {c['threads']} threads, a "
              f"question over 2 tools, at most {c['max_tokens']} new tokens, "
              f"{result['date']}; `{command}`"]  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clients", default="1,8,32", help="concurrency levels (4 x C requests)")
    p.add_argument("--max-tokens", type=int, default=48)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args()
    result = run(args)
    write_results(args.out, "server_load", result, markdown(result))


if __name__ == "__main__":
    main()
