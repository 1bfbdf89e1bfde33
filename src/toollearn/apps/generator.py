"""The action generator of SambaNova ToolBench: goal -> program.

Prompt = [system prompt] + the API docs retrieved for the goal (BM25 over the app's functions)
+ k demonstrations retrieved for the goal (BM25 over the demo pool) + "Task: <goal>\nAction:\n",
laid out like ToolBench's `RagGenerator` and rendered only by
`toollearn.formats.answers.programs`. With `constrained=True` the engine decodes under the
app's program grammar (`toollearn.apps.grammar`). With `check_bounds=True` each program's bound
calls are turned to the side the goal's wording states (`toollearn.apps.bounds`). With
`retries=N` a program that does not execute, leaves out a number the goal states
(`bounds.missing_numbers`) or passes one to more calls than the goal states it
(`bounds.repeated_numbers`) is asked for again, sampled (seeds 1..N at `retry_temperature`),
and the first sample without these defects replaces it (`ActionGenerator.ask_again`: the
repair loop's `program_defects` check, `decoding.repair_loop`, finds them; with
`retry_demos="shifted"` try k shows the demos BM25 ranks after the first k, so a try can also
differ at temperature 0): no label is read, only the goal and the app's own interpreter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from toollearn.apps.base import App
from toollearn.apps.bounds import check_bounds, missing_numbers, repeated_numbers
from toollearn.apps.program import run_program
from toollearn.core.types import Example, Message, Tool
from toollearn.decoding.repair_loop import Fault, RepairLoop, Turn, register_check
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
    "Try",
    "render_demo",
]

RETRY_DEMOS = ("same", "shifted")  # the demos a sampled try shows


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
    retries: int = 0  # sampled tries for a program that fails to run or misuses a goal number
    retry_temperature: float = 1.0  # chosen on the apps' dev sets (results/apps-retry)
    # "shifted" (the CLI's default, chosen on dev): try k shows the demos BM25 ranks after the
    # first k; "same" (the default here, as the runs recorded before it existed were made)
    retry_demos: str = "same"

    def __post_init__(self) -> None:
        if self.retries < 0 or self.retry_temperature < 0:
            raise ValueError("retries and retry_temperature must be >= 0")
        if self.retry_demos not in RETRY_DEMOS:
            raise ValueError(f"retry_demos must be one of {', '.join(RETRY_DEMOS)}")

    def to_dict(self) -> dict[str, Any]:
        """The fields; `grammar_order`, `check_bounds` and the retry settings only when they are
        not the defaults (so the run configs written before they existed still match)."""
        out = asdict(self)
        if out["grammar_order"] == "app":
            del out["grammar_order"]
        if not out["check_bounds"]:
            del out["check_bounds"]
        if not out["retries"]:
            del out["retries"], out["retry_temperature"]
        if out["retry_demos"] == "same":
            del out["retry_demos"]
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
    (`bound_changes` lists what the check changed; `completion.text` keeps the model's greedy
    program), or the sampled try that replaced it (`tries`: every try, `Try.to_dict`)."""

    goal: str
    prompt: str
    text: str
    demo_ids: tuple[str, ...]
    api_names: tuple[str, ...]
    completion: Completion
    bound_changes: tuple[dict[str, str], ...] = ()
    tries: tuple[Try, ...] = ()


@dataclass(frozen=True)
class Try:
    """One sampled program of `ActionGenerator.ask_again`: its seed, the program (bound calls
    checked when the config asks), and its defects: whether it runs, the goal's numbers it
    leaves out, those it passes to more calls than the goal states them. `chosen`: it replaced
    the greedy program."""

    seed: int
    program: str
    executable: bool
    missing: tuple[float, ...]
    repeated: tuple[float, ...] = ()
    error: str | None = None
    bound_changes: tuple[dict[str, str], ...] = ()
    chosen: bool = False

    @property
    def defects(self) -> tuple[bool, int]:
        """Sort key: not running first, then how many numbers are misused (lower is better)."""
        return (not self.executable, len(self.missing) + len(self.repeated))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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

    def retrieve_demos(self, goal: str, offset: int = 0) -> list[Example]:
        """The k demonstrations with the most similar goals (BM25), best first; with `offset`,
        the k ranked after the first `offset` (a sampled try's other demos)."""
        if not self.config.k_demos or self.demo_retriever is None:
            return []
        hits = self.demo_retriever.search(goal, self.config.k_demos + offset)
        return [h.item for h in hits[offset:]]

    def build(self, goal: str) -> tuple[str, list[Example], list[Tool]]:
        """The prompt body (without the system prompt), the demos and the API docs it shows."""
        apis, demos = self.retrieve_apis(goal), self.retrieve_demos(goal)
        return programs.render_body(goal, _docs(apis), _pairs(demos)), demos, apis

    def prompt(
        self, goal: str, demo_offset: int = 0
    ) -> tuple[str | list[Message], list[Example], list[Tool]]:
        """What `generate` sends for `goal` (raw text, or chat messages when `config.chat`),
        with the demos and API docs it shows: the single source of the prompt (`demo_offset`:
        the demos ranked after the first ones, for a try)."""
        apis, demos = self.retrieve_apis(goal), self.retrieve_demos(goal, demo_offset)
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
            program, changes = self._checked(comp.text, goal)
            ids, names = tuple(d.id for d in demos), tuple(t.name for t in apis)
            out.append(Generation(goal, shown, program.strip(), ids, names, comp, tuple(changes)))
        if not self.config.retries:
            return out
        again = self.ask_again(goals, [g.text for g in out])
        for n, (text, tries) in enumerate(again):
            chosen = [t for t in tries if t.chosen]
            changes = chosen[0].bound_changes if chosen else out[n].bound_changes
            out[n] = replace(out[n], text=text, tries=tries, bound_changes=changes)
        return out

    def _checked(self, text: str, goal: str) -> tuple[str, list[dict[str, str]]]:
        """A model program with its bound calls checked when the config asks."""
        return check_bounds(text, goal, self.app) if self.config.check_bounds else (text, [])

    def _try(self, seed: int, goal: str, text: str, error: str | None = None) -> Try:
        program, changes = self._checked(text, goal)
        program = program.strip()
        run = run_program(program, self.app)
        missing = tuple(missing_numbers(goal, program))
        repeated = tuple(repeated_numbers(goal, program, self.app))
        return Try(seed, program, run.executable, missing, repeated, error, tuple(changes))

    def _found(self, seed: int, goal: str, text: str, error: str | None = None) -> Try:
        """A program as a try, its defects found by the repair loop's `program_defects` check
        (`decoding.repair_loop`)."""
        turn = Turn([], self.constraint, context=(self, goal, seed, error))
        fault = PROGRAM_REPAIRS.find(text, turn)
        return fault.data if fault is not None else self._try(seed, goal, text, error)

    def ask_again(
        self, goals: Sequence[str], programs: Sequence[str]
    ) -> list[tuple[str, tuple[Try, ...]]]:
        """For each goal whose program does not run or misuses a number the goal states (left
        out, or passed to more calls than stated), up to `config.retries` sampled programs
        (seed 1, 2, ... at `retry_temperature`, the flagged goals batched per seed), stopping at
        the first without defects; the program with the fewest defects wins, the given one on
        ties. Returns (program, tries) per goal; a goal that was not flagged gets its program
        back and no tries."""
        first = [self._found(0, g, p) for g, p in zip(goals, programs)]
        tries: list[list[Try]] = [[] for _ in goals]
        todo = [i for i, t in enumerate(first) if t.defects != (False, 0)]  # the loop's faults
        shifted = self.config.retry_demos == "shifted"
        for seed in range(1, self.config.retries + 1):
            if not todo:
                break
            offset = seed if shifted else 0
            completions = self.engine.complete(
                [self.prompt(goals[i], demo_offset=offset)[0] for i in todo],
                max_tokens=self.config.max_tokens,
                stop=STOP,
                temperature=self.config.retry_temperature,
                seed=seed,
                constraint=self.constraint,
            )
            for i, comp in zip(todo, completions):
                tries[i].append(self._found(seed, goals[i], comp.text, comp.error))
            todo = [i for i in todo if tries[i][-1].defects != (False, 0)]
        out = []
        for program, initial, sampled in zip(programs, first, tries):
            best = min(sampled, key=lambda t: t.defects, default=None)
            if best is None or best.defects >= initial.defects:
                out.append((program, tuple(sampled)))
                continue
            marked = tuple(replace(t, chosen=t is best) for t in sampled)
            out.append((best.program, marked))
        return out


def _docs(apis: Sequence[Tool]) -> list[str]:
    return [t.metadata["doc"] for t in apis]


def _pairs(demos: Sequence[Example]) -> list[tuple[str, str]]:
    return [(d.query, d.metadata["program"]) for d in demos]


def program_defects(text: str, turn: Turn, constrained: bool) -> Fault | None:
    """The repair loop's check for an app program (`turn.context`: the generator, the goal,
    the try's seed and engine error): it does not run, leaves out a number the goal states, or
    passes one to more calls than the goal states it; the fault carries the `Try`."""
    generator, goal, seed, error = turn.context
    found = generator._try(seed, goal, text, error)
    if found.defects == (False, 0):
        return None
    problems = [*(["does not run"] if not found.executable else []),
                *([f"leaves out {list(found.missing)}"] if found.missing else []),
                *([f"repeats {list(found.repeated)}"] if found.repeated else [])]  # fmt: skip
    return Fault("program_defects", "; ".join(problems), [], turn.constraint, data=found)


register_check("program_defects", program_defects)
PROGRAM_REPAIRS = RepairLoop(("program_defects",))  # tries: GeneratorConfig.retries, sampled
