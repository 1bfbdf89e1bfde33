"""Soak test of `toollearn serve`: N concurrent clients for M minutes, memory measured.

`toollearn serve` (the default model, continuous batching) runs as its own process on
loopback; N openai clients send a mix without pause: tool calls, streamed tool calls, streamed
plain chat, a tool-result turn, JSON replies (`response_format`), and bad requests (which must
get a 400), some streams abandoned after the first chunk. The server's resident memory is read
from /proc every 10 s: after a warm-up minute (the baseline), at the end, and its peak.
Bounded growth: the end within 10% of the baseline.

    python benchmarks/server_soak.py --clients 8 --minutes 5
Writes benchmarks/results/server_soak.json and server_soak.md.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import platform
import socket
import subprocess
import sys
import time
from pathlib import Path

from _procs import wait_until_up
from _results import RESULTS, write_results

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]  # fmt: skip
PERSON = {"type": "json_schema", "json_schema": {"name": "person", "strict": True, "schema": {
    "type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"]}}}  # fmt: skip


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def request(client, kind: str, i: int) -> str:
    import openai

    user = [{"role": "user", "content": f"What is the weather in city number {i}?"}]
    try:
        if kind == "call":
            await client.chat.completions.create(model="m", messages=user, tools=TOOLS,
                                                 max_tokens=48)  # fmt: skip
        elif kind in ("stream-call", "stream-chat", "abandon"):
            tools = TOOLS if kind == "stream-call" else None
            stream = await client.chat.completions.create(
                model="m", messages=user, max_tokens=48, stream=True,
                **({"tools": tools} if tools else {}))  # fmt: skip
            async for _ in stream:
                if kind == "abandon":
                    await stream.close()  # the client leaves after the first chunk
                    break
        elif kind == "result":
            call = {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
            }
            messages = [*user, {"role": "assistant", "content": None, "tool_calls": [call]},
                        {"role": "tool", "tool_call_id": "c1", "content": "4 C, snow"}]  # fmt: skip
            await client.chat.completions.create(model="m", messages=messages, tools=TOOLS,
                                                 max_tokens=48)  # fmt: skip
        elif kind == "json":
            bob = [{"role": "user", "content": f"Bob is {i % 90} years old. JSON."}]
            await client.chat.completions.create(model="m", max_tokens=48, messages=bob,
                                                 response_format=PERSON)  # fmt: skip
        else:  # bad
            await client.chat.completions.create(model="m", messages=user,
                                                 tool_choice="required")  # fmt: skip
        return "ok"
    except openai.APIStatusError as exc:
        return str(exc.status_code)
    except openai.APIConnectionError:
        return "connection error"


KINDS = ["call", "stream-call", "stream-chat", "result", "json", "call", "abandon", "bad"]


async def soak(url: str, pid: int, clients: int, seconds: float) -> dict:
    import openai

    client = openai.AsyncOpenAI(base_url=url, api_key="-", max_retries=0, timeout=300)
    counts: collections.Counter = collections.Counter()
    memory: list[tuple[float, float]] = []
    t0 = time.perf_counter()
    stop = t0 + seconds

    async def worker(w: int) -> None:
        n = 0
        while time.perf_counter() < stop:  # each client goes through every kind in turn
            kind = KINDS[(w + n) % len(KINDS)]
            counts[(kind, await request(client, kind, w + n * clients))] += 1
            n += 1

    async def sample() -> None:
        while time.perf_counter() < stop:
            memory.append((round(time.perf_counter() - t0, 1), round(rss_mb(pid), 1)))
            await asyncio.sleep(10)

    await asyncio.gather(sample(), *(worker(w) for w in range(clients)))
    memory.append((round(time.perf_counter() - t0, 1), round(rss_mb(pid), 1)))
    await client.close()
    warm = [m for t, m in memory if t >= 60] or [m for _, m in memory]
    return {"requests": sum(counts.values()),
            "by_kind": {f"{k} {s}": n for (k, s), n in sorted(counts.items())},
            "memory_mb": memory, "baseline_mb": warm[0], "end_mb": memory[-1][1],
            "peak_mb": max(m for _, m in memory),
            "growth": round(memory[-1][1] / warm[0] - 1, 3)}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--minutes", type=float, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-queue", type=int, default=None,
                    help="the server's admission bound (default 2 x clients: an abandoned "
                    "stream holds its slot until the engine's next step)")  # fmt: skip
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    toollearn = Path(sys.executable).with_name("toollearn")
    proc = subprocess.Popen([str(toollearn), "serve", "--model-id", "m", "--threads",
                             str(args.threads), "--port", str(port),
                             "--max-queue", str(args.max_queue or 2 * args.clients)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"})  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_until_up(f"{url}/models", seconds=600, proc=proc)
        result = asyncio.run(soak(url, proc.pid, args.clients, args.minutes * 60))
        alive = proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(30)
    result.update(config=vars(args), server_alive_at_end=alive, platform=platform.platform(),
                  date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))  # fmt: skip
    kinds = ", ".join(f"{k}: {n}" for k, n in result["by_kind"].items())
    table = (f"# Soak: {args.clients} clients for {args.minutes:g} minutes\n\n"
             f"| requests | memory after warm-up | at the end | peak | growth | server alive |\n"
             f"|---:|---:|---:|---:|---:|---|\n"
             f"| {result['requests']} | {result['baseline_mb']} MB | {result['end_mb']} MB | "
             f"{result['peak_mb']} MB | {result['growth']:+.1%} | {alive} |\n\n"
             f"By kind and status: {kinds}.\n\n`python benchmarks/server_soak.py --clients "
             f"{args.clients} --minutes {args.minutes:g}` ({result['date']})\n")  # fmt: skip
    write_results(args.out, "server_soak", result, table)


if __name__ == "__main__":
    main()
