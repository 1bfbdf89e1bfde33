"""Run several commands at once (one process each) and time them until all have ended."""

from __future__ import annotations

import os
import subprocess
import time


def run_together(cmds: list[list[str]], label: str) -> float:
    """Start every command together (llama.cpp threads waiting passively), wait for all, and
    return the wall seconds; a command that fails stops the benchmark with its stderr tail."""
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    t0 = time.perf_counter()
    running = [
        subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for cmd in cmds
    ]
    for proc in running:
        _, err = proc.communicate()
        if proc.returncode != 0:
            raise SystemExit(f"{label}: exited {proc.returncode}: {err[-2000:]}")
    return time.perf_counter() - t0


def wait_until_up(url: str, seconds: float = 300, proc: subprocess.Popen | None = None) -> None:
    """Poll `url` until it answers; SystemExit when `proc` exits first or time runs out."""
    import urllib.request

    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            if proc is not None and proc.poll() is not None:
                raise SystemExit(
                    f"the server exited ({proc.returncode}) before {url} answered"
                ) from None
            time.sleep(0.5)
    raise SystemExit(f"{url} did not answer in {seconds:g} s")
