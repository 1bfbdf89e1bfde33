"""`toollearn train --config run.yaml [--FIELD VALUE ...]` and `toollearn export gguf RUN_DIR`.

The common fields of `training.config.TrainConfig` are flags, and `--set FIELD=VALUE`
(repeatable) sets any other; both override the YAML file. Datasets are given as `--dataset
PATH[=WEIGHT]` (repeatable). `--glpft MODE` trains alpha-UMi's roles
(stage 1, then planner/caller/summarizer adapters) into OUTPUT_DIR/<stage>/ with
OUTPUT_DIR/adapters.json, which `--role-adapters OUTPUT_DIR` of `run` and `eval stepwise` serves
on one backbone.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

FLAGS = ("output_dir", "model", "epochs", "max_minutes", "max_tokens_seen", "learning_rate",
         "lora_r", "batch_size", "samples", "seed", "threads", "device", "resume")  # fmt: skip


def _bool(text: str) -> bool:
    return text.lower() in ("1", "true", "yes")


def _is_bool(field: Any) -> bool:
    return field.type in ("bool",) or isinstance(field.default, bool)


def register(subparsers: Any) -> None:
    """Add `toollearn train` and `toollearn export`."""
    from toollearn.training.config import GLPFT_MODES, TrainConfig

    p = subparsers.add_parser("train", help="fine-tune (LoRA or full) on generated data",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--config", default=None, help="YAML file of TrainConfig fields")
    p.add_argument("--glpft", default=None, choices=GLPFT_MODES,
                   help="alpha-UMi training on `datagen umi` data: glpft (stage 1, then a "
                   "planner/caller/summarizer adapter each), or a baseline; the paper's "
                   "epochs and learning rates per stage")  # fmt: skip
    p.add_argument("--dataset", action="append", default=[], metavar="PATH[=WEIGHT]",
                   help="a data.jsonl (or its folder) and its mixing weight")  # fmt: skip
    fields = {f.name: f for f in dataclasses.fields(TrainConfig)}
    for name in FLAGS:
        flag = "--" + name.replace("_", "-")
        if _is_bool(fields[name]):
            p.add_argument(flag, default=None, type=_bool, metavar="BOOL")
        else:
            p.add_argument(flag, default=None, metavar=name.upper())
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                   help="any other TrainConfig field (lora_alpha, warmup_ratio, packing, ...; "
                   "training/config.py)")  # fmt: skip
    p.set_defaults(func=run_train)

    e = subparsers.add_parser("export", help="export a trained adapter for llama.cpp")
    esub = e.add_subparsers(dest="export_kind", metavar="FORMAT")
    e.set_defaults(func=lambda _a: e.print_help() or 2)
    g = esub.add_parser("gguf", help="a run's LoRA adapter as a GGUF LoRA for llama.cpp")
    g.add_argument("run", help="training run folder (holding adapter/) or an adapter folder")
    g.add_argument("--out", default=None,
                   help="output file (default RUN/adapter.gguf, or RUN/merged.gguf)")  # fmt: skip
    g.add_argument("--merged", action="store_true",
                   help="write the base model with the adapter merged in (a standalone GGUF; "
                   "the base is the run's model) instead of the adapter")  # fmt: skip
    g.add_argument("--dtype", choices=("f16", "f32", "q8_0"), default="f16",
                   help="f16 or f32 for an adapter, f16 or q8_0 for --merged")  # fmt: skip
    g.set_defaults(func=run_export)
    m = esub.add_parser("mix", help="GGUF LoRA adapters of one base mixed into one adapter "
                        "(the weighted sum of their deltas)")  # fmt: skip
    m.add_argument("adapters", nargs="+", metavar="ADAPTER[=WEIGHT]",
                   help="GGUF LoRA files, each with its weight (default: equal)")  # fmt: skip
    m.add_argument("--out", required=True, help="the mixed GGUF LoRA to write")
    m.set_defaults(func=run_mix)


def run_train(args: argparse.Namespace) -> int:
    from toollearn.training.config import TrainConfig, load_config
    from toollearn.training.trainer import train

    overrides: dict[str, Any] = {}
    fields = {f.name: f for f in dataclasses.fields(TrainConfig)}
    for name in FLAGS:
        if getattr(args, name, None) is not None:
            overrides[name] = getattr(args, name)
    for item in args.set:
        name, sep, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in fields or name in ("datasets", "glpft"):
            from toollearn.core.errors import DataError

            raise DataError(f"--set {item!r}: expected FIELD=VALUE with a TrainConfig field "
                            "(not datasets or glpft, which have flags)")  # fmt: skip
        overrides[name] = _bool(value) if _is_bool(fields[name]) else value
    if args.dataset:
        overrides["datasets"] = dict(_dataset(d) for d in args.dataset)
    config = load_config(args.config, **overrides)
    if config.datagen:
        from toollearn.cli.main import main
        from toollearn.training.recipe import make_missing_data

        make_missing_data(config.datagen, run=main, datasets=list(config.datasets))
    if config.glpft:
        from toollearn.training.glpft import run_glpft

        summary = run_glpft(config, config.output_dir, config.glpft)
        if summary.get("waiting"):
            print(
                f"trained {', '.join(summary['runs']) or 'nothing new'} into "
                f"{config.output_dir}; stages left to train: {', '.join(summary['waiting'])}"
            )
            return 0
        print(f"trained {', '.join(summary['runs'])} into {config.output_dir}; serve the roles "
              f"with --engine llama --role-adapters {config.output_dir}")  # fmt: skip
        return 0
    run = train(config)
    from toollearn.training.trainer import is_main_process

    if not is_main_process():  # a distributed run: rank 0 exports and reports
        return 0
    if config.method == "lora":
        from toollearn.training.export import export_lora_gguf

        gguf = export_lora_gguf(run / "adapter", run / "adapter.gguf")
        print(f"trained: {run} (adapter/, train.json, log.jsonl, loss.png); serve it with "
              f"--engine {serving_spec(config.model, gguf)}")  # fmt: skip
    else:
        print(f"trained: {run} (model/, train.json, log.jsonl, loss.png); serve it with "
              f"--engine hf:{run / 'model'}")  # fmt: skip
    return 0


def _dataset(text: str) -> tuple[str, float]:
    path, _, weight = text.partition("=")
    return path, float(weight) if weight else 1.0


def run_export(args: argparse.Namespace) -> int:
    from toollearn.core.errors import DataError
    from toollearn.training.export import export_lora_gguf, export_merged_gguf

    run = Path(args.run)
    adapter = run / "adapter" if (run / "adapter").is_dir() else run
    if args.merged:
        if args.dtype == "f32":
            raise DataError("a merged model is written as f16 or q8_0")
        from toollearn.training.trainer import base_model_path

        info = run / "train.json"
        if not info.is_file():
            raise DataError("--merged needs a training run folder (train.json names the base)")
        config = _json(info)["config"]
        model = base_model_path(config["model"])
        if model.suffix != ".gguf":
            raise DataError("--merged writes into the run's base GGUF; this run's base is not one")
        stack = [config["base_adapter"]] if config.get("base_adapter") else []  # GLPFT stage 1
        out = Path(args.out) if args.out else (run / "merged.gguf")
        path = export_merged_gguf(model, [*stack, adapter], out, args.dtype)
        print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB); serve it with "
              f"--engine llama:{path}")  # fmt: skip
        return 0
    if args.dtype == "q8_0":
        raise DataError("an adapter is written as f16 or f32")
    out = Path(args.out) if args.out else (run / "adapter.gguf")
    path = export_lora_gguf(adapter, out, args.dtype)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB); serve it with "
          f"--engine llama@{path}")  # fmt: skip
    return 0


def run_mix(args: argparse.Namespace) -> int:
    from toollearn.core.errors import DataError
    from toollearn.training.export import mix_lora_gguf

    default = 1.0 / len(args.adapters)
    try:
        pairs = [_dataset(a) if "=" in a else (a, default) for a in args.adapters]
    except ValueError as exc:
        raise DataError(f"a weight is not a number ({exc}); write ADAPTER=0.5") from None
    path = mix_lora_gguf(pairs, args.out)
    mix = ", ".join(f"{w:g} x {a}" for a, w in pairs)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB): {mix}; serve it on the adapters' "
          f"base, e.g. --engine tuned:BASE.gguf+{path}")  # fmt: skip
    return 0


def _json(path: Path) -> dict[str, Any]:
    import json

    return json.loads(path.read_text())


def serving_spec(model: str, adapter: Path) -> str:
    """The engine spec that serves a trained adapter: on the embedded model, or stacked on
    the adapters a `tuned` model had merged in (trained on them, served with them)."""
    kind, _, rest = model.partition(":")
    if kind != "tuned":
        return f"llama@{adapter}"
    from toollearn.models import tuned_stack

    return "tuned:" + "+".join(str(p) for p in [*tuned_stack(rest), adapter])
