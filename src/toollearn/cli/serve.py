"""`toollearn serve`: the OpenAI-compatible chat server (see `toollearn.serve.app`).

toollearn serve --port 8000                       # the embedded model
toollearn serve --adapter runs/train/x/adapter.gguf --model-id my-tools
from openai import OpenAI; OpenAI(base_url="http://127.0.0.1:8000/v1", api_key="-")
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from toollearn.cli.common import add_engine_args, llama_flags, load_engine_spec
from toollearn.core.errors import DataError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("serve", help="OpenAI-compatible chat server with tool calls",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    add_engine_args(p)
    p.add_argument("--model", default="base",
                   help="base (the embedded model), tuned (the embedded model with the tuned "
                   "adapter shipped in the package), or a GGUF file (default base)")  # fmt: skip
    p.add_argument("--adapter", default=None, help="a GGUF LoRA adapter to apply")
    p.add_argument(
        "--model-id",
        default=None,
        help="the id clients send as `model` (default from the model and adapter)",
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--max-queue",
        type=int,
        default=8,
        help="requests admitted at once (running + waiting); more get a 503",
    )
    p.add_argument("--timeout", type=float, default=120.0,
                   help="seconds before a request gets a 504 (default 120)")  # fmt: skip
    p.add_argument("--max-tokens", type=int, default=1024,
                   help="the largest max_tokens a request may ask for")  # fmt: skip
    p.add_argument("--docs", choices=("json", "compact"), default="json",
                   help="how prompts list the tools: as the model was trained (an adapter from "
                   "`toollearn tune --docs compact` needs compact)")  # fmt: skip
    p.set_defaults(func=run_serve)


TUNED_ADAPTER = Path(__file__).resolve().parents[1] / "models" / "tools-135m.gguf"


def engine_spec(model: str, adapter: str | None) -> str:
    """The engine spec of --model and --adapter."""
    if model == "tuned":
        if not TUNED_ADAPTER.is_file():
            raise DataError(
                "this version of toollearn ships no tuned adapter yet; serve the "
                "base model or pass --adapter FILE.gguf (e.g. from toollearn tune)"
            )
        if adapter:
            raise DataError("--model tuned already names its adapter; drop --adapter")
        return f"llama@{TUNED_ADAPTER}"
    if model == "base":
        spec = "llama"
    else:
        path = Path(model)
        if path.suffix != ".gguf" or not path.is_file():
            raise DataError("--model is base or an existing .gguf file", model)
        spec = f"llama:{path}"
    if adapter:
        if not Path(adapter).is_file():
            raise DataError("adapter not found", adapter)
        spec += f"@{adapter}"
    return spec


def default_model_id(model: str, adapter: str | None) -> str:
    name = "smollm2-135m" if model == "base" else Path(model).stem
    return f"{name}+{Path(adapter).stem}" if adapter else name


def run_serve(args: argparse.Namespace) -> int:
    from toollearn.serve.app import ServerConfig, serve

    spec = args.engine if args.engine != "llama" else engine_spec(args.model, args.adapter)
    engine = load_engine_spec(spec, args.threads, **llama_flags(args))
    config = ServerConfig(model_id=args.model_id or default_model_id(args.model, args.adapter),
                          max_queue=args.max_queue, timeout=args.timeout,
                          max_tokens=args.max_tokens, docs=args.docs)  # fmt: skip
    print(f"serving {config.model_id} ({getattr(engine, 'name', spec)}) on "
          f"http://{args.host}:{args.port}/v1", flush=True)  # fmt: skip
    serve(engine, config, args.host, args.port)
    return 0
