"""Reference trajectories: the multi-role agent driven by a scripted oracle on real tools.

The oracle plays planner, caller and summarizer from a `DemoTask`'s reference plan, reading
the real observations out of the prompts it is given (so later arguments and the answer
use actual tool outputs). Everything else is the production path: `MultiRoleAgent`'s loop,
prompts, parsing, execution against `demo_env()`, and `trajectory_from_trace`. The result
is a small gold set in alpha-UMi's format for the stepwise benchmark.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import ToollearnError
from toollearn.core.types import ToolCall
from toollearn.engines.scripted import ScriptedEngine
from toollearn.formats.answers import umi

_OBS = re.compile(r"^Observation: (.*)$", re.MULTILINE)
_REF = re.compile(r"^\$(\d+)(?:\.(\w+))?$")


def _text(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    return "\n".join(getattr(m, "content", "") for m in prompt)


def observations(prompt: Any) -> list[Any]:
    """The observations in a prompt's history, JSON-decoded where possible."""
    out = []
    for raw in _OBS.findall(_text(prompt)):
        try:
            out.append(json.loads(raw))
        except json.JSONDecodeError:
            out.append(raw)
    return out


def _resolve(value: Any, outputs: Sequence[Any]) -> Any:
    m = _REF.match(value) if isinstance(value, str) else None
    if not m:
        return value
    out = outputs[int(m.group(1))]
    return out[m.group(2)] if m.group(2) else out


class Oracle:
    """The three role engines for one task (ScriptedEngines over the reference plan)."""

    def __init__(self, task: Any):
        self.task = task
        self.planner = ScriptedEngine(self._plan)
        self.caller = ScriptedEngine(self._call)
        self.summarizer = ScriptedEngine(self._summarize)

    def _plan(self, prompt: Any) -> str:
        seen = observations(prompt)
        if seen and isinstance(seen[-1], str) and seen[-1].startswith("Error"):
            return (
                f"The last call failed ({seen[-1]}), so the task cannot be solved. Next: give up."
            )
        if len(seen) < len(self.task.steps):
            return umi.render_plan(self.task.steps[len(seen)][0], "caller")
        done = getattr(self.task, "extra", {}).get("conclusion")
        return umi.render_plan(done or umi.CONCLUSION_THOUGHT, "conclusion")

    def _call(self, prompt: Any) -> str:
        seen = observations(prompt)
        _, name, args = self.task.steps[len(seen)]
        concrete = {k: _resolve(v, seen) for k, v in args.items()}
        return umi.render_action(ToolCall(name, concrete))

    def _summarize(self, prompt: Any) -> str:
        return self.task.answer.format(*observations(prompt))


def build_trajectories(tasks: Sequence[Any] | None = None) -> list[Any]:
    """Run the oracle-driven multi-role agent on every demo task; returns Trajectories."""
    from toollearn.agents.multi_role import MultiRoleAgent
    from toollearn.data.trajectories import trajectory_from_trace
    from toollearn.envs.demo import DEMO_TASKS, demo_env

    env = demo_env()
    by_name = {t.name: t for t in env.tools}
    out = []
    for task in tasks or DEMO_TASKS:
        oracle = Oracle(task)
        shown = [by_name[n] for n in task.tools]
        agent = MultiRoleAgent(oracle.planner, oracle.caller, oracle.summarizer, env,
                               max_steps=len(task.steps) + 2)  # fmt: skip
        trace = agent.run(task.query, shown, example_id=task.id)
        want = "give_up" if task.give_up else "concluded"
        if trace.meta["outcome"] != want:
            raise ToollearnError(f"{task.id}: expected {want}, got {trace.meta['outcome']}")
        out.append(trajectory_from_trace(trace, shown))
    return out


DEMO_TRAJECTORIES = Path(__file__).resolve().parents[1] / "envs" / "demo_trajectories.json"


def write_demo_trajectories(path: str | Path = DEMO_TRAJECTORIES) -> Path:
    """Regenerate the shipped trajectory file."""
    from toollearn.data.trajectories import write_trajectories

    return write_trajectories(build_trajectories(), path)
