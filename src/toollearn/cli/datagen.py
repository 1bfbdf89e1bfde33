"""`toollearn datagen seal|mixture|umi|umi-natural|deer|natural|apps|tools`: training data,
one command each; `datagen apps-dev|umi-dev`: dev sets held out of training; `datagen suite`:
the general suite that `eval calls` runs.

Each writes OUT/data.jsonl (TRL-ready: prompt/completion messages plus tools, and the loss
spans), OUT/stats.json (counts by kind, tokens per sample, rejections by reason) and
OUT/leakage.json (held-out test queries and tools found in the data: none, by default).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

KINDS = {
    "seal": "Seal-Tools instances (single, multi-tool, nested) with 5 candidates each",
    "mixture": "the general tool-calling mixture for any tools (your tool file)",
    "umi": "alpha-UMi trajectories: planner/caller/summarizer/single-LLM samples + a test set",
    "umi-natural": "alpha-UMi trajectories on ToolDEER's GPT-4 queries (single, multi, "
    "parallel; give-ups among far tools)",
    "deer": "DEER decision branches (Call/NoCall, 2:1:2 pools) and NoSearch samples",
    "natural": "ToolDEER's GPT-4 queries as single, multi and parallel call samples",
    "apps": "SambaNova alignment data for Home Search and Trip Booking",
    "general": "general tool-calling data at scale for every category of `eval calls` (natural "
    "ToolDEER requests, templates, small talk, chat with the base model's answers)",
}


def register(subparsers: Any) -> None:
    """Add `toollearn datagen ...`."""
    p = subparsers.add_parser("datagen", help="generate training data", description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    sub = p.add_subparsers(dest="datagen_kind", metavar="KIND")
    p.set_defaults(func=lambda _a: p.print_help() or 2)
    for kind, help_text in KINDS.items():
        k = sub.add_parser(kind, help=help_text, description=help_text)
        _common(k)
        _extra(kind, k)
        k.set_defaults(func=run, kind=kind)
    t = sub.add_parser("tools", help="self-instruct new tools for fields with a teacher engine")
    t.add_argument(
        "--fields",
        required=True,
        help='Seal-Tools field.jsonl: one {"Field": ["Sub-field", ...]} per line',
    )
    t.add_argument("--teacher", required=True, help="engine spec of the teacher")
    t.add_argument("--per-subfield", type=int, default=1)
    t.add_argument("--limit", type=int, default=None, help="first N fields only")
    t.add_argument("--out", required=True, help="output tool file (JSON lines, Seal-Tools)")
    t.add_argument("--data-root", default=None, help="existing tools to avoid duplicating")
    t.add_argument("--seed", type=int, default=0)
    t.set_defaults(func=run_tools)
    d = sub.add_parser(
        "apps-dev",
        help="a dev set of goals for an app, from templates its test set does not use",
        description="Write OUT/goals.jsonl (read by `toollearn eval home-search|trip-booking "
        "--goals`) and OUT/stats.json: PER goals from each 'dev' template of the app's spec "
        "(phrasings neither training nor the test set uses), none equal to a goal of the "
        "--trained data files, a demo goal or a test goal, nor a near copy of a test goal.",
    )
    d.add_argument("--app", choices=("home-search", "trip-booking"), required=True)
    d.add_argument("--per-template", type=int, default=6)
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--trained", nargs="*", default=[],
                   help="datagen apps data.jsonl files whose goals stay out")  # fmt: skip
    d.add_argument("--out", required=True, help="output folder")
    d.set_defaults(func=run_apps_dev)
    u = sub.add_parser(
        "umi-dev",
        help="a dev set of alpha-UMi trajectories that no training run drew",
        description="Write OUT/trajectories_dev.json (read by `toollearn eval stepwise --file`)"
        " and OUT/stats.json: N trajectories of a `datagen umi` training pool whose queries "
        "none of the --trained runs (train.json of each stage) drew, none a test query.",
    )
    u.add_argument("--trajectories", required=True,
                   help="the pool: a `datagen umi` OUT/trajectories_train.json")  # fmt: skip
    u.add_argument(
        "--trained",
        nargs="+",
        required=True,
        help="train.json of every training run (stage) whose draws stay out",
    )
    u.add_argument("--test", default=None, help="the test trajectories, checked for overlap")
    u.add_argument("-n", "--n", type=int, default=100, help="trajectories (default 100)")
    u.add_argument("--seed", type=int, default=1)
    u.add_argument("--out", required=True, help="output folder")
    u.set_defaults(func=run_umi_dev)
    s = sub.add_parser(
        "suite",
        help="the general tool-calling suite (`eval calls`) from the held-out splits",
        description="Write OUT/{tools.json,test.jsonl,dev.jsonl,quick.json,build.json}: the "
        "suite `toollearn eval calls` runs, built from ToolDEER and Seal-Tools test (test "
        "split) and validation (dev split) data and the hand-written items, every choice from "
        "--seed (the shipped suite: --seed 0, written to src/toollearn/evaluation/suite).",
    )
    s.add_argument("--data-root", default=None, help="the reference data ($TOOLLEARN_DATA)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--out", required=True, help="output folder")
    s.set_defaults(func=run_suite)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("-n", "--n", type=int, default=1000, help="instances to generate")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data-root", default=None,
                   help="the reference data (default $TOOLLEARN_DATA): its test sets are "
                   "kept out of the data")  # fmt: skip
    p.add_argument("--exclude-tools", default=None, help="file of tool names to keep out")
    p.add_argument("--exclude-queries", default=None, help="file of queries to keep out")
    p.add_argument("--no-tokens", action="store_true", help="skip counting tokens per sample")


def _extra(kind: str, p: argparse.ArgumentParser) -> None:
    if kind == "general":
        _general_args(p)
    if kind in ("seal", "mixture", "umi"):
        p.add_argument("--tools", default=None,
                       help="a tool file (any format; default the Seal-Tools pool)")  # fmt: skip
        p.add_argument("--pool", default=None, help="seal-tools | tooldeer (under the data root)")
    if kind == "seal":
        p.add_argument("--teacher", default=None, help="engine spec that writes the queries")
        p.add_argument("--teacher-cache", default=None, help="resumable cache of its queries")
        p.add_argument("--phrasing", choices=("plain", "varied"), default="plain",
                       help="template queries: plain (every value named by its parameter, "
                       "verbatim) or varied (shaped like the dev split: description phrases, "
                       "quotes, dates in words, sentence lists)")  # fmt: skip
        p.add_argument(
            "--multi-calls",
            default=None,
            metavar="N:W,...",
            help="weights of the number of calls of multi-tool and nested instances, "
            "e.g. 2:2,3:79,4:17,5:2 (default: 2-5 related tools, 2-3 nested calls)",
        )
        p.add_argument(
            "--cross-field",
            type=float,
            default=0.0,
            metavar="SHARE",
            help="with --multi-calls: the share of multi-tool lists whose tools each "
            "come from a different field (the rest: related tools)",
        )
    if kind == "mixture":
        p.add_argument("--mask", type=float, default=0.2, help="share of masked copies")
        p.add_argument("--docs", choices=("json", "compact"), default="json",
                       help="how prompts list the tools (compact: fewer tokens)")  # fmt: skip
    if kind == "umi":
        p.add_argument("--test-steps", type=int, default=300,
                       help="planner steps of the held-out trajectory test set")  # fmt: skip
        p.add_argument("--plan-style", choices=("plain", "counted"), default="plain",
                       help="planner rationales: plain (alpha-UMi's) or counted ('Step 2 of "
                       "3: ...', 'All 3 steps are done; ...'), train and test alike")  # fmt: skip
        p.add_argument("--candidates", choices=("fixed", "varied"), default="fixed",
                       help="tools a training task shows: fixed (5: the gold tools and "
                       "retrieved distractors; a give-up drops its missing tool, so 4) or "
                       "varied (2-8 on every task, give-ups too); test set: fixed")  # fmt: skip
        p.add_argument("--formats", default=None,
                       help="sample formats written, comma-separated: umi-planner, "
                       "umi-caller, umi-summarizer, umi-single (the default: all four), "
                       "umi-tool-calls (the trajectories in the general call format, one "
                       "sample per model turn, results fed back)")  # fmt: skip
        p.add_argument(
            "--exclude-trajectories",
            default=None,
            metavar="FILE",
            help="leave out the training trajectories whose query is one of this "
            "trajectory file's (a dev set: `datagen umi-dev`'s trajectories_dev.json)",
        )
    if kind == "umi-natural":
        p.add_argument("--give-up", type=float, default=0.1, metavar="SHARE",
                       help="share of give-up tasks (tools of other clusters only)")  # fmt: skip
        p.add_argument("--formats", default="umi-tool-calls",
                       help="sample formats written, comma-separated (as `datagen umi`; "
                       "default umi-tool-calls)")  # fmt: skip
        p.add_argument("--mix", default=None, type=kind_mix, metavar="KIND:W,...",
                       help="weights of the task kinds single, multi, parallel (default "
                       "single:0.5,multi:0.3,parallel:0.2)")  # fmt: skip
        p.add_argument("--distractors", choices=("random", "close"), default="random",
                       help="an answerable task's other tools: random, or close (from the "
                       "gold tools' clusters first)")  # fmt: skip
    if kind == "deer":
        p.add_argument("--nosearch", type=int, default=1000, help="NoSearch queries")
        p.add_argument("--answer-engine", default="llama",
                       help="engine writing the NoSearch answers (the base model); none: "
                       "no answer samples, only the decisions (data to fit gates on)")  # fmt: skip
        p.add_argument("--general", choices=("plain", "evol"), default="plain",
                       help="NoSearch query style: plain templates, or Evol-Instruct-style "
                       "(more task families, 0-2 in-depth operators each)")  # fmt: skip
        p.add_argument("--answers-cache", default=None, help="resumable cache of the answers")
        p.add_argument("--pool-mix", default="2:1:2", type=pool_mix, metavar="R:I:X",
                       help="weights of random, intra-cluster and inter-cluster candidate "
                       "pools (default the paper's 2:1:2; 1:0:0 is random only)")  # fmt: skip
    if kind == "natural":
        p.add_argument("--none", type=int, default=0,
                       help="decline samples: example queries among 5 tools that are not "
                       "theirs, answered [] (general format; 0, the default, makes the data "
                       "tools-135m v1 was trained on)")  # fmt: skip
    if kind == "apps":
        p.add_argument("--app", choices=("home-search", "trip-booking"), required=True)
        p.add_argument("--allshot", type=float, default=0.5,
                       help="share of all-shot samples (several goal/program pairs)")  # fmt: skip
        p.add_argument("--pairs", default="2,4", help="pairs per all-shot sample, MIN,MAX")


def _general_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mix",
        type=kind_mix,
        default=None,
        metavar="KIND:W,...",
        help="shares of the kinds (default: datagen.general.DEFAULT_MIX)",
    )
    p.add_argument(
        "--answers-engine",
        default="base",
        help="the engine whose own answers are the chat kind's targets (default: "
        "base, the embedded model as released; none: only the answers cached)",
    )
    p.add_argument(
        "--answers-cache",
        default=None,
        help="resumable JSONL of those answers (default OUT/chat-answers.jsonl)",
    )
    p.add_argument("--suite", default=None, help="the general suite held out (default: shipped)")
    p.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="openly licensed conversations to add (datagen.general_import: "
        "glaive=FILE, a glaive-function-calling-v2 ShareGPT file; toolrl=FILE, "
        "ToolRL's rlla_sft.json); repeatable",
    )
    p.add_argument(
        "--docs",
        choices=("json", "compact"),
        default="json",
        help="how prompts list the tools (as the model will be served)",
    )


def kind_mix(text: str) -> dict[str, float]:
    """{"single": W, ...} from "single:0.6,multi:0.4"."""
    out = {}
    for part in text.split(","):
        kind, _, weight = part.partition(":")
        try:
            out[kind.strip()] = float(weight)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not KIND:WEIGHT,...") from None
    return out


def pool_mix(text: str) -> dict[str, float]:
    """{"random": R, "intra": I, "inter": X} from "R:I:X" (modes weighted 0 left out)."""
    from toollearn.retrieval.candidates import DEER_MODES

    parts = text.split(":")
    try:
        weights = [float(w) for w in parts]
    except ValueError:
        weights = []
    if len(weights) != 3 or min(weights) < 0 or sum(weights) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not R:I:X, three weights >= 0, not all 0")
    return {m: w for m, w in zip(DEER_MODES, weights, strict=True) if w}


def seal_shape(args: argparse.Namespace) -> Any:
    """The SealShape of --multi-calls / --cross-field (None without --multi-calls)."""
    from toollearn.datagen.seal import SealShape, parse_calls

    if args.multi_calls is None:
        if args.cross_field:
            raise SystemExit("error: --cross-field needs --multi-calls")
        return None
    try:
        return SealShape(parse_calls(args.multi_calls), args.cross_field)
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from None


def run_apps_dev(args: argparse.Namespace) -> int:
    """An app's dev goals with their stats (rejections, training files, test overlap)."""
    import hashlib
    import json
    from collections import Counter
    from pathlib import Path

    from toollearn.apps.datasets import load_tests
    from toollearn.datagen.apps import dev_goals, training_goals
    from toollearn.datagen.leakage import QueryIndex

    trained = [g for path in args.trained for g in training_goals(path)]
    gen = dev_goals(args.app, per_template=args.per_template, seed=args.seed, trained=trained)
    records = gen.config.pop("records")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    (out / "goals.jsonl").write_text(lines, encoding="utf-8")
    tests = QueryIndex([t.query for t in load_tests(args.app)])
    kept = set(trained)
    stats = {
        "goals": len(records),
        "by_source": dict(Counter(r["source"] for r in records)),
        "templates": len({r["template"] for r in records}),
        "rejected": dict(sorted(gen.rejections.items())),
        "leakage": {  # checked again on the written goals
            "test_goals_exact_or_near": sum(bool(tests.match(r["goal"])) for r in records),
            "training_goals": sum(r["goal"] in kept for r in records),
        },
        "trained_files": {
            p: hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in args.trained
        },
        "goals_sha256": hashlib.sha256(lines.encode()).hexdigest(),
        "config": gen.config,
    }
    (out / "stats.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: stats[k] for k in ("goals", "by_source", "rejected", "leakage")}))
    return 0


def run_umi_dev(args: argparse.Namespace) -> int:
    """A held-out alpha-UMi dev set with its stats (left out, overlap with the test)."""
    import hashlib
    import json
    from pathlib import Path

    from toollearn.data.trajectories import read_trajectories, write_trajectories
    from toollearn.datagen.umi import dev_trajectories
    from toollearn.evaluation.calibration import trained_queries

    trained: set[str] = set()
    for run_json in args.trained:
        trained |= trained_queries(run_json)
    test = {t.instruction for t in read_trajectories(args.test)} if args.test else set()
    picked, counts = dev_trajectories(read_trajectories(args.trajectories), trained | test,
                                      args.n, args.seed)  # fmt: skip
    out = Path(args.out)
    path = write_trajectories(picked, out / "trajectories_dev.json")
    stats = {
        **counts, "seed": args.seed, "trained_queries": len(trained),
        "leakage": {  # checked again on the written set
            "trained_queries": sum(t.instruction in trained for t in picked),
            "test_queries": sum(t.instruction in test for t in picked),
        },
        "pool": {"path": args.trajectories,
                 "sha256": hashlib.sha256(Path(args.trajectories).read_bytes()).hexdigest()},
        "trained_runs": args.trained, "test": args.test,
        "dev_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }  # fmt: skip
    (out / "stats.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: stats[k] for k in ("picked", "steps", "left_out", "leakage")}))
    return 0


def run_suite(args: argparse.Namespace) -> int:
    """Build the general suite and print its counts."""
    from toollearn.core.errors import DataError
    from toollearn.datagen import jobs
    from toollearn.evaluation.calls_build import build_suite, write_suite

    root = jobs.data_root(args.data_root)
    if root is None:
        raise DataError("datagen suite reads ToolDEER and Seal-Tools: give --data-root")
    built = build_suite(root, args.seed)
    write_suite(built, args.out)
    for split in ("test", "dev"):
        counts = built["build"]["counts"][split]
        total = sum(sum(k.values()) for k in counts.values())
        print(f"{split}: {total} items; " + ", ".join(f"{c} {sum(k.values())}"
                                                    for c, k in counts.items()))  # fmt: skip
    print(f"wrote {args.out}/tools.json, test.jsonl, dev.jsonl, quick.json, build.json")
    return 0


def run(args: argparse.Namespace) -> int:
    """Generate, check against the exclusions, write; print the stats."""
    from toollearn.datagen import jobs

    root = jobs.data_root(args.data_root)
    ex = jobs.exclusions_for(root, args.exclude_tools, args.exclude_queries)
    if args.kind == "apps":  # the app's own test goals stay out too
        from toollearn.datagen.apps import app_exclusions

        ex = ex.merge(app_exclusions(args.app))
    if args.kind == "general":  # the general suite and other benchmarks' requests stay out too
        from toollearn.datagen.general import benchmark_exclusions
        from toollearn.evaluation.calls_suite import held_out

        ex = ex.merge(held_out(args.suite)).merge(benchmark_exclusions())
    if root is None:
        print("note: no data root: only the --exclude lists are kept out", file=sys.stderr)
    gen, seconds = jobs.timed(_generate, args, root, ex)
    gen.config["seconds"] = seconds
    stats = jobs.write_job(args.out, gen, ex, tokens=not args.no_tokens)
    _print_stats(stats, args.out)
    return 0


def _generate(args: argparse.Namespace, root: str | None, ex: Any) -> Any:
    from toollearn.datagen import jobs

    if args.kind in ("seal", "mixture", "umi"):
        tools, source = jobs.tool_pool(args.tools, args.pool, root)
    if args.kind == "seal":
        from toollearn.datagen.seal import generate_seal

        writer = None
        if args.phrasing == "varied" and args.teacher:
            raise SystemExit("error: --phrasing is for the templates; a --teacher writes its own")
        if args.phrasing == "varied":
            from toollearn.datagen.phrasing_varied import write_query_varied

            writer = write_query_varied
        if args.teacher:
            from toollearn.cli.common import load_engine_spec
            from toollearn.datagen.teacher import TeacherQueryWriter

            writer = TeacherQueryWriter(load_engine_spec(args.teacher), args.teacher_cache)
        return generate_seal(
            tools, args.n, seed=args.seed, exclusions=ex, writer=writer, shape=seal_shape(args)
        )
    if args.kind == "mixture":
        from toollearn.datagen.mixture import generate_mixture

        return generate_mixture(tools, args.n, seed=args.seed, p_mask=args.mask, exclusions=ex,
                                source=source, docs=args.docs)  # fmt: skip
    if args.kind == "umi":
        formats = [f.strip() for f in args.formats.split(",")] if args.formats else None
        return jobs.run_umi(tools, args.n, args.test_steps, args.seed, ex, args.out,
                            args.plan_style, formats, args.exclude_trajectories,
                            args.candidates)  # fmt: skip
    return _generate_other(args, root, ex)


def _generate_other(args: argparse.Namespace, root: str | None, ex: Any) -> Any:
    from toollearn.core.errors import DataError

    if args.kind in ("deer", "natural", "umi-natural", "general") and root is None:
        raise DataError(f"datagen {args.kind} reads ToolDEER: give --data-root")
    if args.kind == "deer":
        from toollearn.cli.common import load_engine_spec
        from toollearn.datagen.deer import generate_deer

        answer = args.nosearch and args.answer_engine != "none"
        engine = load_engine_spec(args.answer_engine) if answer else None
        return generate_deer(root, seed=args.seed, n_nosearch=args.nosearch,
                             answer_engine=engine, answers_cache=args.answers_cache,
                             exclusions=ex, mix=args.pool_mix, general=args.general,
                             answers=bool(answer))  # fmt: skip
    if args.kind == "umi-natural":
        from toollearn.datagen import jobs

        formats = [f.strip() for f in args.formats.split(",")]
        return jobs.run_umi_natural(root, args.n, args.seed, ex, args.out, args.give_up, formats,
                                    args.mix, args.distractors)  # fmt: skip
    if args.kind == "general":
        from toollearn.cli.common import load_engine_spec
        from toollearn.datagen.jobs import run_general

        spec = None if args.answers_engine == "none" else args.answers_engine
        engine = (lambda: load_engine_spec(spec, 1)) if spec else None
        return run_general(args, root, ex, engine)
    if args.kind == "natural":
        from toollearn.datagen.natural import generate_natural

        return generate_natural(root, seed=args.seed, n_none=args.none, exclusions=ex)
    from toollearn.datagen.apps import generate_apps

    lo, _, hi = args.pairs.partition(",")
    return generate_apps(args.app, n=args.n, seed=args.seed, allshot=args.allshot,
                         k_per_sample=(int(lo), int(hi or lo)))  # fmt: skip


def _print_stats(stats: dict[str, Any], out: str) -> None:
    from toollearn.evaluation.report import format_table

    rows = [{"kind": k, "samples": v, **{f"tokens {q}": stats.get("tokens_by_kind", {})
                                          .get(k, {}).get(q, "-") for q in ("mean", "p95")}}
            for k, v in stats["by_kind"].items()]  # fmt: skip
    print(format_table(rows, ["kind", "samples", "tokens mean", "tokens p95"], ".1f"))
    print(f"\n{stats['n']} samples in {stats['config'].get('seconds', '?')} s; rejected: "
          f"{stats['rejected'] or 'none'}")  # fmt: skip
    print(f"wrote {out}/data.jsonl, stats.json, leakage.json")


def run_tools(args: argparse.Namespace) -> int:
    """Self-instruct tools for the fields of a field.jsonl, checked; write them."""
    import json
    from pathlib import Path

    from toollearn.cli.common import load_engine_spec
    from toollearn.datagen.teacher import self_instruct_tools
    from toollearn.formats.schemas.seal_tools import tool_to_seal

    fields: dict[str, list[str]] = {}
    for line in Path(args.fields).read_text(encoding="utf-8").splitlines():
        if line.strip():
            for name, subs in json.loads(line).items():
                fields[name] = [str(s) for s in subs]
    if args.limit:
        fields = dict(list(fields.items())[: args.limit])
    existing = []
    if args.data_root:
        from toollearn.data.registry import load_tool_pool

        existing = load_tool_pool("seal-tools", args.data_root)
    tools, rejected = self_instruct_tools(load_engine_spec(args.teacher), fields,
                                          per_subfield=args.per_subfield, existing=existing,
                                          seed=args.seed)  # fmt: skip
    with Path(args.out).open("w", encoding="utf-8") as fh:
        for t in tools:
            fh.write(json.dumps(tool_to_seal(t), ensure_ascii=False) + "\n")
    print(f"wrote {len(tools)} tools to {args.out}; rejected: {dict(rejected) or 'none'}")
    return 0
