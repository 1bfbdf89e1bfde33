"""`toollearn eval calls`: the general tool-calling suite, in process or against any server.

toollearn eval calls --out runs/calls-tuned                       # the default model, test split
toollearn eval calls --model base --out runs/calls-base
toollearn eval calls --split dev --quick --out runs/try            # iterate on dev, never on test
toollearn eval calls --url http://127.0.0.1:8000/v1 --out runs/calls-served   # any server
"""

from __future__ import annotations

import argparse
from typing import Any

from toollearn.agents.clause_plan import MODES as PLAN_MODES
from toollearn.cli.common import add_engine_args, add_run_args, llama_flags, load_engine_spec
from toollearn.core.errors import DataError

COLUMNS = [("category", "category"), ("n", "n"), ("exact", "exact"), ("decision", "decision"),
           ("tool_f1", "tool F1"), ("arg_f1", "arg F1"), ("format", "format"),
           ("markup", "markup"), ("replied", "replied"), ("mentions", "mentions"),
           ("answers", "answers")]  # fmt: skip


def register_eval(eval_sub: Any) -> None:
    """Add `toollearn eval calls`."""
    from toollearn.evaluation.calls_suite import KNOWN, SPLITS

    p = eval_sub.add_parser(
        "calls",
        help="the general tool-calling suite (simple, multiple, parallel, decline, chat, "
        "multi-turn, formats ...), in process or through any OpenAI-compatible server",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--split", choices=SPLITS, default="test",
                   help="test (held out: report) or dev (choose settings here)")  # fmt: skip
    p.add_argument("--quick", action="store_true",
                   help="the split's fixed quick subset (20 items per category)")  # fmt: skip
    p.add_argument("--category", action="append", choices=KNOWN, default=None,
                   help="only this category (repeatable)")  # fmt: skip
    p.add_argument("--suite", default=None, help="a suite folder (default: the shipped one)")
    p.add_argument("--set", dest="eval_set", default=None, metavar="NAME",
                   help="a hand-written set instead of the suite (travel, office, smart-home: "
                   "requests people wrote for one tool file; evaluation/sets) or a folder laid "
                   "out the same way")  # fmt: skip
    add_engine_args(p)
    p.add_argument("--call-gate", action="store_true",
                   help="as `toollearn serve --call-gate`: the shipped DEER call gate decides "
                   "first where tool_choice is auto and the user spoke last")  # fmt: skip
    p.add_argument("--no-sure-call", action="store_true", help="with --call-gate: only decline")
    p.add_argument("--plan", choices=PLAN_MODES, default=None,
                   help="as a preset's plan: the query's call plan narrows each turn to the due "
                   "tool, one call a turn (order: or a tool outside the plan; due-reply: then "
                   "the reply), or to all planned calls at once (batch: then those waiting for "
                   "a result, then the reply); after --call-gate's verdict")  # fmt: skip
    p.add_argument("--repairs", nargs="?", const="cut_off,schema", default=None,
                   metavar="CHECKS",
                   help="as the presets serve: the repair loop's checks ask an answer again "
                   "(agents.repairs; default cut_off,schema; also grounded, uses_results, "
                   "repeated; 2 tries)")  # fmt: skip
    p.add_argument("--docs", choices=("json", "compact"), default=None,
                   help="how prompts list the tools (default: as the model was "
                   "trained)")  # fmt: skip
    p.add_argument("--url", default=None,
                   help="score a running OpenAI-compatible server at this base URL (…/v1) "
                   "through the openai client instead of a model in process")  # fmt: skip
    p.add_argument(
        "--served-model",
        default=None,
        help="with --url: the model id to ask for (default: the first it lists)",
    )
    p.add_argument("--api-key", default="-", help="with --url: the API key to send")
    p.add_argument("--max-tokens", type=int, default=256, help="per answer (default 256)")
    p.add_argument("--reuse", default=None, metavar="RUN",
                   help="with --call-gate or --plan: take the answers of RUN (the same model "
                   "alone) that the gate or plan would not change; exact under greedy "
                   "decoding")  # fmt: skip
    add_run_args(p)
    p.set_defaults(func=run_calls)


def run_calls(args: argparse.Namespace) -> int:
    from toollearn.engines.base import prompt_docs
    from toollearn.evaluation.calls_suite import load_suite
    from toollearn.evaluation.report import format_table
    from toollearn.evaluation.runners.base import parse_shard, take_shard, with_shard
    from toollearn.evaluation.runners.calls import in_process, over_http, reusable, run_suite

    if args.eval_set:
        from toollearn.evaluation.examples import load_set

        suite = load_set(args.eval_set, args.split)
        if args.category:
            suite.items = [it for it in suite.items if it.category in args.category]
    else:
        suite = load_suite(args.split, args.suite, args.quick, args.category or ())
    shard = parse_shard(args.shard)
    suite.items = take_shard(suite.items[: args.limit] if args.limit else suite.items, shard)
    config: dict[str, Any] = {"benchmark": "calls", "split": args.split, "quick": args.quick,
                              "categories": args.category or "all", "limit": args.limit,
                              "max_tokens": args.max_tokens, "docs": args.docs,
                              "suite": args.suite or "shipped"}  # fmt: skip
    if args.eval_set:
        config["set"] = args.eval_set
    engine = None
    if args.url:
        answer, model = over_http(args.url, args.served_model, args.api_key)
        config.update(url=args.url, served_model=model, docs=args.docs or "the server's")
    else:
        engine = load_engine_spec(args.engine, args.threads, **llama_flags(args))
        gate: dict[str, Any] = {}
        if args.call_gate:
            from toollearn.agents.call_gate import shipped_call_gate, shipped_sure_call_threshold

            gate = dict(zip(("call_gate", "call_threshold"), shipped_call_gate(engine, 1)))
            if not args.no_sure_call:
                gate["sure_call_threshold"] = shipped_sure_call_threshold()
        reuse = reusable(suite, args.reuse, engine, args.max_tokens) if args.reuse else None
        docs = args.docs or prompt_docs(engine)  # as the model was trained
        plan = None
        if args.plan:
            from toollearn.agents.clause_plan import ClausePlanner

            planner = ClausePlanner.for_mode(args.plan)
            plan = (args.plan, planner)
            config.update(plan=args.plan, **planner.describe())
        repairs = None
        if args.repairs:
            from toollearn.agents.repairs import RepairLoop

            checks = [c.strip() for c in args.repairs.split(",") if c.strip()]
            constrained = bool(getattr(engine, "supports_constraints", 0))
            try:
                repairs = RepairLoop(checks, constrained=constrained)
            except ValueError as exc:
                raise DataError(f"--repairs: {exc}") from None
            config.update(repairs=repairs.checks, repair_budget=repairs.budget)
        answer = in_process(engine, docs=docs, gate=gate, reuse=reuse, plan=plan,
                            repairs=repairs)  # fmt: skip
        config.update(engine=args.engine, docs=docs, call_gate=bool(gate),
                      sure_call=bool(gate) and not args.no_sure_call)  # fmt: skip
        if args.reuse:
            config["reuse"] = str(args.reuse)
    scores = run_suite(suite, answer, args.out, with_shard(config, shard), engine,
                       args.max_tokens)  # fmt: skip
    rows = [{"category": c, **s} for c, s in scores.items()]
    print(format_table(rows, COLUMNS, ".1f"))
    print(f"\nwrote {args.out}/predictions.jsonl and scores.json")
    return 0
