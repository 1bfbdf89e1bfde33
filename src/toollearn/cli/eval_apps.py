"""`toollearn eval home-search|trip-booking|apps-table|apps-bounds|apps-retry`: execution-judged
app benchmarks, and the bound check or sampled retries applied to a finished run."""

from __future__ import annotations

import argparse
import json
from typing import Any

from toollearn.apps.generator import RETRY_DEMOS
from toollearn.apps.grammar import ORDERS
from toollearn.cli.common import add_engine_args, load_engine_from_args
from toollearn.core.errors import ToollearnError

APP_HELP = {
    "home-search": "SambaNova Home Search (15 functions), judged by executing the program",
    "trip-booking": "SambaNova Trip Booking (18 functions + Loc/Date), judged by execution",
}


def _preset_arg(p: argparse.ArgumentParser) -> None:
    """--preset: the apps' repairs as a named policy (`toollearn.policy`)."""
    from toollearn.policy import PRESETS, preset_help

    names = [n for n, policy in PRESETS.items() if policy.answer_format == "programs"]
    p.add_argument("--preset", choices=names, default=None,
                   help=f"the repair flags below as a named policy ({preset_help(True)}; "
                   "--check-bounds and --retries 8, each try sampled at 1.0 with other demos, "
                   "chosen on the apps' dev sets)")  # fmt: skip


def apply_preset(args: argparse.Namespace) -> None:
    """Set the repair flags from --preset (its `Policy.apps`), where one is named."""
    from toollearn.policy import preset

    if getattr(args, "preset", None) is None:
        return
    steps = preset(args.preset).apps
    args.check_bounds, args.retries = steps.check_bounds, steps.retries
    args.retry_temperature, args.retry_demos = steps.retry_temperature, steps.retry_demos


def _common(p: argparse.ArgumentParser) -> None:
    from toollearn.models import APPS_ENGINE

    add_engine_args(p, default=APPS_ENGINE)
    p.add_argument("--out", required=True, help="run directory (resumed if it exists)")
    p.add_argument("--limit", type=int, default=None, help="first N test goals only")
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument(
        "--chat",
        action="store_true",
        help="send the prompt as chat messages (system + user), the way `datagen apps` "
        "trains an adapter; by default raw text, as ToolBench prompts a base model",
    )
    p.add_argument(
        "--grammar-order",
        choices=list(ORDERS),
        default="app",
        help="constrained configuration: the API calls after the first ones in the app's "
        "order (default), in any order (as many calls as there are such functions), or "
        "typed: any order, only the calls the booking type takes and all it requires",
    )
    p.add_argument(
        "--check-bounds",
        action="store_true",
        help="turn each program's min/max calls to the side the goal's wording states "
        "('under $900,000' -> set_max_price; '$1,000 to $2,000' -> both ends), recording the "
        "model's program as unchecked_output (toollearn.apps.bounds)",
    )
    _retry_args(p)


def _retry_args(p: argparse.ArgumentParser, default: int = 0) -> None:
    p.add_argument(
        "--retries",
        type=int,
        default=default,
        help="ask again, sampled, up to N times when a program does not run, leaves out a "
        "number the goal states or passes one to more calls than the goal states it; the "
        f"first try without these defects replaces it (default {default}; 8 was chosen on "
        "the apps' dev sets: results/apps-retry)",
    )
    p.add_argument(
        "--retry-temperature",
        type=float,
        default=1.0,
        help="sampling temperature of the tries (default 1.0, chosen on dev; 0 with "
        "--retry-demos shifted: greedy tries that differ by their demos)",
    )
    p.add_argument(
        "--retry-demos",
        choices=RETRY_DEMOS,
        default="shifted",
        help="the demos a try shows: for try k, those BM25 ranks after the first k (shifted, "
        "the default, chosen on dev) or the prompt's own (same)",
    )


def register_eval(eval_sub: Any) -> None:
    """Add `toollearn eval home-search`, `trip-booking` and `apps-table`."""
    from toollearn.apps.generator import CONFIGS

    for app, help_text in APP_HELP.items():
        p = eval_sub.add_parser(
            app,
            help=help_text,
            description=f"{help_text}. Writes OUT/predictions.jsonl and OUT/scores.json; "
            "with --all-configs, OUT/<config>/ for every configuration and OUT/table.md.",
        )
        p.add_argument("--config", choices=list(CONFIGS), default="system+demos")
        _preset_arg(p)
        p.add_argument("--all-configs", action="store_true", help="run every configuration")
        p.add_argument("--goals", default=None,
                       help="a goals file (e.g. a dev set from `datagen apps-dev`) instead of "
                       "the test goals")  # fmt: skip
        _common(p)
        p.set_defaults(func=run, app=app)
    p = eval_sub.add_parser(
        "apps-table",
        help="both apps x every configuration -> the apps results table",
        description="Run Home Search and Trip Booking under every configuration into "
        "OUT/<app>/<config>/ and write OUT/table.md (with the paper's Table 6 numbers).",
    )
    p.add_argument(
        "--configs",
        default=",".join(CONFIGS),
        help=f"comma-separated subset of {','.join(CONFIGS)} (default: all)",
    )
    p.add_argument("--apps", default="home-search,trip-booking", help="comma-separated apps")
    p.add_argument(
        "--rescore",
        metavar="REASON",
        default=None,
        help="no model: score every finished run under OUT/<app>/<config>/ again from its "
        "predictions, note REASON in each scores.json and rewrite OUT/table.md",
    )
    _common(p)
    p.set_defaults(func=run_table_cmd)
    p = eval_sub.add_parser(
        "apps-bounds",
        help="no model: a finished app run with its programs' bound calls checked",
        description="Write OUT: RUN (a home-search or trip-booking run directory) with every "
        "program's min/max calls turned to the side its goal states, as --check-bounds would "
        "have written it from the same model outputs, and scored.",
    )
    p.add_argument("--run", required=True, help="a finished app run directory")
    p.add_argument("--out", required=True, help="the checked run's directory")
    p.set_defaults(func=bounds_cmd)
    p = eval_sub.add_parser(
        "apps-retry",
        help="a finished app run with its flagged programs asked for again (sampled)",
        description="Write OUT: RUN (a home-search or trip-booking run directory) with every "
        "program that does not run or misuses a number its goal states asked for again, "
        "as --retries would have written it from the same greedy programs, and scored. "
        "Only flagged goals reach the engine.",
    )
    p.add_argument("--run", required=True, help="a finished app run directory")
    p.add_argument("--out", required=True, help="the retried run's directory")
    p.add_argument("--batch-size", type=int, default=4)
    from toollearn.models import APPS_ENGINE

    add_engine_args(p, default=APPS_ENGINE)
    _retry_args(p, default=8)
    p.set_defaults(func=retry_cmd)


def run(args: argparse.Namespace) -> int:
    """One app: one configuration, or all of them with a table."""
    from toollearn.evaluation.runners.apps import run_app, run_table

    apply_preset(args)
    engine = load_engine_from_args(args)
    if args.all_configs:
        if args.goals:
            raise ToollearnError("--all-configs runs the test goals; --goals takes one config")
        table = run_table(engine, args.out, (args.app,), limit=args.limit,
                          batch_size=args.batch_size, chat=args.chat,
                          grammar_order=args.grammar_order, check_bounds=args.check_bounds,
                          retries=args.retries, retry_temperature=args.retry_temperature,
                          retry_demos=args.retry_demos)  # fmt: skip
        print(table)
        return 0
    scores = run_app(args.app, args.config, engine, args.out, args.limit, args.batch_size,
                     chat=args.chat, grammar_order=args.grammar_order,
                     check_bounds=args.check_bounds, retries=args.retries,
                     retry_temperature=args.retry_temperature,
                     retry_demos=args.retry_demos, goals=args.goals)  # fmt: skip
    print(json.dumps(scores, indent=2))
    return 0


def run_table_cmd(args: argparse.Namespace) -> int:
    """Both apps, every configuration, the Markdown table."""
    from toollearn.apps.generator import CONFIGS
    from toollearn.evaluation.runners.apps import rescore_table, run_table

    if args.rescore is not None:
        print(rescore_table(args.out, args.rescore))
        return 0
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        raise ToollearnError(f"unknown config(s) {unknown}; use {', '.join(CONFIGS)}")
    apps = tuple(a.strip() for a in args.apps.split(",") if a.strip())
    table = run_table(
        load_engine_from_args(args),
        args.out,
        apps,
        configs,
        args.limit,
        args.batch_size,
        chat=args.chat,
        grammar_order=args.grammar_order,
        check_bounds=args.check_bounds,
        retries=args.retries,
        retry_temperature=args.retry_temperature,
        retry_demos=args.retry_demos,
    )
    print(table)
    return 0


def bounds_cmd(args: argparse.Namespace) -> int:
    """A finished run's programs with their bound calls checked, scored (no model)."""
    from toollearn.evaluation.runners.apps import check_run

    scores = check_run(args.run, args.out)
    print(json.dumps(scores, indent=2))
    return 0


def retry_cmd(args: argparse.Namespace) -> int:
    """A finished run's flagged programs asked for again, scored."""
    from toollearn.evaluation.runners.apps import retry_run

    engine = load_engine_from_args(args)
    scores = retry_run(args.run, args.out, engine, args.retries, args.retry_temperature,
                       args.batch_size, args.retry_demos)  # fmt: skip
    print(json.dumps(scores, indent=2))
    return 0
