"""One policy for `call`, `run`, `serve` and the Python API: which model answers, which gates
decide first, which plan it follows, which repairs run, within which limits.

A `Policy` is a named preset (`PRESETS`); each records where its settings were chosen (the
data set and split) and what they measured. `default` is what every entry point uses unless
told otherwise; a heuristic is in it only where the general suite's dev split shows that it
helps (`docs/results/general.md`). The papers' pipelines are presets of their own.

    from toollearn.policy import preset
    agent = preset("default").agent(execute=False)     # the model, its gate and plan
    trace = agent.run("Book a table for 2 at Luigi's at 20:00.", tools)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from toollearn.core.errors import DataError

FORMATS = ("tool-calls", "seal-tools", "programs")


@dataclass(frozen=True)
class SealSteps:
    """The Seal-Tools pipeline's decoding options and repair steps (`call --preset
    seal-tools`; each one explained in docs/results/tuned.md, where it was chosen on the
    Seal-Tools dev split)."""

    copy_strings: bool = False  # string values are spans of the query (or nested results)
    stated_optional: bool = False  # optional parameters only with values the query states
    distinct_tools: bool = False  # each tool at most once per list
    allow_empty: bool = False  # [] (no call) admitted
    prune_candidates: float | None = None  # offer only tools within this cosine of a clause's best
    tool_filter: float | None = None  # drop calls to tools this far behind every clause's best
    foreign_values: str | None = None  # "optional" | "all": drop values of other tools' clauses
    whole_words: bool = False  # drop copied strings that cut a word
    refill: str | None = None  # "dropped" | "required": ask again for dropped values
    generic_values: bool = False  # drop values that only repeat the parameter's name
    missing_calls: bool = False  # ask again for tools a clause points at and no call uses
    iso_dates: bool = False  # dates in words with a year as YYYY-MM-DD


@dataclass(frozen=True)
class AppsSteps:
    """The SambaNova apps' repairs (`eval home-search|trip-booking --preset apps-checked`;
    `apps.generator`, chosen on the apps' dev sets: results/apps-bounds, results/apps-retry)."""

    check_bounds: bool = False  # min/max calls turned to the side the goal's wording states
    retries: int = 0  # sampled tries for a program that fails to run or misuses a goal number
    retry_temperature: float = 1.0
    retry_demos: str = "shifted"  # try k shows the demos BM25 ranks after the first k


@dataclass(frozen=True)
class Policy:
    """How toollearn answers with your tools. `engine`: the model (an engine spec);
    `call_gate`: the shipped DEER call gate decides first whether a shown tool fits (the model
    may only reply where none is close enough); `sure_call`: where the gate is sure one fits,
    the first turn must call; `plan`: the request's clause plan (`agents.clause_plan`): one due
    call a turn ("due", "due-reply", "order"), its calls in one turn ("batch"), or None;
    `repairs`: the checks of the repair loop (`agents.repairs`: cut_off, repeated, schema,
    grounded) with at most `repair_budget` tries again a turn; `seal`: the Seal-Tools pipeline
    (answer_format "seal-tools").
    `fitted`: where the settings were chosen; `measured`: what they did there."""

    name: str
    engine: str = "tuned"
    answer_format: str = "tool-calls"
    call_gate: bool = False
    sure_call: bool = False
    plan: str | None = None
    repairs: tuple[str, ...] = ("cut_off", "schema")
    repair_budget: int = 2
    max_steps: int = 6
    max_tokens: int = 320
    seal: SealSteps = field(default_factory=SealSteps)
    apps: AppsSteps = field(default_factory=AppsSteps)
    fitted: str = ""
    measured: str = ""

    def general_only(self, command: str) -> None:
        """DataError where a command speaks only the general call format."""
        if self.answer_format != "tool-calls":
            where = (
                f"`toollearn eval home-search|trip-booking --preset {self.name}` runs the "
                "apps that way"
                if self.answer_format == "programs"
                else f"`toollearn call --preset {self.name}` answers one request that way"
            )
            raise DataError(f"the {self.name} preset answers in the {self.answer_format} format: "
                            f"{where}; `{command}` speaks the general call format")  # fmt: skip

    def server_settings(self, engine: Any, threads: int | None = 1) -> dict[str, Any]:
        """`serve.app.ServerConfig` fields: the call gate with its thresholds and the call plan
        (the server applies them where tool_choice is auto), and the repair loop."""
        from toollearn.agents.repairs import RepairLoop

        self.general_only("toollearn serve")
        constrained = bool(getattr(engine, "supports_constraints", False))
        loop = RepairLoop(self.repairs, self.repair_budget, constrained) if self.repairs else None
        out: dict[str, Any] = {"repairs": loop}
        if self.call_gate:
            from toollearn.agents.call_gate import shipped_call_gate, shipped_sure_call_threshold

            out["call_gate"], out["call_threshold"] = shipped_call_gate(engine, threads)
            if self.sure_call:
                out["sure_call_threshold"] = shipped_sure_call_threshold()
        if self.plan:
            from toollearn.agents.clause_plan import ClausePlanner

            out["plan"] = (self.plan, ClausePlanner.for_mode(self.plan))
        return out

    def load_engine(self, threads: int | None = None, **llama: Any) -> Any:
        """The policy's model (`engines.load_engine`, llama.cpp options where they apply)."""
        from toollearn.cli.common import load_engine_spec

        return load_engine_spec(self.engine, threads, **llama)

    def agent(self, env: Any = None, engine: Any = None, *, execute: bool = True,
              threads: int | None = None, **options: Any) -> Any:  # fmt: skip
        """A `ToolCallsAgent` under this policy over `env` (its tools executed; None: the tools
        given to `run`, simulated from their declared responses) and `engine` (default: the
        policy's model). `execute=False` stops at the first call list (what `call` prints).
        `options` reach the agent (constrained, sampling, seed, planner, ...)."""
        from toollearn.agents import ToolCallsAgent

        self.general_only("the tool-calls agent")
        engine = engine if engine is not None else self.load_engine(threads)
        settings = {"max_steps": self.max_steps, "max_tokens": self.max_tokens,
                    "execute": execute, "plan": self.plan, "repairs": self.repairs,
                    "repair_budget": self.repair_budget, **options}  # fmt: skip
        if not self.call_gate:
            return ToolCallsAgent(engine, env, **settings)
        return ToolCallsAgent.gated(engine, env, threads=threads, sure_call=self.sure_call,
                                    **settings)  # fmt: skip

    def with_engine(self, engine: str | None) -> Policy:
        """The same policy on another model (None: unchanged)."""
        return self if engine is None else replace(self, engine=engine)


GENERAL_DEV = "the general suite's dev split, quick subset (results/calls-suite/dev-*)"

PRESETS: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy(
            "default",
            call_gate=True,
            sure_call=True,
            plan="batch",
            repairs=("cut_off", "schema", "grounded", "uses_results"),
            fitted=f"gate thresholds: ToolDEER valid; plan: its defaults (batch's joins, waits "
            f"and follow similarity on dev); each on or off: {GENERAL_DEV}; the results "
            f"check: the dev split's multi-turn category",
            measured="with the shipped (GPU-trained) adapter, exact on dev: 51.0 alone, 54.0 "
            "with the gate, 52.0 with the plan, 51.5 with the repairs, 55.5 with all, 57.0 with "
            "the plan's open places; on test 52.3 (47.9 alone, 51.2 before the open places). "
            "Chosen with the first CPU-trained adapter: 36.0 alone, 39.5 with the gate (39.5 "
            "without sure-call), 39.0 with the plan, 42.5 with both, 43.5 "
            "replying once the plan is done, 45.5 with the plan's calls in one turn (batch; "
            "with the repairs too), 46.0 with the grounded check, multi-turn 45.0 -> 53.3 with "
            "the results check; on test 46.8 (35.3 alone, 43.2 one call a turn)",
        ),
        Policy(
            "plain",
            fitted="nothing: the model alone decides, no gate, no plan",
            measured="exact 51.0 on dev, 47.9 on test (the first CPU-trained adapter: 36.0, 35.3)",
        ),
        Policy(
            "agent",
            engine="tuned-agent",
            call_gate=True,
            sure_call=True,
            plan="due",
            fitted="the stack `run` used before (plan: template-generated queries, "
            "results/agent-plan; gate: ToolDEER valid)",
            measured="exact on dev 42.5 (34.0 alone; 27.6 alone on test): more answers after "
            "tool results than the general adapter, but paper markup in most plain chats",
        ),
        Policy(
            "seal-tools",
            engine="tuned-papers",
            answer_format="seal-tools",
            seal=SealSteps(
                copy_strings=True,
                stated_optional=True,
                distinct_tools=True,
                prune_candidates=0.0,
                foreign_values="all",
                whole_words=True,
                refill="required",
                generic_values=True,
                missing_calls=True,
                iso_dates=True,
            ),  # fmt: skip
            fitted="Seal-Tools dev split (docs/results/tuned.md)",
            measured="Tool F1 / Param F1 92.7 / 74.0 on the Seal-Tools test sets",
        ),
        Policy(
            "apps-checked",
            engine="tuned-apps",
            answer_format="programs",
            apps=AppsSteps(check_bounds=True, retries=8),
            fitted="the apps' dev sets (results/apps-bounds, results/apps-retry: 8 tries at "
            "1.0, other demos per try)",
            measured="success 93.0 / 95.0 on the Home Search / Trip Booking test goals (65.0 / "
            "70.8 for the model's programs alone)",
        ),
    )
}
DEFAULT_PRESET = "default"


def preset(name: str = DEFAULT_PRESET) -> Policy:
    """A named preset; DataError naming the known ones for any other name."""
    try:
        return PRESETS[name]
    except KeyError:
        raise DataError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}") from None


def preset_help(programs: bool = False) -> str:
    """The presets of request formats (`programs`: the apps' presets) in a few words each."""
    return "; ".join(f"{p.name}: {summary(p)}" for p in PRESETS.values()
                     if (p.answer_format == "programs") == programs)  # fmt: skip


def summary(p: Policy) -> str:
    """A preset in a few words."""
    parts = [p.engine]
    if p.answer_format != "tool-calls":
        parts.append(f"{p.answer_format} format and repairs")
    if p.call_gate:
        parts.append("call gate" + (" + sure-call" if p.sure_call else ""))
    if p.plan:
        parts.append(f"plan {p.plan}")
    return ", ".join(parts) if len(parts) > 1 else f"{p.engine} alone"
