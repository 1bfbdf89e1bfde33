"""One training run in this process, timed step by step (benchmarks/training.py, merge_turns.py)."""

from __future__ import annotations

import json
import tempfile
import time
from typing import Any


def timed_train(data: str, **overrides: Any) -> dict[str, Any]:
    """Train `data` with these TrainConfig fields (unless they say otherwise, no evaluation,
    saving or logging) into a temporary folder: its train.json as `info`, and the tokens/s over
    the steps after the first (a warm-up)."""
    from transformers import TrainerCallback

    from toollearn.training import trainer
    from toollearn.training.config import load_config

    marks: list[tuple[float, int]] = []

    class Clock(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            marks.append((time.perf_counter(), int(state.num_input_tokens_seen)))

    with tempfile.TemporaryDirectory() as out:
        quiet = {"eval_samples": 0, "save_steps": 10_000, "eval_steps": 10_000,
                 "logging_steps": 10_000, "warmup_ratio": 0.0}  # fmt: skip
        config = load_config(None, output_dir=out, datasets={data: 1.0},
                             **{**quiet, **overrides})  # fmt: skip
        run = trainer.train(config, callbacks=[Clock()])
        info = json.loads((run / "train.json").read_text())
    (t1, n1), (t2, n2) = marks[0], marks[-1]
    return {"info": info, "timed_steps": len(marks) - 1, "timed_tokens": n2 - n1,
            "tokens_per_s": round((n2 - n1) / (t2 - t1), 1)}  # fmt: skip
