"""The action generator of SambaNova ToolBench: goal -> program.

Prompt = [system prompt] + the API docs retrieved for the goal (BM25 over the app's functions)
+ k demonstrations retrieved for the goal (BM25 over the demo pool) + "Task: <goal>\nAction:\n",
laid out like ToolBench's `RagGenerator` and rendered only by
`toollearn.formats.answers.programs`. With `constrained=True` the engine decodes under the
app's program grammar (`toollearn.apps.grammar`). With `check_bounds=True` each program's bound
calls are turned to the side the goal's wording states (`toollearn.apps.bounds`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from toollearn.apps.base import App
from toollearn.apps.bounds import check_bounds
from toollearn.core.types import Example, Message, Tool
from toollearn.engines.base import Completion, Engine
from toollearn.formats.answers import programs
from toollearn.formats.answers.programs import SEPARATOR, STOP, SYSTEM_PROMPT

__all__ = [
    "CONFIGS",
    "SEPARATOR",
    "STOP",
    "SYSTEM_PROMPT",
    "ActionGenerator",
    "Generation",
    "GeneratorConfig",
    "render_demo",
]


@dataclass(frozen=True)
class GeneratorConfig:
    """One setting of the action generator (the rows of the results table)."""

    system_prompt: bool = False
    k_demos: int = 0
    k_apis: int | None = None  # None: all functions (ToolBench shows all); k: BM25 top k
    constrained: bool = False
    chat: bool = False  # send as chat messages (system + user) instead of raw text
    max_tokens: int = 200
    grammar_order: str = "app"  # constrained: the other calls in the app's order, "any", "typed"
    check_bounds: bool = False  # turn bound calls to the side the goal states (apps.bounds)

    def to_dict(self) -> dict[str, Any]:
        """The fields; `grammar_order` and `check_bounds` only when they are not the defaults
        (so the run configs written before they existed still match)."""
        out = asdict(self)
        if out["grammar_order"] == "app":
            del out["grammar_order"]
        if not out["check_bounds"]:
            del out["check_bounds"]
        return out


CONFIGS: dict[str, GeneratorConfig] = {
    "zero-shot": GeneratorConfig(),
    "system": GeneratorConfig(system_prompt=True),
    "demos": GeneratorConfig(k_demos=3),
    "system+demos": GeneratorConfig(system_prompt=True, k_demos=3),
    "constrained": GeneratorConfig(system_prompt=True, k_demos=3, constrained=True),
}


def render_demo(example: Example) -> str:
    """A demonstration Example as ToolBench writes it (`programs.render_demo`)."""
    return programs.render_demo(example.query, example.metadata["program"])


@dataclass(frozen=True)
class Generation:
    """One generated program with the prompt it came from and the demos shown. `text` is the
    program that runs: the model's, its bound calls checked when the config asks
    (`bound_changes` lists what the check changed; `completion.text` keeps the model's)."""

    goal: str
    prompt: str
    text: str
    demo_ids: tuple[str, ...]
    api_names: tuple[str, ...]
    completion: Completion
    bound_changes: tuple[dict[str, str], ...] = ()


class ActionGenerator:
    """Builds retrieval-augmented prompts for an app and asks an engine for programs."""

    def __init__(
        self,
        app: type[App],
        engine: Engine,
        demos: Sequence[Example] = (),
        config: GeneratorConfig = GeneratorConfig(),
    ):
        from toollearn.retrieval import DemoRetriever, ToolRetriever

        self.app, self.engine, self.config = app, engine, config
        self.tools: list[Tool] = app.doc_tools()
        self.tool_retriever = ToolRetriever(self.tools, method="bm25")
        self.demo_retriever = DemoRetriever(list(demos), method="bm25") if demos else None
        if config.k_demos and self.demo_retriever is None:
            raise ValueError("k_demos > 0 needs a demonstration pool")
        self.constraint = None
        if config.constrained:
            from toollearn.apps.grammar import program_constraint

            self.constraint = program_constraint(app, config.grammar_order)

    def retrieve_apis(self, goal: str) -> list[Tool]:
        """The API docs to show: all of them in the app's order when `k_apis` is None (as
        ToolBench shows all 15/20 functions; a fixed prefix also lets llama.cpp reuse its KV
        cache across goals), else the BM25 top `k_apis` for the goal, best first."""
        if self.config.k_apis is None or self.config.k_apis >= len(self.tools):
            return list(self.tools)
        return [h.item for h in self.tool_retriever.search(goal, self.config.k_apis)]

    def retrieve_demos(self, goal: str) -> list[Example]:
        """The k demonstrations with the most similar goals (BM25), best first."""
        if not self.config.k_demos or self.demo_retriever is None:
            return []
        return [h.item for h in self.demo_retriever.search(goal, self.config.k_demos)]

    def build(self, goal: str) -> tuple[str, list[Example], list[Tool]]:
        """The prompt body (without the system prompt), the demos and the API docs it shows."""
        apis, demos = self.retrieve_apis(goal), self.retrieve_demos(goal)
        return programs.render_body(goal, _docs(apis), _pairs(demos)), demos, apis

    def prompt(self, goal: str) -> tuple[str | list[Message], list[Example], list[Tool]]:
        """What `generate` sends for `goal` (raw text, or chat messages when `config.chat`),
        with the demos and API docs it shows: the single source of the prompt."""
        apis, demos = self.retrieve_apis(goal), self.retrieve_demos(goal)
        sent = programs.render_prompt(
            goal,
            _docs(apis),
            _pairs(demos),
            system_prompt=self.config.system_prompt,
            chat=self.config.chat,
        )
        return sent, demos, apis

    def messages_for(self, goal: str) -> str | list[Message]:
        """Exactly what `generate` sends for `goal`: chat messages when `config.chat`, else the
        raw-text prompt (a str). Pair it with `programs.render_target(program)` for training."""
        return self.prompt(goal)[0]

    def generate(self, goals: Sequence[str]) -> list[Generation]:
        """One program per goal (greedy decoding, ToolBench's stop strings)."""
        built = [self.prompt(g) for g in goals]
        completions = self.engine.complete(
            [p for p, _, _ in built],
            max_tokens=self.config.max_tokens,
            stop=STOP,
            temperature=0.0,
            constraint=self.constraint,
        )
        out = []
        for goal, (prompt, demos, apis), comp in zip(goals, built, completions):
            shown = (
                prompt
                if isinstance(prompt, str)
                else "\n\n".join(f"[{m.role}]\n{m.content}" for m in prompt)
            )
            program, changes = comp.text, []
            if self.config.check_bounds:
                program, changes = check_bounds(comp.text, goal, self.app)
            ids, names = tuple(d.id for d in demos), tuple(t.name for t in apis)
            out.append(Generation(goal, shown, program.strip(), ids, names, comp, tuple(changes)))
        return out


def _docs(apis: Sequence[Tool]) -> list[str]:
    return [t.metadata["doc"] for t in apis]


def _pairs(demos: Sequence[Example]) -> list[tuple[str, str]]:
    return [(d.query, d.metadata["program"]) for d in demos]
