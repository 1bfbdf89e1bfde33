"""`toollearn run "<query>"`: run any agent once against executable tools, print the Trace."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any

from toollearn.cli.common import (
    add_engine_args,
    add_plan_tuning_args,
    add_role_args,
    add_sampling_args,
    llama_flags,
    load_engine_spec,
    load_engines,
    role_specs,
    sampling_from_args,
)

AGENT_NAMES = ("tool-calls", "multi-role", "react", "deer", "multi-call")


def register(subparsers: Any) -> None:
    """Add the `run` command."""
    from toollearn.agents.plan_gate import RULES as PLAN_GATE_RULES

    p = subparsers.add_parser(
        "run",
        help="run an agent on one query and print its Trace",
        description="Run one agent on one query against executable tools and print the Trace "
        "(decisions, calls, observations, errors, answer). Tools: the built-in demo tools "
        "(default; real Python functions), a Python module's @tool functions (--module), or a "
        "tool file whose tools are simulated from their declared responses (--tools). Agents: "
        "tool-calls (default: the general JSON call format, several calls per turn, results "
        "fed back, free to decline), multi-role (alpha-UMi), react, deer, multi-call "
        "(Seal-Tools). The default engine (auto) is tuned-agent for tool-calls (the papers' "
        "and agent adapters, which answer after results where the general one still calls "
        "again) and tuned-papers (the papers' formats) for the others.",
    )
    p.add_argument("query")
    p.add_argument("--agent", choices=AGENT_NAMES, default="tool-calls")
    add_engine_args(p, default="auto")  # auto: `default_engine`
    add_sampling_args(p)
    add_role_args(p)
    src = p.add_mutually_exclusive_group()
    src.add_argument("--tools", default=None, help="a tool file (simulated execution)")
    src.add_argument("--module", default=None, help="import MODULE and use its @tool functions")
    src.add_argument("--mcp", default=None, metavar="SERVER",
                     help="the tools of an MCP server, called through it: a command line "
                     "(stdio, e.g. \"python my_server.py\") or an http(s):// URL")  # fmt: skip
    p.add_argument(
        "--tools-format",
        default="auto",
        help="format of --tools (default auto: told from the records; see `tools convert`)",
    )
    p.add_argument("--only", default=None, help="comma-separated tool names to show the agent")
    p.add_argument("--free", action="store_true", help="no grammar constraints")
    p.add_argument("--retriever", choices=("bm25", "dense", "hybrid"), default="bm25",
                   help="deer: how to retrieve the 5-tool pool from more tools")  # fmt: skip
    p.add_argument("--no-gates", action="store_true",
                   help="tool-calls: the model alone decides whether to call (default: the "
                   "shipped DEER call gate declines first when no shown tool is close enough "
                   "to the query); deer: the model's own branches decide Search and Call "
                   "(default: the shipped gates decide them, the model writes the call, "
                   "and with the tuned model the base model writes answers that need no "
                   "tool)")  # fmt: skip
    p.add_argument("--no-sure-call", action="store_true",
                   help="tool-calls: the call gate only declines; the model decides whatever "
                   "it passes (default: where the gate is sure a shown tool fits, at or below "
                   "its sure-call threshold, the first turn must call)")  # fmt: skip
    p.add_argument("--ask-again-on-repeat", action="store_true",
                   help="tool-calls: a call list that repeats a call made before is generated "
                   "again without the repeated tools (results/agent-ask-again)")  # fmt: skip
    p.add_argument("--plan", choices=("due", "order", "none"), default="due",
                   help="tool-calls: the call plan read off the query's requests "
                   "(agents.clause_plan) it follows, one call a turn while planned tools are "
                   "left: due (the default) offers only the due tool, order keeps later "
                   "planned tools back, none follows no plan (results/agent-plan)")  # fmt: skip
    add_plan_tuning_args(p)
    p.add_argument("--search-gate", action="store_true",
                   help="deer: the shipped search classifier (query embedding + length) decides "
                   "Search instead of the model (off by default: it also declines a few tool "
                   "requests)")  # fmt: skip
    p.add_argument("--constrain-plan", action="store_true", help="multi-role: grammar for Next:")
    p.add_argument("--plan-gate", choices=PLAN_GATE_RULES, default=None,
                   help="multi-role: the query's call plan re-decides the planner's role by "
                   "this rule (agents.plan_gate) and offers the caller only the due tool; "
                   "for queries that state each sub-task as a clause (results/umi-plan-gate)"
                   )  # fmt: skip
    p.add_argument("--max-steps", type=int, default=6)
    p.add_argument("--timeout", type=float, default=5.0, help="seconds per tool call")
    p.add_argument("--json", action="store_true", help="print the Trace as JSON (with prompts)")
    p.set_defaults(func=run)


def build_env(args: argparse.Namespace) -> Any:
    """The Environment named by the flags (demo tools by default)."""
    from toollearn.envs import Environment
    from toollearn.envs.demo import demo_env

    if args.tools:
        from toollearn.formats.convert import read_tools

        return Environment.simulated(
            read_tools(args.tools, args.tools_format), timeout=args.timeout
        )
    if getattr(args, "mcp", None):
        from toollearn.envs.mcp_client import MCPTools

        return Environment(timeout=args.timeout).add_mcp(MCPTools(args.mcp))
    if args.module:
        module = importlib.import_module(args.module)
        fns = [v for v in vars(module).values() if callable(v) and hasattr(v, "tool")]
        if not fns:
            from toollearn.core.errors import ToollearnError

            raise ToollearnError(f"module {args.module!r} has no @tool functions")
        return Environment.from_functions(fns, timeout=args.timeout)
    return demo_env(timeout=args.timeout)


def default_engine(agent: str) -> str:
    """The engine of `--engine auto` (the default): the tools and agent adapters for the
    tool-calls agent, which feeds results back turn after turn; the papers' adapter for the
    others (the papers' agents, in their formats)."""
    from toollearn.models import AGENT_ENGINE, PAPERS_ENGINE

    return AGENT_ENGINE if agent == "tool-calls" else PAPERS_ENGINE


def build_agent(args: argparse.Namespace, env: Any) -> Any:
    """The agent named by --agent over engines loaded from the specs."""
    from toollearn import agents

    if args.engine == "auto":
        args.engine = default_engine(args.agent)

    def engine() -> Any:
        return load_engine_spec(args.engine, args.threads, **llama_flags(args))

    constrained, sampling = not args.free, sampling_from_args(args)
    common = {"seed": args.seed, "sampling": sampling}
    if args.agent == "multi-role":  # one backbone per distinct base model, a view per adapter
        roles = load_engines(role_specs(args), args.threads, **llama_flags(args))
        call_planner = None
        if args.plan_gate:
            from toollearn.agents.clause_plan import ClausePlanner

            call_planner = ClausePlanner.with_settings(args.plan_margin, args.plan_unfit_gap)
        return agents.MultiRoleAgent(
            roles["planner"], roles["caller"], roles["summarizer"], env,
            max_steps=args.max_steps, constrained_caller=constrained,
            constrained_plan=args.constrain_plan, plan_gate=args.plan_gate,
            call_planner=call_planner, **common,
        )  # fmt: skip
    if args.agent == "react":
        return agents.ReActAgent(engine(), env, max_steps=args.max_steps,
                                 constrained=constrained, **common)  # fmt: skip
    if args.agent == "deer":
        retriever = None
        if len(env.tools) > 5 and not args.only:  # DEER looks its 5-tool pool up
            from toollearn.retrieval import ToolRetriever

            retriever = ToolRetriever(env.tools, args.retriever)
        # the shipped adapter writes DEER's format even where a plain answer is due (its
        # free answers are markers), so the plain embedded model answers what needs no tool
        tuned = args.engine.partition("@")[0].partition(":")[0] == "tuned"
        answerer = load_engine_spec("base", args.threads, **llama_flags(args)) if tuned else None
        options = {"retriever": retriever, "constrained": constrained,
                   "answer_engine": answerer, **common}  # fmt: skip
        if args.no_gates:
            return agents.DecisionAgent(engine(), env, **options)
        return agents.DecisionAgent.gated(
            engine(), env, threads=args.threads, search_classifier=args.search_gate, **options
        )
    if args.agent == "multi-call":
        return agents.MultiCallAgent(engine(), env, constrained=constrained, **common)
    plan = None if args.plan == "none" else args.plan
    options = {"constrained": constrained, "max_steps": args.max_steps,
               "ask_again_on_repeat": args.ask_again_on_repeat, "plan": plan, **common}  # fmt: skip
    if plan and (args.plan_margin is not None or args.plan_unfit_gap is not None):
        from toollearn.agents.clause_plan import ClausePlanner

        options["planner"] = ClausePlanner.with_settings(args.plan_margin, args.plan_unfit_gap)
    if args.no_gates:
        return agents.ToolCallsAgent(engine(), env, **options)
    return agents.ToolCallsAgent.gated(engine(), env, threads=args.threads,
                                       sure_call=not args.no_sure_call, **options)  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Build env + agent, run the query, print the Trace."""
    from toollearn.agents.show import format_trace

    env = build_env(args)
    tools = env.tools
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        missing = [n for n in wanted if env.get(n) is None]
        if missing:
            print(f"toollearn: unknown tool(s): {', '.join(missing)}", file=sys.stderr)
            return 2
        tools = [env.get(n) for n in wanted]
    if args.agent == "deer" and len(tools) > 5 and not args.only:
        tools = None  # the agent retrieves its pool
    try:
        trace = build_agent(args, env).run(args.query, tools)
    finally:
        env.close()
    print(json.dumps(trace.to_dict(), indent=1, ensure_ascii=False) if args.json
          else format_trace(trace))  # fmt: skip
    return 0
