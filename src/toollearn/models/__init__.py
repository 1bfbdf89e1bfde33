"""The tuned adapters that ship with toollearn, and the engine names `base`, `tuned`,
`tuned-deer`, `tuned-seal`, `tuned-papers`, `tuned-apps`, `tuned-agent` and `tuned-umi`. Each
adapter's training record names how its prompts list tools (`spec_docs`), so every command
prompts a model as it was trained; NOTICE names the data sources.

- `general-135m.gguf`, the package default (`tuned`: merged into the embedded
  SmolLM2-135M-Instruct's weights, `engines.llama_merge`; the model of `serve`, `call`, `run`,
  `mcp`, `tune` and the Python API; `llama@<TUNED_ADAPTER>` applies it at run time): a LoRA
  (GGUF, f16) trained on the general tool-calling format only (`datagen general`),
  GPU-trained: `recipes/general-135m-gpu/` (the CPU recipe `recipes/general-135m.yaml` at GPU
  scale, 14M tokens on a lent H200; the CPU recipe's two-stage adapter that shipped before is
  `results/train/general-135m-more/adapter.gguf`). `general-135m.train.json` records the run
  (data hashes, settings, package versions).
- `deer-135m.gguf` (`tuned-deer`, merged): DEER's released format only (`recipes/deer-135m.yaml`),
  the default of `eval deer` and `run --agent deer`.
- `seal-135m.gguf` (`tuned-seal`, merged): the Seal-Tools paper's prompt and call list only
  (`recipes/seal-135m.yaml`), the default of `eval seal-tools`: chosen over the papers' shared
  adapter on Seal-Tools' dev split (175 queries, constrained: Tool F1 77.3 -> 84.5, Param F1
  45.2 -> 48.3; `results/eval-seal-135m/dev`).
- `tools-135m.gguf` (`tuned-papers`, merged): the papers' formats in one adapter (DEER,
  Seal-Tools, the apps, alpha-UMi's single LLM and natural ToolDEER calls:
  `recipes/tools-135m-v3.yaml`), the model of `call --preset seal-tools` (its pipeline was
  fitted on dev with this adapter) and `run --agent react|multi-call`; `tuned-agent` stacks on
  it.
- `umi-135m/` (`tuned-umi[#ROLE]`, applied at run time): alpha-UMi's GLPFT roles, GPU-trained
  (a lent H100, 2,000 samples a role: `results/train/glpft-gpu`): the single-LLM stage-1
  adapter and the planner, caller and summarizer adapters trained on top of it;
  `adapters.json` names each role's stack. The default of `eval stepwise`, `eval episodes`
  and `run --agent multi-role`.
- `apps-135m.gguf` (`tuned-apps`, merged): the Home Search and Trip Booking programs only
  (`recipes/apps-135m-v5.yaml`), the default of `eval home-search|trip-booking|apps-table`.
- `agent-135m.gguf` (`tuned-agent`: stacked on tools-135m, merged): a multi-step agent in the
  general call format, trained on the alpha-UMi training trajectories
  (`recipes/tools-135m-agent-r4-all.yaml`); the `agent` preset's model.
- `deer-gates.json`: the gate that makes DEER's Call/NoCall decision by default
  (`DecisionAgent.gated`: the query's similarity to the pool under the embedded MiniLM with the
  LoRA adapter `deer-call-gate/`, trained on DEER's training branches, its threshold picked on
  ToolDEER's valid split; also the sure-call threshold of the default preset's call gate), and
  a Search/NoSearch classifier (`deer-search-gate.npz`), off by default (it transfers only in
  part to real general queries).
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
DEER_ADAPTER = HERE / "deer-135m.gguf"  # DEER's released format only
DEER_INFO = HERE / "deer-135m.train.json"
DEER_ENGINE = "tuned-deer"
SEAL_ADAPTER = HERE / "seal-135m.gguf"  # the Seal-Tools paper's prompt and call list only
SEAL_INFO = HERE / "seal-135m.train.json"
SEAL_ENGINE = "tuned-seal"
APPS_ADAPTER = HERE / "apps-135m.gguf"
APPS_INFO = HERE / "apps-135m.train.json"
APPS_ENGINE = "tuned-apps"
AGENT_ADAPTER = HERE / "agent-135m.gguf"
AGENT_INFO = HERE / "agent-135m.train.json"
AGENT_ENGINE = "tuned-agent"
UMI_ROLES = HERE / "umi-135m"  # alpha-UMi's roles: adapters.json names each role's stack
UMI_ENGINE = "tuned-umi"
DEER_GATES = HERE / "deer-gates.json"


_ADAPTERS = {  # kind: (adapter, training record), read when asked (tests swap them)
    "tools": lambda: (TUNED_ADAPTER, TUNED_INFO),
    "papers": lambda: (PAPERS_ADAPTER, PAPERS_INFO),
    "deer": lambda: (DEER_ADAPTER, DEER_INFO),
    "seal": lambda: (SEAL_ADAPTER, SEAL_INFO),
    "apps": lambda: (APPS_ADAPTER, APPS_INFO),
    "agent": lambda: (AGENT_ADAPTER, AGENT_INFO),
}


def tuned_adapter(kind: str = "tools") -> Path:
    """A shipped adapter's path (kind: tools, papers, deer, seal, apps or agent), or a clear
    error when this copy of toollearn lacks it."""
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
    """A shipped adapter's training record (`train.json` of its run; kind: tools, papers, deer,
    seal, apps or agent)."""
    path = _ADAPTERS[kind]()[1]
    return json.loads(path.read_text()) if path.is_file() else {}


_ONE_ADAPTER = {
    PAPERS_ENGINE: "papers",
    DEER_ENGINE: "deer",
    SEAL_ENGINE: "seal",
    APPS_ENGINE: "apps",
}
MERGED_ENGINES = (*_ONE_ADAPTER, AGENT_ENGINE)  # aliases of `tuned:` with shipped adapters
ENGINE_NAMES = ("base", "tuned", *MERGED_ENGINES, UMI_ENGINE)  # every engine alias


def resolve_alias(spec: str) -> str:
    """'base[@A]' -> 'llama[@A]', 'tuned-apps[@A]' -> 'tuned:<apps adapter>[@A]' (so too
    tuned-deer, tuned-seal and tuned-papers with theirs),
    'tuned-agent[@A]' -> 'tuned:<papers adapter>+<agent adapter>[@A]', 'tuned-umi[#ROLE]'
    -> 'llama@<alpha-UMi roles>#ROLE' (the role's stack applied at run time; ROLE single,
    planner, caller or summarizer; default single); other specs
    (`tuned[@A]` included) unchanged. 'tuned' stays a kind of its own: the engine merges the
    shipped adapter into the weights (checked here, so a missing adapter fails before anything
    loads)."""
    name, sep, extra = spec.partition("@")
    if name == "base":
        return "llama" + sep + extra
    if name in _ONE_ADAPTER:
        return f"tuned:{tuned_adapter(_ONE_ADAPTER[name])}" + sep + extra
    if name == AGENT_ENGINE:
        return f"tuned:{tuned_adapter('papers')}+{tuned_adapter('agent')}" + sep + extra
    if name.partition("#")[0] == UMI_ENGINE:
        if sep:
            raise EngineError(f"{UMI_ENGINE} takes no runtime adapter: {spec!r}")
        return f"llama@{umi_roles()}#{name.partition('#')[2] or 'single'}"
    if name == "tuned":
        tuned_adapter()
    return spec


def umi_roles() -> Path:
    """The shipped alpha-UMi role adapters' folder (its adapters.json names each role's GGUF
    stack), or a clear error when this copy of toollearn lacks it."""
    if not (UMI_ROLES / "adapters.json").is_file():
        raise EngineError(f"the alpha-UMi role adapters {UMI_ROLES} are missing from this "
                          "installation; name role adapters: --role-adapters DIR")  # fmt: skip
    return UMI_ROLES


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
