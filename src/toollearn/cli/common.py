"""Options and helpers shared by the commands: engine choice, data location, run directories."""

from __future__ import annotations

import argparse
from typing import Any

ENGINE_HELP = (
    "engine spec (default: %(default)s; tuned: the embedded model with the shipped general "
    "adapter (general-135m), tuned-deer: with DEER's adapter (deer-135m), tuned-seal: with "
    "Seal-Tools' (seal-135m), "
    "tuned-papers: with the papers' formats in one adapter (tools-135m), "
    "tuned-apps: with the apps-135m adapter, tuned-agent: with tools-135m and the agent-135m "
    "adapter for multi-turn calls, tuned-umi: the alpha-UMi role adapters (umi-135m, "
    "GPU-trained), base, llama@ADAPTER.gguf, hf:DIR, openai:URL#model, ...: "
    "see toollearn.engines)"
)


def add_user_engine_args(p: argparse.ArgumentParser) -> None:
    """--engine (default: the preset's model) and --threads: what `call` and `run` offer."""
    p.add_argument("--engine", default="preset",
                   help="the model instead of the preset's: base, tuned, tuned-papers, "
                   "llama@ADAPTER.gguf, hf:DIR, openai:URL#model, ... "
                   "(toollearn.engines)")  # fmt: skip
    p.add_argument("--threads", type=int, default=None,
                   help="llama.cpp threads (default: the CPUs available)")  # fmt: skip


def add_engine_args(
    p: argparse.ArgumentParser,
    model_flag: bool = True,
    default: str | None = None,
    llama_knobs: bool = True,
    engine_help: str = ENGINE_HELP,
) -> None:
    """--engine (and its shorthand --model base|tuned|tuned-deer|tuned-seal|tuned-papers|
    tuned-apps|tuned-agent|tuned-umi), --threads, and
    (`llama_knobs`) llama.cpp's --weights, --prefill-weights and --flash-attn. `default`: the
    engine when none is named (the shipped general adapter unless a command says otherwise)."""
    from toollearn.models import DEFAULT_ENGINE, ENGINE_NAMES

    default = default or DEFAULT_ENGINE
    p.add_argument("--engine", default=default, help=engine_help)
    if model_flag:
        p.add_argument("--model", dest="engine", choices=ENGINE_NAMES,
                       help="the embedded model plain (base), with the shipped default adapter "
                       "(tuned), DEER's (tuned-deer), Seal-Tools' (tuned-seal), the papers' "
                       "formats' in one "
                       "(tuned-papers), the apps' (tuned-apps), the papers' "
                       "and agent adapters (tuned-agent) or alpha-UMi's role adapters "
                       f"(tuned-umi); default {default}; the same as --engine NAME")  # fmt: skip
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="llama.cpp threads (default: the CPUs available; for batch jobs, 1 thread per "
        "process and one --shard per core is faster)",
    )
    if not llama_knobs:
        return
    p.add_argument("--weights", default=None,
                   help="llama.cpp weights that generate: file (as it is), f16, q8_0, q4_0, ... "
                   "(a cached quantized copy; default file)")  # fmt: skip
    p.add_argument("--prefill-weights", default=None,
                   help="weights of a second copy that reads the prompts (default: f16 for the "
                   "embedded model without --weights)")  # fmt: skip
    p.add_argument(
        "--flash-attn",
        choices=("on", "off"),
        default=None,
        help="llama.cpp flash attention (default off)",
    )


def add_preset_arg(p: argparse.ArgumentParser) -> None:
    """--preset: the policy (`toollearn.policy`) that `call`, `run` and `serve` share (the
    presets of request formats: not the apps' programs)."""
    from toollearn.policy import DEFAULT_PRESET, PRESETS, preset_help

    names = tuple(n for n, p in PRESETS.items() if p.answer_format != "programs")
    p.add_argument("--preset", choices=names, default=DEFAULT_PRESET,
                   help=f"the policy: model, gates, plan, repairs ({preset_help()}; where each "
                   "was fitted: toollearn.policy)")  # fmt: skip


def policy_from_args(args: argparse.Namespace) -> Any:
    """The `--preset` policy, on --engine/--model where one is named (args.engine is set to
    the model it runs)."""
    from toollearn.policy import preset

    policy = preset(args.preset)
    if args.engine not in (None, "preset"):
        policy = policy.with_engine(args.engine)
    args.engine = policy.engine
    return policy


def llama_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The llama.cpp options given by --weights, --prefill-weights and --flash-attn (unset ones
    left out)."""
    out: dict[str, Any] = {}
    for key in ("weights", "prefill_weights"):
        if getattr(args, key, None):
            out[key] = getattr(args, key)
    if getattr(args, "flash_attn", None):
        out["flash_attn"] = args.flash_attn == "on"
    return out


def add_sampling_args(p: argparse.ArgumentParser) -> None:
    """--temperature, --top-p and --seed of every model call (greedy by default)."""
    p.add_argument("--temperature", type=float, default=0.0, help="0 = greedy (default)")
    p.add_argument("--top-p", type=float, default=1.0, help="nucleus sampling (default 1.0)")
    p.add_argument("--seed", type=int, default=0, help="sampling and simulated-tool seed")


def add_plan_tuning_args(p: argparse.ArgumentParser) -> None:
    """The call plan's distinct margin and unfit gap (`agents.clause_plan`), shared by `run`,
    `eval episodes` and `eval stepwise`."""
    p.add_argument("--plan-margin", type=float, default=None, metavar="COSINE",
                   help="with a call plan: a request whose closest tool is planned "
                   "already gets the closest unplanned tool within this cosine margin "
                   "(default 0.06; negative: off; results/agent-plan-distinct)")  # fmt: skip
    p.add_argument("--plan-unfit-gap", type=float, default=None, metavar="COSINE",
                   help="with a call plan: two requests sharing a tool whose cosines "
                   "with it differ by more than this mark the weaker one unfit, and the plan "
                   "ends before it, then the reply (default 0.15; negative: off; "
                   "results/agent-plan-unfit)")  # fmt: skip


def sampling_from_args(args: argparse.Namespace) -> Any:
    """The `engines.base.Sampling` the flags name."""
    from toollearn.engines.base import Sampling

    return Sampling(args.temperature, args.top_p, args.seed)


def add_data_args(p: argparse.ArgumentParser, holds: str) -> None:
    """--data-root (the folder holding `holds`) and --sample (the bundled sample instead)."""
    p.add_argument(
        "--data-root", default=None, help=f"folder holding {holds} (default $TOOLLEARN_DATA)"
    )
    p.add_argument("--sample", action="store_true", help="use the bundled sample instead")


def add_run_args(p: argparse.ArgumentParser, out_required: bool = True) -> None:
    """--out, --limit, --shard, --seed of a resumable benchmark run."""
    p.add_argument("--out", required=out_required, help="run directory (resumed if it exists)")
    p.add_argument("--limit", type=int, default=None, help="first N examples only")
    p.add_argument(
        "--shard",
        default=None,
        metavar="K/N",
        help="run only shard K of N (every N-th example from the K-th, after --limit), "
        "each shard in its own --out; join them with `toollearn runs merge`",
    )
    p.add_argument("--seed", type=int, default=0)


def engine_options(spec: str, threads: int | None, **llama: Any) -> dict[str, Any]:
    """Keyword options for `load_engine(spec)`: threads and `llama` extras reach llama.cpp only."""
    if not is_llama(spec):
        return {}
    opts = {k: v for k, v in llama.items() if v is not None}
    if threads:
        opts["n_threads"] = threads
    return opts


def is_llama(spec: str) -> bool:
    """Whether a spec runs on llama.cpp (llama..., base..., tuned..., "tuned:/a.gguf" too)."""
    from toollearn.models import ENGINE_NAMES

    kind = spec.partition("@")[0].partition(":")[0].partition("#")[0]
    return spec.startswith("llama") or kind in ENGINE_NAMES


def load_engine_spec(spec: str, threads: int | None = None, **llama: Any) -> Any:
    """`load_engine(spec)` with --threads (and llama.cpp options) applied where they mean
    something."""
    from toollearn.engines import load_engine

    return load_engine(spec, **engine_options(spec, threads, **llama))


def load_engines(specs: dict[str, str], threads: int | None = None, **llama: Any) -> dict[str, Any]:
    """One engine per role (or any key): each distinct base model loaded once, specs that
    differ only in their adapter served as views of it (`engines.load_engines`)."""
    from toollearn.engines import load_engines as load

    local = {k: s for k, s in specs.items() if is_llama(s)}
    other = {k: s for k, s in specs.items() if k not in local}
    out = {**load(local, **engine_options("llama", threads, **llama)), **load(other)}
    return {key: out[key] for key in specs}


def role_specs(args: argparse.Namespace, single: bool = False) -> dict[str, str]:
    """{role: engine spec} for planner/caller/summarizer: --planner etc., else the role's
    adapter in --role-adapters DIR on --engine, else the role's shipped adapter where --engine
    is the alpha-UMi roles (`tuned-umi`; their single-LLM adapter for every role with
    `single`), else --engine."""
    from toollearn.models import UMI_ENGINE

    folder = getattr(args, "role_adapters", None)

    def spec(role: str) -> str:
        if getattr(args, role, None):
            return getattr(args, role)
        if folder:  # on the embedded model as released where --engine is the shipped roles
            backbone = "llama" if args.engine == UMI_ENGINE else args.engine
            return f"{backbone}@{folder}#{role}"
        if args.engine == UMI_ENGINE:
            return f"{UMI_ENGINE}#{'single' if single else role}"
        return args.engine

    return {r: spec(r) for r in ("planner", "caller", "summarizer")}


def add_role_args(p: argparse.ArgumentParser) -> None:
    """--planner/--caller/--summarizer engine specs and --role-adapters."""
    for role in ("planner", "caller", "summarizer"):
        p.add_argument(f"--{role}", default=None, help=f"{role} engine spec (default --engine)")
    p.add_argument("--role-adapters", default=None, metavar="DIR",
                   help="serve each role under its own adapter from DIR/adapters.json (a "
                   "`toollearn train --glpft` output) on one --engine backbone")  # fmt: skip


def load_engine_from_args(args: argparse.Namespace) -> Any:
    """The engine named by --engine/--threads."""
    return load_engine_spec(args.engine, args.threads, **llama_flags(args))
