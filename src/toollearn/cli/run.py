"""`toollearn run "<query>"`: run any agent once against executable tools, print the Trace."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any

from toollearn.cli.common import (
    add_preset_arg,
    add_sampling_args,
    add_user_engine_args,
    llama_flags,
    load_engine_spec,
    load_engines,
    role_specs,
    sampling_from_args,
)

AGENT_NAMES = ("tool-calls", "multi-role", "react", "deer", "multi-call")


def register(subparsers: Any) -> None:
    """Add the `run` command."""
    p = subparsers.add_parser(
        "run",
        help="run an agent on one query and print its Trace",
        description="Run one query against executable tools and print the Trace (decisions, "
        "calls, observations, errors, answer). Tools: the built-in demo tools (default; real "
        "Python functions), a Python module's @tool functions (--module), an MCP server (--mcp), "
        "or a tool file whose tools are simulated from their declared responses (--tools). The "
        "general agent (tool-calls: JSON call lists, results fed back, free to decline) runs "
        "under --preset, as `call` and `serve` do; --agent names a paper's agent instead "
        "(multi-role: alpha-UMi, react, deer, multi-call: Seal-Tools), run with the papers' "
        "adapter and that paper's shipped settings (their knobs: `toollearn eval episodes`, "
        "`eval deer`).",
    )
    p.add_argument("query")
    p.add_argument("--agent", choices=AGENT_NAMES, default="tool-calls")
    add_preset_arg(p)
    add_user_engine_args(p)  # default: `default_engine`
    add_sampling_args(p)
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
    p.add_argument("--role-adapters", default=None, metavar="DIR",
                   help="multi-role: each role under its own adapter from DIR/adapters.json (a "
                   "`toollearn train --glpft` output) on the one --engine backbone")  # fmt: skip
    p.add_argument("--free", action="store_true", help="no grammar constraints")
    p.add_argument("--max-steps", type=int, default=None,
                   help="model turns at most (default: the preset's, 6)")  # fmt: skip
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


def default_engine(agent: str, preset: str | None = None) -> str:
    """The model `run` uses unless --engine names one: the preset's for the general agent
    (tool-calls), alpha-UMi's role adapters for the multi-role agent, DEER's adapter for the
    DEER agent, the papers' formats' adapter for the others (react, multi-call)."""
    from toollearn.models import DEER_ENGINE, PAPERS_ENGINE, UMI_ENGINE
    from toollearn.policy import DEFAULT_PRESET
    from toollearn.policy import preset as named

    if agent == "tool-calls":
        return named(preset or DEFAULT_PRESET).engine
    return {"multi-role": UMI_ENGINE, "deer": DEER_ENGINE}.get(agent, PAPERS_ENGINE)


def build_agent(args: argparse.Namespace, env: Any) -> Any:
    """The agent named by --agent (the general one under --preset) over the engine."""
    from toollearn import agents
    from toollearn.policy import preset

    policy = preset(args.preset)
    if args.engine in (None, "preset"):
        args.engine = default_engine(args.agent, args.preset)
    policy = policy.with_engine(args.engine)

    def engine() -> Any:
        return load_engine_spec(args.engine, args.threads, **llama_flags(args))

    constrained, sampling = not args.free, sampling_from_args(args)
    steps = args.max_steps or policy.max_steps
    common = {"seed": args.seed, "sampling": sampling}
    if args.agent == "multi-role":  # one backbone, a view per role's adapter
        roles = load_engines(role_specs(args), args.threads, **llama_flags(args))
        return agents.MultiRoleAgent(roles["planner"], roles["caller"], roles["summarizer"], env,
                                     max_steps=steps, constrained_caller=constrained,
                                     **common)  # fmt: skip
    if args.agent == "react":
        return agents.ReActAgent(engine(), env, max_steps=steps, constrained=constrained,
                                 **common)  # fmt: skip
    if args.agent == "deer":
        retriever = None
        if len(env.tools) > 5 and not args.only:  # DEER looks its 5-tool pool up
            from toollearn.retrieval import ToolRetriever

            retriever = ToolRetriever(env.tools, "bm25")
        # a DEER-trained adapter writes DEER's format even where a plain answer is due (its
        # free answers are markers), so the plain embedded model answers what needs no tool
        from toollearn.models import DEER_ENGINE, PAPERS_ENGINE

        kind = args.engine.partition("@")[0].partition(":")[0]
        papers = kind in (DEER_ENGINE, PAPERS_ENGINE)
        answerer = load_engine_spec("base", args.threads, **llama_flags(args)) if papers else None
        return agents.DecisionAgent.gated(
            engine(), env, threads=args.threads, retriever=retriever, constrained=constrained,
            answer_engine=answerer, **common,
        )  # fmt: skip
    if args.agent == "multi-call":
        return agents.MultiCallAgent(engine(), env, constrained=constrained, **common)
    return policy.agent(env, engine(), threads=args.threads, constrained=constrained,
                        max_steps=steps, **common)  # fmt: skip


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
