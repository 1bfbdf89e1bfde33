"""`toollearn serve`: the OpenAI-compatible chat server (see `toollearn.serve.app`).

toollearn serve --port 8000                       # the embedded model, tuned (shipped adapter)
toollearn serve --model base                      # the embedded model as released
toollearn serve --adapter runs/tune-x/adapter.gguf --model-id my-tools   # base + your adapter
toollearn serve --model qwen2.5-0.5b-instruct.gguf   # a foreign model, in its own tool format
from openai import OpenAI; OpenAI(base_url="http://127.0.0.1:8000/v1", api_key="-")
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from toollearn.cli.common import add_engine_args, add_preset_arg, llama_flags, load_engine_spec
from toollearn.core.errors import DataError
from toollearn.models import MERGED_ENGINES


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("serve", help="OpenAI-compatible chat server with tool calls",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    add_engine_args(p, model_flag=False, engine_help="any engine spec instead of --model and "
                    "--adapter (toollearn.engines)")  # fmt: skip
    p.set_defaults(engine=None)  # --model and --adapter choose, unless --engine is given
    p.add_argument("--model", default=None,
                   help="tuned (the embedded model with the shipped adapter; the preset's "
                   "default), tuned-deer, tuned-seal, tuned-papers, tuned-apps, tuned-agent, "
                   "base (as released; the default with --adapter), or a GGUF file")  # fmt: skip
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
                   help="the most tokens an answer gets (larger requests are clamped)")  # fmt: skip
    p.add_argument("--prompt-format", choices=("auto", "toollearn", "template"), default="auto",
                   help="toollearn: tools in toollearn's call-list format (how toollearn "
                   "trains); template: the model's own chat template and its call syntax "
                   "(Hermes <tool_call> or Llama 3 JSON); auto: template for a GGUF file "
                   "whose template defines one, else toollearn")  # fmt: skip
    p.add_argument("--docs", choices=("json", "compact"), default=None,
                   help="how prompts list the tools (default: as the model and adapter were "
                   "trained, from their training records)")  # fmt: skip
    add_preset_arg(p)  # its gate and plan apply where tool_choice is auto; --model/--adapter win
    p.set_defaults(func=run_serve)


def engine_spec(model: str | None, adapter: str | None, default: str = "tuned") -> str:
    """The engine spec of --model and --adapter (`default`: the preset's model)."""
    model = model or ("base" if adapter else default)
    if adapter and not Path(adapter).is_file():
        raise DataError("adapter not found", adapter)
    if model == "tuned" or model in MERGED_ENGINES:
        if adapter:
            raise DataError(f"--model {model} already has its adapter; use --model base --adapter")
        return model
    if model == "base":
        spec = "base"
    else:
        path = Path(model)
        if path.suffix != ".gguf" or not path.is_file():
            raise DataError("--model is base, tuned, a tuned-* name or an existing .gguf file",
                            model)  # fmt: skip
        spec = f"llama:{path}"
    return f"{spec}@{adapter}" if adapter else spec


def default_model_id(model: str | None, adapter: str | None, default: str = "tuned") -> str:
    model = model or ("base" if adapter else default)
    names = {
        "base": "smollm2-135m",
        "tuned": "smollm2-135m-tools",
        "tuned-apps": "smollm2-135m-apps",
        "tuned-papers": "smollm2-135m-papers",
        "tuned-deer": "smollm2-135m-deer",
        "tuned-seal": "smollm2-135m-seal",
        "tuned-agent": "smollm2-135m-agent",
    }
    name = names.get(model, Path(model).stem)
    return f"{name}+{Path(adapter).stem}" if adapter else name


def template_prompt(engine: Any, prompt_format: str, foreign: bool) -> Any:
    """The TemplatePrompt of `--prompt-format` (None: toollearn's format). auto: the model's
    own template for a foreign GGUF file whose template defines a tool-call syntax."""
    from toollearn.formats.template_tools import dialect_of
    from toollearn.serve.chat import TemplatePrompt

    if prompt_format == "toollearn":
        return None
    template = getattr(engine, "chat_template", None)
    dialect = dialect_of(template.source) if template is not None else None
    if prompt_format == "template" and dialect is None:
        raise DataError("--prompt-format template: the model's chat template defines no tool "
                        "calls this server reads (Hermes <tool_call> or Llama 3 JSON); use "
                        "--prompt-format toollearn")  # fmt: skip
    if dialect is None or (prompt_format == "auto" and not foreign):
        return None
    return TemplatePrompt(template, dialect)


def run_serve(args: argparse.Namespace) -> int:
    from toollearn.policy import preset
    from toollearn.serve.app import ServerConfig, serve

    policy = preset(args.preset)
    spec = args.engine or engine_spec(args.model, args.adapter, policy.engine)
    engine = load_engine_spec(spec, args.threads, **llama_flags(args))
    settings = policy.server_settings(engine, args.threads)  # the preset's gate and plan
    foreign = spec.startswith("llama:") and not args.adapter  # --model FILE.gguf
    template = template_prompt(engine, args.prompt_format, foreign)
    model_id = args.model_id or default_model_id(args.model, args.adapter, policy.engine)
    config = ServerConfig(model_id=model_id, max_queue=args.max_queue, timeout=args.timeout,
                          max_tokens=args.max_tokens, docs=args.docs, template=template,
                          **settings)  # fmt: skip
    if template is not None:
        print(f"prompts in the model's own chat template, {template.dialect} tool calls",
              flush=True)  # fmt: skip
    else:
        from toollearn.engines.base import prompt_docs

        print(f"tools listed {args.docs or prompt_docs(engine)} in the prompts", flush=True)
    print(f"serving {config.model_id} ({getattr(engine, 'name', spec)}) under the {policy.name} "
          f"preset on http://{args.host}:{args.port}/v1", flush=True)  # fmt: skip
    serve(engine, config, args.host, args.port)
    return 0
