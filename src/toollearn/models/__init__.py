"""The tuned adapters that ship with toollearn, and the engine names `base`, `tuned`,
`tuned-papers`, `tuned-apps` and `tuned-agent`.

`general-135m.gguf` is the package's default adapter, a LoRA adapter (GGUF, f16) for the
embedded SmolLM2-135M-Instruct trained on the general tool-calling format only (`datagen
general`: one call, one tool among many, several calls, dependent calls, declines, small talk,
plain chat, answers after tool results, value formats), by `toollearn train --config
recipes/general-135m.yaml` on a 2-core CPU; `general-135m.train.json` beside it records the
data hashes, settings and versions (its prompts list tools compactly: `spec_docs`), NOTICE the
data sources. The engine spec `tuned` is the embedded model with it merged into the weights
(the default of `serve`, `call`, `mcp`, `tune` and the Python API; `engines.llama_merge`),
`base` the plain embedded model; either may name runtime adapters after `@`.
`llama@<TUNED_ADAPTER>` applies the same adapter at run time (same outputs up to rounding).
`tools-135m.gguf` carries the papers' formats (DEER's released format, Seal-Tools' prompt,
alpha-UMi's steps; `recipes/tools-135m-v3.yaml`, `tools-135m.train.json`): the engine spec
`tuned-papers` merges it, and the papers' runners and agents (`eval deer`, `eval seal-tools`,
`eval stepwise`, `eval episodes`, `run --agent deer|multi-role|react|multi-call`, `call
--answer-format seal-tools`) load it by default. Each adapter's training record names how its
prompts list tools (`spec_docs`), so every command prompts a model as it was trained.
`apps-135m.gguf` is a second adapter, trained only on the Home Search and Trip Booking programs
(`toollearn train --config recipes/apps-135m-v5.yaml`; `apps-135m.train.json`): the engine spec
`tuned-apps` merges it instead, and it is the default of the app benchmarks (`toollearn eval
home-search|trip-booking|apps-table`), where the single tools adapter writes few programs
that run.
`agent-135m.gguf` is a third adapter, trained on top of tools-135m for a multi-step agent
(`toollearn train --config recipes/tools-135m-agent-r4-all.yaml`; `agent-135m.train.json`) on
the alpha-UMi training trajectories in the general call format, each trajectory one row with
the loss on every model turn, so that the agent chains calls on the results and then replies
instead of calling again. The engine spec `tuned-agent` stacks
it on tools-135m, merged; `toollearn run`'s tool-calls agent keeps it by default (the general
adapter still calls again after a result where it answers).
`deer-gates.json` holds the gate that makes DEER's Call/NoCall decision by default
(`DecisionAgent.gated`: the query's similarity to the pool under the embedded MiniLM with the
LoRA adapter `deer-call-gate/`, trained on DEER's training branches for ranking and for the
decision, and its threshold, picked on ToolDEER's valid split; also its sure-call threshold,
below which `toollearn run`'s general agent must call on its first turn, picked there too), and
a Search/NoSearch classifier (`deer-search-gate.npz`) that is not on by default (measured: it
transfers only in part to real general queries and declines some tool requests).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toollearn.core.errors import EngineError

HERE = Path(__file__).resolve().parent
TUNED_ADAPTER = HERE / "general-135m.gguf"  # the general format: the package default
TUNED_INFO = HERE / "general-135m.train.json"
DEFAULT_ENGINE = "tuned"
PAPERS_ADAPTER = HERE / "tools-135m.gguf"  # the papers' formats (DEER, Seal-Tools, alpha-UMi)
PAPERS_INFO = HERE / "tools-135m.train.json"
PAPERS_ENGINE = "tuned-papers"
APPS_ADAPTER = HERE / "apps-135m.gguf"
APPS_INFO = HERE / "apps-135m.train.json"
APPS_ENGINE = "tuned-apps"
AGENT_ADAPTER = HERE / "agent-135m.gguf"
AGENT_INFO = HERE / "agent-135m.train.json"
AGENT_ENGINE = "tuned-agent"
DEER_GATES = HERE / "deer-gates.json"


_ADAPTERS = {  # kind: (adapter, training record), read when asked (tests swap them)
    "tools": lambda: (TUNED_ADAPTER, TUNED_INFO),
    "papers": lambda: (PAPERS_ADAPTER, PAPERS_INFO),
    "apps": lambda: (APPS_ADAPTER, APPS_INFO),
    "agent": lambda: (AGENT_ADAPTER, AGENT_INFO),
}


def tuned_adapter(kind: str = "tools") -> Path:
    """A shipped adapter's path (kind: tools, papers, apps or agent), or a clear error when
    this copy of toollearn lacks it."""
    path = _ADAPTERS[kind]()[0]
    if not path.is_file():
        raise EngineError(
            f"the tuned adapter {path} is missing from this installation; use the "
            "engine 'base' (--model base) or name an adapter: llama@FILE.gguf"
        )
    return path


def tuned_stack(adapters: str = "") -> list[Path]:
    """The GGUF LoRAs a `tuned[:a.gguf+b.gguf]` spec merges into the embedded model: the named
    ones ("+"-separated), else the shipped general adapter."""
    return [Path(p) for p in adapters.split("+") if p] or [tuned_adapter()]


def tuned_info(kind: str = "tools") -> dict[str, Any]:
    """A shipped adapter's training record (`train.json` of its run; kind: tools, papers, apps
    or agent)."""
    path = _ADAPTERS[kind]()[1]
    return json.loads(path.read_text()) if path.is_file() else {}


def resolve_alias(spec: str) -> str:
    """'base[@A]' -> 'llama[@A]', 'tuned-apps[@A]' -> 'tuned:<apps adapter>[@A]',
    'tuned-agent[@A]' -> 'tuned:<papers adapter>+<agent adapter>[@A]'; other specs
    (`tuned[@A]` included) unchanged. 'tuned' stays a kind of its own: the engine merges the
    shipped adapter into the weights (checked here, so a missing adapter fails before anything
    loads)."""
    name, sep, extra = spec.partition("@")
    if name == "base":
        return "llama" + sep + extra
    if name == APPS_ENGINE:
        return f"tuned:{tuned_adapter('apps')}" + sep + extra
    if name == PAPERS_ENGINE:
        return f"tuned:{tuned_adapter('papers')}" + sep + extra
    if name == AGENT_ENGINE:
        return f"tuned:{tuned_adapter('papers')}+{tuned_adapter('agent')}" + sep + extra
    if name == "tuned":
        tuned_adapter()
    return spec


def adapter_docs(adapter: str | Path) -> str:
    """How prompts list tools (`docs`: json or compact) for a model with this GGUF adapter: the
    style of the data it was trained on, from its training record (`NAME.train.json` beside a
    shipped adapter, `train.json` in a run folder); json when the record does not say."""
    path = Path(adapter)
    for info in (path.with_name(f"{path.stem}.train.json"), path.with_name("train.json")):
        if info.is_file():
            try:
                sources = json.loads(info.read_text(encoding="utf-8")).get("datasets", {})
            except ValueError:
                return "json"
            styles = {s.get("docs") for s in sources.values() if isinstance(s, dict)}
            return "compact" if "compact" in styles else "json"
    return "json"


def spec_docs(spec: str) -> str:
    """The tool listing style an engine spec's model was trained on: compact when any adapter
    it merges or applies was trained on compact prompts, else json (`adapter_docs`)."""
    spec = resolve_alias(spec)
    name, _, runtime = spec.partition("@")
    kind, _, merged = name.partition(":")
    adapters = [p for p in runtime.split("+") if p and "#" not in p]
    if kind == "tuned":
        adapters += [str(p) for p in tuned_stack(merged)]
    return "compact" if any(adapter_docs(a) == "compact" for a in adapters) else "json"


def deer_gates(search_classifier: bool = False) -> dict[str, Any]:
    """The shipped DEER gate settings (deer-gates.json), classifier paths made absolute; a call
    gate with its own encoder (`model`, a LoRA adapter folder here) gets the `gate` spec
    `similarity:<its absolute path>`. With `search_classifier`, `search` is the shipped
    optional search classifier (off by default)."""
    if not DEER_GATES.is_file():
        raise EngineError(f"the DEER gate settings {DEER_GATES} are missing from this installation")
    gates = json.loads(DEER_GATES.read_text())
    if search_classifier:
        gates["search"] = gates["search_classifier"]
    for key in ("search", "search_classifier"):
        if gates.get(key):
            gates[key]["path"] = str(HERE / gates[key]["file"])
    call = gates["call"]
    if call.get("model"):
        if not (HERE / call["model"]).is_dir():
            raise EngineError(f"the DEER call gate's encoder {HERE / call['model']} is missing")
        call["gate"] = f"{call['gate']}:{HERE / call['model']}"
    return gates
