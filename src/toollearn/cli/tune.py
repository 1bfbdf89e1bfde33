"""`toollearn tune --tools my_tools.json --out my-model`: the default model tuned on your tools.

One command runs the whole loop on a CPU:
1. a held-out test set and a held-out validation set for the tools (`datagen mixture`, each
   its own seed) and their queries;
2. training data for the same tools with those queries (and near-copies) kept out;
3. LoRA training within `--minutes` of training time (default 30), continuing the shipped
   general adapter (`tuned`, the model `call`, `run` and `serve` use; its rank, and the
   compact tool listings it reads) or, with `--from base`, a new adapter on the embedded model;
4. the adapter exported as GGUF (`OUT/adapter.gguf`) for llama.cpp: the whole adapter, served
   alone on the embedded model (`serve --adapter`);
5. the model it started from vs yours on the validation turns, which choose the one to serve
   (yours only where it answers more of them exactly: from a strong start, generated data can
   cost more than it adds), then both on the held-out test (constrained, as served): decision,
   exact calls, tool and argument F1 (`OUT/eval.json`, the per-turn records in
   `OUT/eval-*.jsonl`);
and prints how to serve the chosen model. Rerunning resumes: made data is kept, a finished
training run and its adapter are reused, an unfinished one continues from its last checkpoint
within the same budget, finished evaluations are read back. Each phase's wall time is kept in
`OUT/timings.json`, so a resumed run still reports the time its reused phases took.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# the rate that plans the LR schedule for --minutes (the clock stops training): the general
# recipe's settings (batches of 4 x 2, bf16 autocast with the frozen weights in bf16 where the
# CPU has bf16) read about 210 tokens/s on 2 cores with bf16, about 90 without
# (docs/results/general.md)
TOKENS_PER_S = {"bf16": 200.0, "fp32": 90.0}
# where training starts: (the engine it is scored against, the TrainConfig fields it sets, the
# tool listing and the learning rate by default)
START = {
    "tuned": ("tuned", {"init_adapter": "tuned", "lora_r": 32, "lora_alpha": 64}, "compact",
              2e-4),
    "base": ("base", {}, "json", 4e-4),
}  # fmt: skip


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("tune", help="generate data for your tools, LoRA-train the "
                              "default model further on a CPU, evaluate before vs after",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--tools", required=True, help="your tool file (any supported format)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--minutes", type=float, default=30.0, help="training time budget")
    p.add_argument("-n", "--samples", type=int, default=2000, help="training instances")
    p.add_argument("--test", type=int, default=100, help="held-out test instances")
    p.add_argument("--valid", type=int, default=50,
                   help="held-out validation instances that choose between the model tuning "
                   "started from and yours (0: no choice, yours is served)")  # fmt: skip
    p.add_argument("--from", dest="start", choices=START, default="tuned",
                   help="tuned: continue the shipped general adapter (default); base: a new "
                   "adapter on the embedded model as released")  # fmt: skip
    p.add_argument(
        "--docs",
        choices=("json", "compact"),
        default=None,
        help="how prompts list the tools (default: compact, as the general adapter reads them; "
        "json from base; serving follows the adapter's training record)",
    )
    p.add_argument(
        "--learning-rate",
        type=float,
        default=None,
        help="default: 2e-4 continuing the general adapter, 4e-4 from base",
    )
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=run_tune)


def _datagen(tools: str, n: int, seed: int, out: Path, docs: str, exclude: Path | None) -> Path:
    from toollearn.cli.main import main

    if not (out / "data.jsonl").is_file():
        argv = ["datagen", "mixture", "--tools", tools, "-n", str(n), "--seed", str(seed),
                "--docs", docs, "--out", str(out), "--no-tokens"]  # fmt: skip
        if exclude:
            argv += ["--exclude-queries", str(exclude)]
        if main(argv) != 0 or not (out / "data.jsonl").is_file():
            from toollearn.core.errors import DataError

            raise DataError("generating the data failed", str(out))
    return out


def run_tune(args: argparse.Namespace) -> int:
    from toollearn.datagen.dataset import read_dataset
    from toollearn.engines import load_engine
    from toollearn.evaluation.tool_calls import evaluate, summarize
    from toollearn.training.config import load_config
    from toollearn.training.export import export_lora_gguf
    from toollearn.training.trainer import train

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    before, fields, docs, rate = START[args.start]
    args.docs = args.docs or docs
    timings = _Timings(out / "timings.json")
    parts = ["test", "train"] + (["valid"] if args.valid else [])
    made = all((out / f"data-{part}" / "data.jsonl").is_file() for part in parts)
    with timings.phase("data", reused=made):
        test_dir = _datagen(args.tools, args.test, args.seed + 1, out / "data-test", args.docs,
                            None)  # fmt: skip
        test = read_dataset(test_dir)
        queries = _held_out(out / "test_queries.txt", test)
        valid = []
        if args.valid:  # its own seed; the test's queries (and any made training data's) kept out
            made_train = out / "data-train"
            kept = test + (read_dataset(made_train) if (made_train / "data.jsonl").is_file()
                           else [])  # fmt: skip
            excluded = _held_out(out / "valid_excluded.txt", kept)
            valid_dir = _datagen(args.tools, args.valid, args.seed + 2, out / "data-valid",
                                 args.docs, excluded)  # fmt: skip
            valid = read_dataset(valid_dir)
            queries = _held_out(out / "held_out_queries.txt", test + valid)
        train_dir = _datagen(args.tools, args.samples, args.seed, out / "data-train", args.docs,
                             queries)  # fmt: skip
    print(f"data: {len(test)} test turns, {len(valid)} validation turns, training data in "
          f"{train_dir}", flush=True)  # fmt: skip
    config = load_config(
        None, output_dir=str(out / "train"), datasets={str(train_dir): 1.0}, eval_samples=32,
        max_minutes=args.minutes, max_tokens_seen=int(args.minutes * 60 * _rate()),
        learning_rate=args.learning_rate or rate, batch_size=4, grad_accum=2, bf16_base=True,
        seed=args.seed, threads=args.threads, save_steps=20, eval_steps=50, logging_steps=5,
        resume=True, **fields,
    )  # fmt: skip
    run = Path(config.output_dir)
    if _finished(run) and (out / "adapter.gguf").is_file():
        print(f"training: reusing the finished run in {run}", flush=True)
        adapter = out / "adapter.gguf"
    else:
        run = train(config)
        adapter = export_lora_gguf(run / "adapter", out / "adapter.gguf")
        for stale in out.glob("eval-yours*.jsonl"):  # scored an earlier export
            stale.unlink()
        # its training record beside it: how it is prompted (models.adapter_docs)
        shutil.copyfile(run / "train.json", out / "adapter.train.json")
    # the trainer's own clock (model loading included; the last attempt's if resumed)
    timings.set("training", json.loads((run / "train.json").read_text())["wall_seconds"])
    options = {"n_threads": args.threads} if args.threads else {}
    scores, valid_scores, engines, valid_exact = {}, {}, {}, {}
    models = ((before, before), ("yours", f"llama@{adapter}"))
    splits = [(split, rows, into) for split, rows, into in
              (("valid", valid, valid_scores), ("test", test, scores)) if rows]  # fmt: skip

    def path(name: str, split: str) -> Path:
        return out / f"eval-{name}{'' if split == 'test' else '-valid'}.jsonl"

    reused = {(n, split): _reused(path(n, split), rows) for n, _ in models
              for split, rows, _ in splits}  # fmt: skip
    with timings.phase("evaluation", reused=all(reused.values())):
        for name, spec in models:
            engine = load_engine(spec, **options)
            for split, rows, into in splits:
                records = reused[name, split]
                if records is None:
                    records = evaluate(engine, rows)[1]
                    with path(name, split).open("w", encoding="utf-8") as fh:
                        fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
                into[name] = summarize(records)
                if split == "valid":
                    valid_exact[name] = [r["exact"] for r in records]
            engines[name] = {"spec": spec, **engine.describe()}
    info = json.loads((run / "train.json").read_text())
    report = {"tools": args.tools, "scores": scores, "test_turns": len(test),
              "valid_scores": valid_scores, "valid_turns": len(valid),
              "chosen": choose(valid_scores, before),
              "valid_difference": exact_difference(valid_exact, before),
              "train_samples": info["samples"]["train"], "tokens_seen": info["tokens_seen"],
              "seconds": timings.summary(),
              "adapter": str(adapter), "train_run": str(run), "started_from": before,
              "engines": engines,
              "decoding": {"greedy": True, "constrained": "tool-calls", "max_tokens": 256},
              "docs": args.docs}  # fmt: skip
    (out / "eval.json").write_text(json.dumps(report, indent=2) + "\n")
    print(table(report))
    print(advice(report))
    return 0


def _reused(path: Path, rows: list[Any]) -> list[dict[str, Any]] | None:
    """The per-turn records an earlier run of the same evaluation left in `path` (one for each
    of `rows`, the same queries in order), or None: a rerun after a stop scores only what is
    missing."""
    try:
        records = [json.loads(line) for line in path.open(encoding="utf-8")]
    except (OSError, ValueError):
        return None
    queries = [s.metadata.get("query", "") for s in rows]
    return records if [r.get("query") for r in records] == queries else None


def _held_out(path: Path, samples: list[Any]) -> Path:
    """`path` holding the queries of `samples`, one a line (kept out of the data made next)."""
    path.write_text("".join(f"{q}\n" for q in sorted({s.metadata.get("query", "")
                                                      for s in samples} - {""})))  # fmt: skip
    return path


def choose(valid_scores: dict[str, dict[str, float]], before: str) -> str:
    """The model to serve: yours only where it scores higher on the validation turns (exact,
    then tool F1, then argument F1); yours where there are none (`--valid 0`)."""
    if "yours" not in valid_scores:
        return "yours"
    keys = ("exact", "tool_f1", "arg_f1")
    ours, theirs = (tuple(valid_scores[n][k] for k in keys) for n in ("yours", before))
    return "yours" if ours > theirs else before


def exact_difference(exact: dict[str, list[int]], before: str, draws: int = 2000
                     ) -> dict[str, float] | None:  # fmt: skip
    """Yours minus the start in exact turns (percentage points) on the validation turns, with
    a paired bootstrap's 95% interval (the same turns drawn for both): how much of the choice
    chance could make."""
    if "yours" not in exact:
        return None
    import numpy as np

    diff = np.array(exact["yours"], dtype=float) - np.array(exact[before], dtype=float)
    rng = np.random.default_rng(0)
    means = diff[rng.integers(0, len(diff), size=(draws, len(diff)))].mean(axis=1)
    low, high = np.percentile(100 * means, [2.5, 97.5])
    return {"delta": round(100 * float(diff.mean()), 1), "low": round(float(low), 1),
            "high": round(float(high), 1)}  # fmt: skip


def advice(report: dict[str, Any]) -> str:
    """How to serve and call the chosen model. Where the validation turns chose the model
    tuning started from (tuning a strong start on generated data can lose what it did well:
    results/tune-travel-gpu), a note says so and yours follows as the alternative; where they
    tell the two apart only within chance, a note says that; a report without validation turns
    (made before they were kept) warns where yours answers fewer test turns exactly."""
    before, adapter, tools = report["started_from"], report["adapter"], report["tools"]
    yours = [f"serve it: toollearn serve --adapter {adapter}",
             f'call it: toollearn call "..." --tools {tools} --engine llama@{adapter}']  # fmt: skip
    notes = []
    if report.get("chosen", "yours") != "yours":
        v = report["valid_scores"]
        notes.append(f"note: yours answers fewer validation turns exactly than {before} "
                     f"({v['yours']['exact']:.1f} against {v[before]['exact']:.1f}), so "
                     f"{before} is the one to serve:")  # fmt: skip
        yours = [f"serve it: toollearn serve{_engine_arg(before)}",
                 f'call it: toollearn call "..." --tools {tools}{_engine_arg(before)}',
                 "\nyours, to try all the same:", *yours]  # fmt: skip
    elif (d := report.get("valid_difference")) and d["low"] <= 0 <= d["high"]:
        notes.append(f"note: on {report['valid_turns']} validation turns yours and {before} "
                     "differ within chance; more of them (--valid) tell the two apart "
                     "better")  # fmt: skip
    if "chosen" not in report:
        ours, theirs = report["scores"]["yours"]["exact"], report["scores"][before]["exact"]
        if ours < theirs:
            notes.append(f"note: yours answers fewer held-out turns exactly than {before} "
                         f"({ours:.1f} against {theirs:.1f}); {before} may serve you better "
                         "(toollearn serve)")  # fmt: skip
    return "\n" + "\n".join(notes + yours)


def _engine_arg(start: str) -> str:
    """The serve option that names the model tuning started from ("" for the default)."""
    return "" if start == "tuned" else f" --engine {start}"


def _rate() -> float:
    """The tokens/s that plan the schedule on this CPU (`TOKENS_PER_S`)."""
    from toollearn.training.trainer import cpu_has_bf16

    return TOKENS_PER_S["bf16" if cpu_has_bf16() else "fp32"]


def _finished(run: Path) -> bool:
    """Whether `run` holds a training run that ended (steps done or time budget spent)."""
    try:
        info = json.loads((run / "train.json").read_text())
    except (OSError, ValueError):
        return False
    done = info.get("stopped_by_time_budget") or info.get("steps") == info.get("planned_steps")
    return bool(done) and (run / "adapter").is_dir()


class _Timings:
    """Wall seconds per phase, kept in a file so that a rerun that reuses a phase's output
    still reports the time that phase took when it ran (None: it ran before timings were
    kept)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seconds: dict[str, float | None] = {}
        if path.is_file():
            self.seconds = json.loads(path.read_text())

    @contextmanager
    def phase(self, name: str, reused: bool = False) -> Iterator[None]:
        t0 = time.time()
        yield
        if not reused or name not in self.seconds:
            self.seconds[name] = None if reused else round(time.time() - t0, 1)
        self.path.write_text(json.dumps(self.seconds, indent=2) + "\n")

    def set(self, name: str, seconds: float) -> None:
        self.seconds[name] = round(seconds, 1)
        self.path.write_text(json.dumps(self.seconds, indent=2) + "\n")

    def summary(self) -> dict[str, float | None]:
        return {**self.seconds, "total": round(sum(v or 0.0 for v in self.seconds.values()), 1)}


def table(report: dict[str, Any]) -> str:
    """The before vs after table of a tune report."""
    keys = ("format", "decision", "exact", "tool_f1", "arg_f1")
    lines = ["model  split " + "  ".join(f"{k:>8}" for k in keys)]
    for split, scores in (("valid", report.get("valid_scores", {})), ("test", report["scores"])):
        for name, s in scores.items():
            lines.append(f"{name:<6} {split:<5} " + "  ".join(f"{s[k]:>8.1f}" for k in keys))
    if "chosen" in report:
        line = f"chosen on the {report['valid_turns']} validation turns: {report['chosen']}"
        if d := report.get("valid_difference"):
            chance = " (within chance)" if d["low"] <= 0 <= d["high"] else ""
            line += (f"; yours {d['delta']:+.1f} points exact, 95% interval [{d['low']:+.1f}, "
                     f"{d['high']:+.1f}]{chance}")  # fmt: skip
        lines.append(line)
    took = ", ".join(f"{k} {'(not timed)' if v is None else f'{v:.0f} s'}"
                     for k, v in report["seconds"].items() if k != "total")  # fmt: skip
    lines.append(f"{report['test_turns']} held-out turns; {report['train_samples']} training "
                 f"samples, {report['tokens_seen']} tokens; {took}")  # fmt: skip
    return "\n".join(lines)
