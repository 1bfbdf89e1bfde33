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
    add_sampling_args,
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
        "the embedded model as released (base) and with the papers' adapter "
        "(tuned-papers), or through --engine alone, with and without the call-list constraint; "
        "prints each query, the predicted "
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
        "listed tools and their argument types; --answer-format seal-tools uses the "
        "Seal-Tools paper's prompt and call list instead. Nothing is executed (see `run`).",
    )
    c.add_argument("query")
    c.add_argument("--tools", required=True, help="tool file (JSON or JSONL; '-' = stdin)")
    c.add_argument("--tools-format", default="auto",
                   help="format of --tools (default auto: told from the records; openai, "
                   "seal-tools, python, toolbench, tooldeer, toollearn, ...)")  # fmt: skip
    c.add_argument("--answer-format", choices=("tool-calls", "seal-tools"), default="tool-calls")
    add_engine_args(c, default="auto")  # auto: the papers' adapter for seal-tools (run_call)
    add_sampling_args(c)
    c.add_argument("--free", action="store_true", help="no constraint")
    c.add_argument("--no-gate", action="store_true",
                   help="general format: the model alone decides whether to call (default: "
                   "the shipped DEER call gate declines first when no listed tool is close "
                   "enough to the query; docs/results/tuned.md, \"A call gate for any "
                   "tools\")")  # fmt: skip
    c.add_argument("--no-sure-call", action="store_true",
                   help="general format: the call gate only declines (default: where it is "
                   "sure a listed tool fits, at or below its sure-call threshold, the answer "
                   "must call)")  # fmt: skip
    c.add_argument("--allow-empty", action="store_true",
                   help="seal-tools format: admit [] (no call); the general format always "
                   "may decline")  # fmt: skip
    c.add_argument(
        "--copy-strings",
        action="store_true",
        help="seal-tools format, constrained: string-typed values are spans of the "
        "query (or nested references); +1.8 Param F1 on the Seal-Tools test set",
    )
    c.add_argument(
        "--distinct-tools",
        action="store_true",
        help="seal-tools format, constrained: each tool at most once per list",
    )
    c.add_argument(
        "--stated-optional",
        action="store_true",
        help="with --copy-strings: optional parameters only with values the query states",
    )
    c.add_argument(
        "--tool-filter",
        type=float,
        default=None,
        metavar="MARGIN",
        help="seal-tools format: drop the calls to tools more than MARGIN (cosine) behind the "
        "closest tool of every clause of the query (embedded MiniLM; margin 0, chosen on dev, "
        "adds 7.7 Tool F1 points on the Seal-Tools test set: docs/results/tuned.md)",
    )
    c.add_argument(
        "--prune-candidates",
        type=float,
        default=None,
        metavar="MARGIN",
        help="seal-tools format: offer the model only the tools at most MARGIN (cosine) behind "
        "the closest tool of some clause of the query (embedded MiniLM); with --distinct-tools, "
        "--foreign-values all, --whole-words, --refill and --iso-dates the best Seal-Tools "
        "setting on dev (docs/results/tuned.md)",
    )
    c.add_argument(
        "--iso-dates",
        action="store_true",
        help="seal-tools format: write an argument that is a date in words with a year as "
        "YYYY-MM-DD (as the Seal-Tools answers do)",
    )
    c.add_argument(
        "--foreign-values",
        choices=("optional", "all"),
        default=None,
        help="seal-tools format: drop an argument (of an optional parameter, or of any) whose "
        "value the query states only in other tools' clauses (embedded MiniLM)",
    )
    c.add_argument(
        "--whole-words",
        action="store_true",
        help="seal-tools format: drop a string argument copied from the query that starts or "
        "ends inside a word",
    )
    c.add_argument(
        "--refill",
        nargs="?",
        const="dropped",
        choices=("dropped", "required"),
        default=None,
        help="seal-tools format, with --foreign-values or --whole-words: ask the model again, "
        "with only the call's tool and its own clauses, for the required arguments they dropped "
        "(dropped, the default) or for every required argument of a multi-call answer (required)",
    )
    c.add_argument(
        "--generic-values",
        action="store_true",
        help="seal-tools format: drop a string argument that only repeats its parameter's name "
        "(building_id = 'building'), or in a later call put the previous call's response there",
    )
    c.add_argument(
        "--missing-calls",
        action="store_true",
        help="seal-tools format: ask the model again, with only that tool and its own clauses, "
        "for a call to each tool that some clause points at first and no call uses",
    )
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
    from toollearn.models import DEFAULT_ENGINE, PAPERS_ENGINE

    default = args.engine == DEFAULT_ENGINE  # Seal-Tools' prompt: the papers' adapter
    specs = {"base": "base", PAPERS_ENGINE: PAPERS_ENGINE} if default else {"": args.engine}
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
    from toollearn.models import APPS_ENGINE, PAPERS_ENGINE

    if set(engines) == {"base", PAPERS_ENGINE}:
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
    """The general tool-calling agent on the demo's real @tool functions, behind the shipped
    call gate and following the query's call plan (as `toollearn run`)."""
    from toollearn.agents import ToolCallsAgent
    from toollearn.agents.show import format_trace
    from toollearn.envs.demo import demo_env

    agent = ToolCallsAgent.gated(engine, demo_env(), max_steps=6, plan="due")  # as `run`
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
    """One query in the chosen answer format: the model's text, then its calls (stderr)."""
    from toollearn.cli.common import sampling_from_args
    from toollearn.formats.convert import read_tools

    seal_only = [
        f"--{n}"
        for n in ("copy-strings", "distinct-tools", "stated-optional")
        if getattr(args, n.replace("-", "_"))
    ]
    post = [n for n, v in (("--prune-candidates", args.prune_candidates is not None),
                           ("--tool-filter", args.tool_filter is not None),
                           ("--foreign-values", args.foreign_values),
                           ("--whole-words", args.whole_words), ("--refill", args.refill),
                           ("--generic-values", args.generic_values),
                           ("--missing-calls", args.missing_calls),
                           ("--iso-dates", args.iso_dates)) if v]  # fmt: skip
    if post and args.answer_format != "seal-tools":
        print(f"toollearn: error: {' and '.join(post)} only apply to --answer-format seal-tools",
              file=sys.stderr)  # fmt: skip
        return 2
    if seal_only and (args.answer_format != "seal-tools" or args.free):
        print(f"toollearn: error: {' and '.join(seal_only)} only apply to the constrained "
              "seal-tools format: use --answer-format seal-tools without --free",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.stated_optional and not args.copy_strings:
        print("toollearn: error: --stated-optional needs --copy-strings", file=sys.stderr)
        return 2
    if args.refill and not (args.foreign_values or args.whole_words):
        print("toollearn: error: --refill needs --foreign-values or --whole-words (it asks "
              "again for what they dropped)", file=sys.stderr)  # fmt: skip
        return 2
    if args.engine == "auto":  # each answer format's own adapter
        from toollearn.models import DEFAULT_ENGINE, PAPERS_ENGINE

        args.engine = PAPERS_ENGINE if args.answer_format == "seal-tools" else DEFAULT_ENGINE
    tools = read_tools(args.tools, args.tools_format)
    if args.answer_format == "seal-tools":
        return _call_seal(args, tools)
    from toollearn.agents import ToolCallsAgent
    from toollearn.formats.answers import tool_calls

    options = {"constrained": not args.free, "max_tokens": args.max_tokens, "execute": False,
               "sampling": sampling_from_args(args)}  # fmt: skip
    engine = load_engine_from_args(args)
    if args.no_gate:
        agent = ToolCallsAgent(engine, **options)
    else:
        agent = ToolCallsAgent.gated(engine, threads=args.threads,
                                     sure_call=not args.no_sure_call, **options)  # fmt: skip
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


def _postprocess_seal(text: str, args: argparse.Namespace, tools: list, engine: Any) -> str:
    """--tool-filter, --foreign-values, --whole-words, --refill, --generic-values,
    --missing-calls and --iso-dates on a seal-tools answer (what they changed goes to stderr)."""
    from toollearn.agents.tool_filter import ToolFilter, postprocess

    if not (args.tool_filter is not None or args.iso_dates or args.foreign_values
            or args.whole_words or args.generic_values or args.missing_calls):  # fmt: skip
        return text
    clauses = (args.tool_filter is not None or args.foreign_values or args.refill
               or args.missing_calls)  # fmt: skip
    tool_filter = ToolFilter(args.tool_filter) if clauses else None
    steps = postprocess(text, args.query, tools, tool_filter, args.iso_dates, args.foreign_values,
                        whole_words=args.whole_words,
                        refill=engine if args.refill else None,
                        refill_scope=args.refill or "dropped",
                        generic=args.generic_values,
                        missing=engine if args.missing_calls else None)  # fmt: skip
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


def _call_seal(args: argparse.Namespace, tools: list) -> int:
    """The Seal-Tools paper's prompt and call list over the given tools."""
    from toollearn.cli.common import sampling_from_args
    from toollearn.core.errors import FormatError
    from toollearn.decoding import seal_calls_constraint
    from toollearn.formats.answers import seal_tools

    if not tools:
        print(f"toollearn: error: the seal-tools format needs tools; none in {args.tools}",
              file=sys.stderr)  # fmt: skip
        return 1
    if args.prune_candidates is not None:
        tools = _pruned(args.query, tools, args.prune_candidates)
    prompt = seal_tools.render_messages(args.query, tools)
    constraint = None if args.free else seal_calls_constraint(
        tools, args.allow_empty, distinct=args.distinct_tools,
        copy_from=args.query if args.copy_strings else None,
        stated_optional=args.stated_optional,
    )  # fmt: skip
    engine = load_engine_from_args(args)
    out = engine.complete(
        [prompt], max_tokens=args.max_tokens, constraint=constraint,
        **sampling_from_args(args).kwargs(),
    )[0]  # fmt: skip
    if out.error:
        print(f"toollearn: error: {out.error}", file=sys.stderr)
        return 1
    text = _postprocess_seal(out.text, args, tools, engine)
    print(text)
    try:
        calls = seal_tools.parse_calls(text)
    except FormatError as exc:
        print(f"# not a call list: {exc}", file=sys.stderr)
        return 1
    print("# " + ("; ".join(_calls_text([c]) for c in calls) if calls else "no call"),
          file=sys.stderr)  # fmt: skip
    return 0
