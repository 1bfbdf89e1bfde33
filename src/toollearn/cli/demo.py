"""`toollearn demo` (the embedded model, base and with the papers' adapter, on bundled
Seal-Tools queries, free vs constrained, then on real Python tools in the general call format,
then one goal of each app with the apps adapter) and `toollearn call` (one query against your
own tools)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from toollearn.cli.common import (
    add_engine_args,
    add_preset_arg,
    add_sampling_args,
    add_user_engine_args,
    llama_flags,
    load_engine_from_args,
)

USER_TOOL_QUERIES = (
    "Multiply 6 by 7, then add 8 to the result.",
    "Write a short poem about the sea.",
)


def register(subparsers: Any) -> None:
    """Add `toollearn demo` and `toollearn call`."""
    d = subparsers.add_parser(
        "demo",
        help="the embedded model, base and tuned, on bundled Seal-Tools queries and your tools",
        description="Runs the paper's 5-candidate Seal-Tools prompts (bundled sample) through "
        "the embedded model as released (base) and with Seal-Tools' own adapter "
        "(tuned-seal, as `eval seal-tools` loads it), or through --engine alone, with and "
        "without the call-list constraint; prints each query, the predicted "
        "calls and the official and strict scores; then answers two requests with the demo's "
        "real Python tools in the general call format (calls executed, declining allowed); "
        "last, base and the shipped apps adapter (tuned-apps) write a program for one test "
        "goal of each app, executed and judged.",
    )
    d.add_argument("-n", "--n", type=int, default=6, help="Seal-Tools queries (default 6)")
    d.add_argument("--no-apps", action="store_true", help="leave out the apps' goals")
    add_engine_args(d)
    d.add_argument("--max-tokens", type=int, default=256)
    d.set_defaults(func=run_demo)

    c = subparsers.add_parser(
        "call",
        help="answer one query with calls to your tools",
        description="One query against a tool file: the model answers in the general call "
        "format (a JSON list of calls, or [] and a plain-text reply), constrained to the "
        "listed tools and their argument types, under the default policy (the tuned model "
        "behind the call gate; --preset picks another). Nothing is executed (see `run`).",
    )
    c.add_argument("query")
    c.add_argument("--tools", required=True, help="tool file (JSON or JSONL; '-' = stdin)")
    c.add_argument("--tools-format", default="auto",
                   help="format of --tools (default auto: told from the records; openai, "
                   "seal-tools, python, toolbench, tooldeer, toollearn, ...)")  # fmt: skip
    add_preset_arg(c)
    add_user_engine_args(c)
    add_sampling_args(c)
    c.add_argument("--free", action="store_true", help="no constraint")
    c.add_argument("--max-tokens", type=int, default=320)
    c.set_defaults(func=run_call)


def _spread(items: list, n: int) -> list:
    """n items spread evenly over the list (easy and difficult queries both appear)."""
    if n >= len(items):
        return items
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def run_demo(args: argparse.Namespace) -> int:
    """Free and constrained answers on n bundled queries with their scores, base and the
    papers' adapter side by side (or the one --engine given), then user tools."""
    from toollearn.cli.common import load_engines
    from toollearn.evaluation.runners.seal_tools import (
        SealRunOptions,
        load_prompts,
        predict_jobs,
        score_records,
    )

    examples = _spread(load_prompts("test_in_domain", sample=True), max(1, args.n))
    from toollearn.models import DEFAULT_ENGINE, SEAL_ENGINE

    default = args.engine == DEFAULT_ENGINE  # Seal-Tools' prompt: Seal-Tools' own adapter
    specs = {"base": "base", SEAL_ENGINE: SEAL_ENGINE} if default else {"": args.engine}
    engines = load_engines(specs, args.threads, **llama_flags(args))
    names = ", ".join(f"{label} = {e.name}" if label else e.name for label, e in engines.items())
    print(f"engines: {names}\n{len(examples)} Seal-Tools queries, 5 candidates each\n")
    runs = [(label, mode) for label in engines for mode in ("free", "constrained")]
    records: dict[tuple[str, str], list[dict[str, Any]]] = {run: [] for run in runs}
    t0 = time.perf_counter()
    for i, ex in enumerate(examples, 1):
        print(f"[{i}/{len(examples)}] {ex.id}: {ex.query}")
        print(f"  {'gold':<18}: {_calls_text(ex.calls)}")
        for label, mode in runs:
            opts = SealRunOptions(constrained=mode == "constrained", max_tokens=args.max_tokens)
            rec = predict_jobs(engines[label], [(ex, opts)])[0]
            records[label, mode].append(rec)
            name = f"{label} {mode}".strip()
            print(f"  {name:<18}: {_shown(rec['output'])}  ({rec['seconds']:.1f}s)")
        print()
    scores = {run: score_records(recs, examples) for run, recs in records.items()}
    print(demo_table(scores))
    last = list(engines)[-1]
    label, agent_engine = last or "the engine", engines[last]
    if default:  # the general agent's default engine (`toollearn run`)
        from toollearn.cli.run import default_engine

        label = default_engine("tool-calls")
        agent_engine = load_engines({label: label}, args.threads, **llama_flags(args))[label]
    print(f"\nYour own tools ({label}; the general call format, constrained, calls executed, "
          "results fed back):")  # fmt: skip
    user_tools_demo(agent_engine)
    if not args.no_apps:
        apps_demo(args, engines)
    print(
        f"\n{time.perf_counter() - t0:.0f} s in all. Full test sets: toollearn eval seal-tools "
        "--split all --modes free,constrained --data-root DIR --out-root runs/NAME"
    )
    return 0


def demo_table(scores: dict[tuple[str, str], dict[str, Any]]) -> str:
    """Official and strict scores of each (model, mode) (percentages), from the runner's
    scores."""
    from toollearn.evaluation.report import format_table

    rows = []
    for (label, mode), s in scores.items():
        for scorer in ("official", "strict"):
            top = s[scorer]["all"]
            rows.append({"model": label or "-", "mode": mode, "scorer": scorer, "n": top["n"],
                         "format": 100 * top["format_acc"], "tool_f1": 100 * top["tool_f1"],
                         "param_f1": 100 * top["param_f1"],
                         "hallucinated": s["hallucinated_tools"][scorer]})  # fmt: skip
    cols = ["model", "mode", "scorer", "n", "format", "tool_f1", "param_f1", "hallucinated"]
    return format_table(rows, cols, floatfmt=".1f")


def apps_demo(args: argparse.Namespace, engines: dict[str, Any]) -> None:
    """The first test goal of each app: a program from base and the apps adapter (or the one
    --engine), executed and judged against the goal's criteria."""
    from toollearn.apps.datasets import app_class, load_demos, load_tests
    from toollearn.apps.generator import ActionGenerator
    from toollearn.apps.scoring import score_program
    from toollearn.cli.common import load_engines
    from toollearn.evaluation.runners.apps import app_config
    from toollearn.models import APPS_ENGINE, SEAL_ENGINE

    if set(engines) == {"base", SEAL_ENGINE}:
        apps = load_engines({APPS_ENGINE: APPS_ENGINE}, args.threads, **llama_flags(args))
        engines = {"base": engines["base"], **apps}
    print("\nThe apps (system prompt + 3 demos, bound calls checked against the goal; the program "
          "is executed and judged):")  # fmt: skip
    for app in ("home-search", "trip-booking"):
        cls, goal, demos = app_class(app), load_tests(app)[0], load_demos(app)
        config = app_config(app, "system+demos", check_bounds=True)
        print(f"[{app}] {goal.query}")
        for label, engine in engines.items():
            generator = ActionGenerator(cls, engine, demos, config)
            gen = generator.generate([goal.query])[0]
            judged = score_program(gen.text, [goal.metadata["program"]], cls)
            verdict = "success" if judged["success"] else (
                f"criteria F1 {100 * judged['f1']:.0f}" if judged["executable"]
                else f"not executable: {judged['error']}")  # fmt: skip
            program = "; ".join(line.strip() for line in gen.text.splitlines() if line.strip())
            shown = program if len(program) <= 240 else program[:240] + "..."
            print(f"  {label or engine.name:<18}: {shown}\n  {'':<18}  -> {verdict}")
            for change in gen.bound_changes:
                was = f"{change['from']} -> " if change["from"] else "added "
                print(f"  {'':<18}  (bound check: {was}{change['to']}, goal: {change['reason']!r})")
    print("Whole test sets: toollearn eval apps-table --configs system+demos --out runs/NAME")


def user_tools_demo(engine: Any) -> None:
    """The general tool-calling agent on the demo's real @tool functions under the default
    policy (as `toollearn run`)."""
    from toollearn.agents.show import format_trace
    from toollearn.envs.demo import demo_env
    from toollearn.policy import preset

    agent = preset().agent(demo_env(), engine)  # as `run`
    for query in USER_TOOL_QUERIES:
        print(format_trace(agent.run(query)), end="\n\n")


def _calls_text(calls) -> str:
    from toollearn.formats.pycall import render_call

    return "; ".join(render_call(c) for c in calls) if calls else "(no call)"


def _shown(text: str) -> str:
    """Parsed calls as Python call strings, or the raw text when it is not a call list."""
    from toollearn.evaluation.metrics.seal_tools import strict_parse

    calls = strict_parse(text)
    if calls is None:
        flat = " ".join(text.split())
        return f"not a call list: {flat[:90]!r}" + ("..." if len(flat) > 90 else "")
    return _calls_text(calls)


def run_call(args: argparse.Namespace) -> int:
    """One query under the chosen preset: the model's text, then its calls (stderr)."""
    from toollearn.cli.common import policy_from_args, sampling_from_args
    from toollearn.formats.answers import tool_calls
    from toollearn.formats.convert import read_tools

    policy = policy_from_args(args)
    tools = read_tools(args.tools, args.tools_format)
    if policy.answer_format == "seal-tools":
        return _call_seal(args, policy, tools)
    options = {"constrained": not args.free, "sampling": sampling_from_args(args)}
    agent = policy.agent(engine=load_engine_from_args(args), execute=False,
                         threads=args.threads, max_tokens=args.max_tokens, **options)  # fmt: skip
    trace = agent.run(args.query, tools)
    gate = next((s for s in trace.steps if s.role == "gate"), None)
    note = _gate_note(gate) if gate is not None else None
    if note:
        print(note, file=sys.stderr)
    model_steps = [s for s in trace.steps if s.prompt is not None]
    if not model_steps or model_steps[-1].error is not None and not model_steps[-1].content:
        detail = trace.errors[-1].detail if trace.errors else "no answer"
        print(f"toollearn: error: {detail}", file=sys.stderr)
        return 1
    text = model_steps[-1].content
    print(text)
    if trace.meta["outcome"] == "format_error":
        print(f"# not a call list: {trace.errors[-1].detail}", file=sys.stderr)
        return 1
    calls = tool_calls.parse(text).calls
    print("# " + ("; ".join(_calls_text([c]) for c in calls) if calls else "no call"),
          file=sys.stderr)  # fmt: skip
    return 0


def _gate_note(gate: Any) -> str | None:
    """What the call gate decided for `toollearn call`, when it decided alone."""
    sim, closest = gate.data.get("max_similarity"), gate.data.get("closest_tool")
    if gate.content == "no call":
        why = f"similarity {sim} < {-gate.data['threshold']}" if sim is not None else gate.detail
        return (
            f"# the call gate declines: no listed tool is close enough (closest {closest}, {why})"
        )
    if gate.content == "sure call":
        sure = gate.data["sure_call_threshold"]
        why = f"similarity {sim} >= {-sure}" if sim is not None else gate.detail
        return f"# the call gate is sure a listed tool fits (closest {closest}, {why}): it calls"
    return None


def _postprocess_seal(text: str, query: str, seal: Any, tools: list, engine: Any) -> str:
    """The Seal-Tools repairs of a preset (`policy.SealSteps`: tool filter, foreign values,
    whole words, refill, generic values, missing calls, ISO dates) on an answer; what they
    changed goes to stderr."""
    from toollearn.agents.tool_filter import ToolFilter, postprocess

    if not (seal.tool_filter is not None or seal.iso_dates or seal.foreign_values
            or seal.whole_words or seal.generic_values or seal.missing_calls):  # fmt: skip
        return text
    clauses = (seal.tool_filter is not None or seal.foreign_values or seal.refill
               or seal.missing_calls)  # fmt: skip
    tool_filter = ToolFilter(seal.tool_filter) if clauses else None
    steps = postprocess(text, query, tools, tool_filter, seal.iso_dates, seal.foreign_values,
                        whole_words=seal.whole_words,
                        refill=engine if seal.refill else None,
                        refill_scope=seal.refill or "dropped",
                        generic=seal.generic_values,
                        missing=engine if seal.missing_calls else None)  # fmt: skip
    for call in steps.get("dropped_calls", []):
        print(f"# tool filter dropped a call to {call.get('api')}", file=sys.stderr)
    for drop in steps.get("dropped_values", []):
        print(f"# {drop['api']}.{drop['parameter']}: {drop['value']!r} is another tool's value, "
              "dropped", file=sys.stderr)  # fmt: skip
    for drop in steps.get("cut_values", []):
        print(f"# {drop['api']}.{drop['parameter']}: {drop['value']!r} cuts a word, dropped",
              file=sys.stderr)  # fmt: skip
    for fill in steps.get("refilled_values", []):
        print(f"# {fill['api']}.{fill['parameter']}: {fill['value']!r} asked again from "
              f"{fill['clauses']!r}", file=sys.stderr)  # fmt: skip
    for gen in steps.get("generic_values", []):
        now = f"the response {gen['ref']}" if "ref" in gen else "dropped"
        print(f"# {gen['api']}.{gen['parameter']}: {gen['value']!r} only names the parameter, "
              f"{now}", file=sys.stderr)  # fmt: skip
    for call in steps.get("added_calls", []):
        print(f"# {call['api']}: no call used it, asked from {call['clauses']!r}", file=sys.stderr)
    for change in steps.get("date_changes", []):
        print(f"# {change['parameter']}: {change['from']!r} -> {change['to']!r}", file=sys.stderr)
    return steps["output"]


def _pruned(query: str, tools: list, margin: float) -> list:
    """The tools some clause of the query points at (--prune-candidates; the rest to stderr)."""
    from toollearn.agents.tool_filter import ToolFilter

    support = ToolFilter(margin).support(query, tools)
    kept = [t for t in tools if support[t.name] >= -margin]
    for t in tools:
        if t not in kept:
            print(f"# not offered: {t.name} ({support[t.name]:+.3f} behind a clause's closest "
                  "tool)", file=sys.stderr)  # fmt: skip
    return kept


def _call_seal(args: argparse.Namespace, policy: Any, tools: list) -> int:
    """The Seal-Tools paper's prompt and call list over the given tools, with the preset's
    decoding options and repairs."""
    from toollearn.cli.common import sampling_from_args
    from toollearn.core.errors import FormatError
    from toollearn.decoding import seal_calls_constraint
    from toollearn.formats.answers import seal_tools

    if not tools:
        print(f"toollearn: error: the seal-tools format needs tools; none in {args.tools}",
              file=sys.stderr)  # fmt: skip
        return 1
    seal = policy.seal
    if seal.prune_candidates is not None:
        tools = _pruned(args.query, tools, seal.prune_candidates)
    prompt = seal_tools.render_messages(args.query, tools)
    constraint = None if args.free else seal_calls_constraint(
        tools, seal.allow_empty, distinct=seal.distinct_tools,
        copy_from=args.query if seal.copy_strings else None,
        stated_optional=seal.stated_optional,
    )  # fmt: skip
    engine = load_engine_from_args(args)
    out = engine.complete(
        [prompt], max_tokens=args.max_tokens, constraint=constraint,
        **sampling_from_args(args).kwargs(),
    )[0]  # fmt: skip
    if out.error:
        print(f"toollearn: error: {out.error}", file=sys.stderr)
        return 1
    text = _postprocess_seal(out.text, args.query, seal, tools, engine)
    print(text)
    try:
        calls = seal_tools.parse_calls(text)
    except FormatError as exc:
        print(f"# not a call list: {exc}", file=sys.stderr)
        return 1
    print("# " + ("; ".join(_calls_text([c]) for c in calls) if calls else "no call"),
          file=sys.stderr)  # fmt: skip
    return 0
