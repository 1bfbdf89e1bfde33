"""GLPFT (alpha-UMi): one backbone, then a LoRA adapter per role, and the paper's baselines.

Modes (all from one trajectory dataset, `toollearn datagen umi`, whose samples carry the kinds
umi-single, umi-planner, umi-caller, umi-summarizer):
- glpft: stage 1 trains an adapter on the single-LLM samples; stage 2 trains a planner, a
  caller and a summarizer adapter on their own spans, each starting from the stage-1 weights
  (the stage-1 adapter merged into the base). Served on llama.cpp as stacks on the unchanged
  base: stage-1 adapter + role adapter (LoRA deltas add up).
- direct: the three role adapters trained from the base (no stage 1).
- joint: one adapter trained on the three roles' samples together, used for every role.
- single: stage 1 alone (the single-LLM baseline).
The paper's schedule is the default: stage 1 two epochs at 5e-5, stage 2 planner 1, caller 1,
summarizer 2 epochs at 1e-5, both scaled by ten for LoRA. Each stage draws `samples` unless
`stage_samples` names its own count (e.g. a planner given more data than the other roles).
The paper keeps three full copies of a 7B model; this keeps one backbone and a few megabytes
of adapters per role.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from toollearn.training.config import GLPFT_MODES as MODES
from toollearn.training.config import TrainConfig

ROLES = ("planner", "caller", "summarizer")
LORA_LR_SCALE = 10.0
SCHEDULE = {"single": (2.0, 5e-5), "planner": (1.0, 1e-5), "caller": (1.0, 1e-5),
            "summarizer": (2.0, 1e-5), "joint": (2.0, 5e-5)}  # fmt: skip


def stage_config(base: TrainConfig, name: str, kinds: tuple[str, ...], out: Path,
                 adapter: str | None = None) -> TrainConfig:  # fmt: skip
    """The TrainConfig of one stage: the paper's epochs and learning rate for `name`, and
    the stage's own sample count where `stage_samples` gives one."""
    epochs, lr = SCHEDULE[name]
    return replace(base, output_dir=str(out / name), kinds=kinds, epochs=epochs,
                   learning_rate=lr * (LORA_LR_SCALE if base.method == "lora" else 1.0),
                   base_adapter=adapter, samples=base.stage_samples.get(name, base.samples),
                   stage_samples={}, stages=())  # fmt: skip


def run_glpft(base: TrainConfig, out: str | Path, mode: str = "glpft") -> dict[str, Any]:
    """Train the mode's stages into OUT/<stage>/ (each a training run with its GGUF adapter),
    write OUT/adapters.json (per role, the adapter stack: GGUF files for llama.cpp, PEFT
    folders for transformers; what engine specs "llama@OUT#planner" read) and OUT/glpft.json.
    With `base.stages` set, only those stages are trained now; the two files are written once
    every stage of the mode is trained (the summary's `waiting` lists the stages left)."""
    from toollearn.training.export import export_lora_gguf
    from toollearn.training.trainer import train

    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    out = Path(out)
    runs: list[str] = []  # the stages trained, each in OUT/<stage>/
    waiting: list[str] = []  # stages left to another call (`base.stages`)

    def stage(name: str, kinds: tuple[str, ...], adapter: str | None = None) -> Path:
        config = stage_config(base, name, kinds, out, adapter)
        run = Path(config.output_dir)
        if not (run / "train.json").is_file():  # a stage finished by an earlier call is kept
            if base.stages and name not in base.stages:
                waiting.append(name)
                return run
            run = train(config)
        if not (run / "adapter.gguf").is_file():
            export_lora_gguf(run / "adapter", run / "adapter.gguf")
        runs.append(name)
        return run

    stacks: dict[str, list[str]] = {}  # role -> the stages whose adapters it applies
    if mode in ("glpft", "single"):
        stage("single", ("umi-single",))
        stacks["single"] = ["single"]
    if mode in ("glpft", "direct"):
        start = str(out / "single" / "adapter") if mode == "glpft" else None
        if "single" in waiting:
            return {"mode": mode, "runs": runs, "waiting": waiting + list(ROLES)}
        for role in ROLES:
            stage(role, (f"umi-{role}",), start)
            stacks[role] = ["single", role] if start else [role]
    if mode == "joint":
        stage("joint", tuple(f"umi-{r}" for r in ROLES))  # one adapter, all roles
        stacks.update({role: ["joint"] for role in ROLES})
    if waiting:
        return {"mode": mode, "runs": runs, "waiting": waiting}
    adapters = {"gguf": {r: [f"{s}/adapter.gguf" for s in st] for r, st in stacks.items()},
                "peft": {r: [f"{s}/adapter" for s in st] for r, st in stacks.items()}}  # fmt: skip
    (out / "adapters.json").write_text(json.dumps(adapters, indent=2) + "\n")
    summary = {"mode": mode, "runs": runs, "roles": stacks, "base": base.to_dict()}
    (out / "glpft.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def glpft_engine(glpft_dir: str | Path, engine: str = "llama", **options: Any) -> Any:
    """One backbone (`engine`: a llama or hf spec) holding every role's adapter stack under the
    role's name; `MultiRoleAgent.on_adapters(engine, env)` serves the roles from it."""
    from toollearn.engines import adapter_stack, load_engine

    roles = json.loads((Path(glpft_dir) / "glpft.json").read_text())["roles"]
    kind = engine.partition(":")[0]
    named = {role: adapter_stack(f"{glpft_dir}#{role}", kind) for role in roles}
    return load_engine(engine, adapters=named, **options)
