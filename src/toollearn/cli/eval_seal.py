"""`toollearn eval seal-tools`: the paper's Seal-Tools test protocol on any engine."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from toollearn.cli.common import (
    add_data_args,
    add_engine_args,
    add_run_args,
    engine_options,
    is_llama,
    llama_flags,
)
from toollearn.models import SEAL_ENGINE


def register_eval(eval_sub: Any) -> None:
    """Add `toollearn eval seal-tools`."""
    from toollearn.evaluation.runners.seal_tools import CANDIDATES, SPLIT_CHOICES

    p = eval_sub.add_parser(
        "seal-tools",
        help="Seal-Tools with the paper's 5-candidate prompts (official + strict scores)",
        description="Run the paper's Seal-Tools evaluation prompts through an engine, "
        "append predictions to OUT/predictions.jsonl (resumable) and write OUT/scores.json.",
    )
    p.add_argument(
        "--split",
        choices=SPLIT_CHOICES,
        default="test_in_domain",
        help="all = test_in_domain + test_out_domain (1,354 queries)",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--constrained",
        dest="constrained",
        action="store_true",
        default=True,
        help="grammar-constrained call lists over the candidates (default)",
    )
    mode.add_argument(
        "--free", dest="constrained", action="store_false", help="unconstrained generation"
    )
    p.add_argument(
        "--allow-empty",
        action="store_true",
        help="let the constraint admit [] (no call); the official scorer counts "
        "[] as a format failure, and every Seal-Tools query needs calls",
    )
    add_data_args(p, "seal-tools/")
    add_engine_args(p, default=SEAL_ENGINE)  # Seal-Tools' own adapter
    add_run_args(p, out_required=False)
    p.add_argument(
        "--modes",
        default=None,
        help="comma list of free,constrained: generate every mode from one evaluation of each "
        "prompt, writing OUT_ROOT/<mode> (each a normal, resumable run directory)",
    )
    p.add_argument("--out-root", default=None, help="parent of the per-mode run directories")
    p.add_argument(
        "--candidates",
        default="paper",
        metavar="{" + ",".join(CANDIDATES) + "}[:MODEL_DIR]",
        help="paper = the dataset's 5-candidate prompts; bm25|dense|hybrid = our retriever's "
        "top 5 tools from the full 4,076-tool pool (gold tools it missed are recorded); "
        "dense:DIR / hybrid:DIR use a fine-tuned MiniLM (`toollearn retrieve train`'s "
        "OUT/model) instead of the embedded one",
    )
    p.add_argument("--max-tokens", type=int, default=320)
    p.add_argument(
        "--no-retry",
        action="store_true",
        help="keep constrained answers cut off by --max-tokens as they are (default: generate "
        "them again with calls and strings capped, so every answer completes; the run config "
        "records the policy and scores.json counts the retried answers)",
    )
    p.add_argument(
        "--distinct-tools",
        action="store_true",
        help="constrained call lists call each candidate tool at most once (no Seal-Tools dev "
        "answer repeats a tool; the run config records it)",
    )
    p.add_argument(
        "--copy-strings",
        action="store_true",
        help="constrained string-typed values are spans of the query (or nested references); "
        "the run config records it",
    )
    p.add_argument(
        "--stated-optional",
        action="store_true",
        help="with --copy-strings: an optional parameter is written only with a value the query "
        "states (a span, or a number it writes); no optional booleans, lists or references",
    )
    p.add_argument(
        "--prune-candidates",
        type=float,
        default=None,
        metavar="MARGIN",
        help="offer only the candidates the tool filter keeps: those at most MARGIN (cosine) "
        "behind the closest candidate of some clause of the query (embedded MiniLM; gold tools "
        "pruned are recorded as missed); `eval seal-filter` applies the filter after generation",
    )
    p.add_argument("--stop", action="append", default=[], help="stop string (repeatable)")
    p.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="examples per engine call (default: 16 for llama, whose engine decodes "
        "--n-seq sequences at a time; 8 for hf/openai)",
    )
    p.add_argument(
        "--n-seq",
        type=int,
        default=None,
        help="llama.cpp sequences decoded together (default 16; 1 = one at a time)",
    )
    p.add_argument(
        "--score-only",
        action="store_true",
        help="score the finished records as they are, loading no model and predicting "
        "nothing (a run in progress, or a `runs merge` snapshot of its shards)",
    )
    p.set_defaults(func=run)


def run_dirs(args: argparse.Namespace) -> list[tuple[Path, bool]]:
    """(run directory, constrained) for each mode to run."""
    if args.modes is None:
        if not args.out:
            raise SystemExit("error: give --out DIR (or --modes ... --out-root DIR)")
        return [(Path(args.out), args.constrained)]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in ("free", "constrained")]
    if bad or not modes or len(set(modes)) != len(modes):
        raise SystemExit(f"error: --modes takes free and/or constrained, got {args.modes!r}")
    if not args.out_root:
        raise SystemExit("error: --modes needs --out-root DIR")
    return [(Path(args.out_root) / m, m == "constrained") for m in modes]


def run(args: argparse.Namespace) -> int:
    """Load data and engine, predict what is missing, score, print the table(s)."""
    from toollearn.engines import load_engine
    from toollearn.evaluation.runners.base import RunWriter, parse_shard, take_shard, with_shard
    from toollearn.evaluation.runners.seal_tools import (
        SealRunOptions,
        candidate_encoder,
        load_prompts,
        options_config,
        prune_candidates,
        retrieve_candidates,
        run_seal_modes,
        score_records,
    )

    if args.stated_optional and not args.copy_strings:
        raise SystemExit("error: --stated-optional needs --copy-strings")
    dirs = run_dirs(args)
    examples = load_prompts(args.split, args.data_root, sample=args.sample)
    if args.limit is not None:
        examples = examples[: args.limit]
    shard = parse_shard(args.shard)
    examples = take_shard(examples, shard)
    encoder = candidate_encoder(args.candidates)  # checks the spec before any work
    examples = retrieve_candidates(
        examples, args.candidates, args.data_root, sample=args.sample, encoder=encoder
    )
    prune = None
    if args.prune_candidates is not None:
        from toollearn.agents.tool_filter import ToolFilter

        prune = ToolFilter(args.prune_candidates)
        examples = prune_candidates(examples, prune)
    if args.score_only:
        empty = [str(out) for out, _ in dirs if not (out / "predictions.jsonl").is_file()]
        if empty:
            raise SystemExit(f"error: nothing to score in {', '.join(empty)}")
    runs = []
    for out, constrained in dirs:
        opts = SealRunOptions(
            constrained=constrained,
            allow_empty=args.allow_empty,
            max_tokens=args.max_tokens,
            stop=tuple(args.stop),
            batch_size=args.batch_size or (16 if is_llama(args.engine) else 8),
            seed=args.seed,
            candidates=args.candidates,
            retriever_model=encoder.model_id if encoder is not None else None,
            retry=not args.no_retry,
            distinct_tools=args.distinct_tools and constrained,
            copy_strings=args.copy_strings and constrained,
            stated_optional=args.stated_optional and constrained,
            prune_margin=args.prune_candidates,
        )
        config = {
            "benchmark": "seal-tools",
            "split": args.split,
            "sample": args.sample,
            "limit": args.limit,
            "engine": args.engine,
            **options_config(opts),
        }
        if prune is not None:
            config["prune_encoder"] = prune.encoder.model_id
        runs.append((RunWriter(out, with_shard(config, shard), not args.score_only), opts))
    t0 = time.perf_counter()
    if args.score_only:
        wanted = {ex.id for ex in examples}
        all_records = [[r for r in w.records() if r["id"] in wanted] for w, _ in runs]
    else:
        llama_opts = engine_options(
            args.engine, args.threads, n_seq=args.n_seq or 16, **llama_flags(args)
        )
        engine = load_engine(args.engine, **llama_opts)
        for writer, _ in runs:
            writer.record_engine(engine)
        all_records = run_seal_modes(engine, examples, runs)
    wall = round(time.perf_counter() - t0, 1)
    for (writer, _), records in zip(runs, all_records):
        scores = score_records(records, examples)
        extra = {"modes_together": len(runs)}
        if args.score_only:
            print(f"score-only: {len(records)} of {len(examples)} examples", file=sys.stderr)
        else:
            extra["wall_seconds_predict"] = wall
        path = writer.write_scores(scores, extra)
        if len(runs) > 1:
            print(f"\n== {writer.out_dir} ==")
        print(summary_table(scores))
        print(f"\nscores: {path}", file=sys.stderr)
    return 0


COLUMNS = [
    "scorer",
    "group",
    "n",
    "format",
    "tool_p",
    "tool_r",
    "tool_f1",
    "param_p",
    "param_r",
    "param_f1",
    "exact",
]


def summary_table(scores: dict[str, Any]) -> str:
    """Official and strict rows (percentages) for every group present."""
    from toollearn.evaluation.report import format_table

    rows = []
    for scorer in ("official", "strict"):
        for group, s in scores[scorer].items():
            rows.append(_row(scorer, group, s))
    for key, s in scores.items():
        if key.startswith(("official_", "strict_")) and isinstance(s, dict) and "n" in s:
            scorer, _, split = key.partition("_")
            rows.append(_row(scorer, split, s))
    table = format_table(rows, COLUMNS)
    hall = scores["hallucinated_tools"]
    run = scores["run"]
    return (
        f"{table}\nhallucinated tool names: official {hall['official']}, strict "
        f"{hall['strict']}; truncated {run['truncated']}, engine errors "
        f"{run['engine_errors']}; {run['completion_tokens']} tokens in "
        f"{run['generation_seconds']} s ({run['decode_tokens_per_s']} tok/s incl. prompt)"
    )


def _row(scorer: str, group: str, s: dict[str, Any]) -> dict[str, Any]:
    pct = lambda x: round(100 * x, 2)  # noqa: E731
    row = {
        "scorer": scorer,
        "group": group,
        "n": s["n"],
        "format": pct(s["format_acc"]),
        "tool_p": pct(s["tool_p"]),
        "tool_r": pct(s["tool_r"]),
        "tool_f1": pct(s["tool_f1"]),
        "param_p": pct(s["param_p"]),
        "param_r": pct(s["param_r"]),
        "param_f1": pct(s["param_f1"]),
    }
    if "exact_acc" in s:
        row["exact"] = pct(s["exact_acc"])
    return row
