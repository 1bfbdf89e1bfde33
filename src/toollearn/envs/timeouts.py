"""Run a Python callable with a time limit, in a thread (default) or a child process.

Why threads by default: tool callables are often closures or bound methods of a stateful
app whose state must persist between calls of one episode, and those can be neither
pickled nor shared with another process. A daemon thread keeps that state and never blocks
interpreter exit; on timeout the run moves on and records TIMEOUT, but the thread itself
cannot be killed (CPython has no safe way) and keeps running in the background until the
callable returns. For tools that may truly hang or burn CPU forever, use
`isolation="process"`: each call runs in a fresh `spawn`ed process that is terminated on
timeout; the callable must then be a picklable module-level function and cannot share
state with the caller.
"""

from __future__ import annotations

import multiprocessing as mp
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ISOLATIONS = ("thread", "process", "none")
STARTUP_SECONDS = 60.0  # a spawned interpreter may be slow to import; not the tool's time


@dataclass(frozen=True)
class Outcome:
    """status is "ok" | "error" | "timeout"; value is the return value when ok."""

    status: str
    value: Any = None
    detail: str = ""
    seconds: float = 0.0


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _run_inline(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Outcome:
    start = time.perf_counter()
    try:
        value = fn(**kwargs)
    except Exception as exc:  # a tool's own failure becomes an observation
        return Outcome("error", detail=_describe(exc), seconds=time.perf_counter() - start)
    return Outcome("ok", value, seconds=time.perf_counter() - start)


def _run_thread(fn: Callable[..., Any], kwargs: dict[str, Any], timeout: float) -> Outcome:
    box: dict[str, Outcome] = {}

    def target() -> None:
        box["out"] = _run_inline(fn, kwargs)

    start = time.perf_counter()
    worker = threading.Thread(target=target, name=f"tool-{getattr(fn, '__name__', '?')}")
    worker.daemon = True
    worker.start()
    worker.join(timeout)
    if "out" not in box:
        took = time.perf_counter() - start
        return Outcome("timeout", detail=f"no result after {timeout:g}s", seconds=took)
    return box["out"]


def _child(fn: Callable[..., Any], kwargs: dict[str, Any], conn: Any) -> None:
    conn.send(("ready", None, ""))  # the time limit starts now, not at process spawn
    try:
        conn.send(("ok", fn(**kwargs), ""))
    except Exception as exc:
        conn.send(("error", None, _describe(exc) + "\n" + traceback.format_exc(limit=3)))
    finally:
        conn.close()


def _run_process(fn: Callable[..., Any], kwargs: dict[str, Any], timeout: float) -> Outcome:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    start = time.perf_counter()
    proc = ctx.Process(target=_child, args=(fn, kwargs, child), daemon=True)
    proc.start()
    child.close()
    try:
        if not parent.poll(STARTUP_SECONDS) or parent.recv()[0] != "ready":
            return Outcome("error", detail="tool process did not start",
                           seconds=time.perf_counter() - start)  # fmt: skip
        start = time.perf_counter()
        if not parent.poll(timeout):
            return Outcome(
                "timeout",
                detail=f"no result after {timeout:g}s (process killed)",
                seconds=time.perf_counter() - start,
            )
        status, value, detail = parent.recv()
    except (EOFError, OSError) as exc:
        return Outcome(
            "error", detail=f"tool process died: {exc}", seconds=time.perf_counter() - start
        )
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join(1.0)
        if proc.is_alive():
            proc.kill()
            proc.join(1.0)
        parent.close()
    detail = detail.splitlines()[0] if detail else ""
    return Outcome(status, value, detail, time.perf_counter() - start)


def run_with_timeout(
    fn: Callable[..., Any],
    kwargs: dict[str, Any],
    timeout: float | None,
    isolation: str = "thread",
) -> Outcome:
    """Call `fn(**kwargs)`; exceptions become "error", overruns "timeout". Never raises."""
    if isolation not in ISOLATIONS:
        raise ValueError(f"isolation must be one of {ISOLATIONS}, not {isolation!r}")
    if isolation == "none" or timeout is None:
        return _run_inline(fn, kwargs)
    if isolation == "process":
        return _run_process(fn, kwargs, timeout)
    return _run_thread(fn, kwargs, timeout)
