"""`toollearn eval seal-filter`: a Seal-Tools run's answers, post-processed and scored."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register_eval(eval_sub: Any) -> None:
    """Add `toollearn eval seal-filter`."""
    p = eval_sub.add_parser(
        "seal-filter",
        help="a Seal-Tools run's answers without the calls to tools no clause of the query asks "
        "for (a MiniLM's second opinion), without arguments copied from another tool's clause "
        "and/or with ISO dates, scored",
        description="Post-process a finished `eval seal-tools` run's answers: --margin drops a "
        "call whose tool is more than MARGIN of cosine behind the closest candidate of every "
        "clause of the query (toollearn.agents.tool_filter); --foreign-values drops an argument "
        "the query states only in other tools' clauses (toollearn.agents.foreign_values); "
        "--whole-words drops a copied string that cuts a word of the query "
        "(toollearn.agents.word_spans); --refill asks the run's model again, on each call's own "
        "clauses, for the required arguments those two dropped (toollearn.agents.refill_values); "
        "--iso-dates writes dates copied in words as YYYY-MM-DD (toollearn.agents.date_values), "
        "in that order. Writes a new run directory "
        "(config, post-processed and generated answers, scores); only --refill loads the engine.",
    )
    p.add_argument("--run", required=True, help="a finished `toollearn eval seal-tools` run")
    p.add_argument("--out", required=True, help="the filtered run's directory (rebuilt whole)")
    p.add_argument(
        "--margin",
        type=float,
        default=None,
        help="the tool filter: keep a call whose tool is at most this far (cosine) behind a "
        "clause's closest candidate (results/seal-filter-dev/choice.json: chosen on dev)",
    )
    p.add_argument(
        "--model",
        default=None,
        help="a fine-tuned MiniLM (`retrieve train`'s OUT/model or a --lora adapter folder) "
        "instead of the embedded one",
    )
    p.add_argument(
        "--foreign-values",
        choices=("optional", "all"),
        default=None,
        help="drop an argument (of an optional parameter, or of any) whose value the query "
        "states in another tool's clause and not in the call's own (clauses as the filter's)",
    )
    p.add_argument(
        "--whole-words",
        action="store_true",
        help="drop a string argument copied from the query that starts or ends inside a word "
        "('B' for Beijing; a plural ending aside)",
    )
    p.add_argument(
        "--refill",
        metavar="ENGINE",
        default=None,
        help="ask this engine (the run's own model: base, tuned, a GGUF, ...; another one is "
        "refused) again for the required arguments --foreign-values / --whole-words dropped, "
        "with only the call's tool and its own clauses",
    )
    p.add_argument(
        "--refill-scope",
        choices=("dropped", "required"),
        default="dropped",
        help="with --refill: ask for the dropped required arguments only (default), or for all "
        "required arguments of every call of a multi-call answer, a stated answer replacing the "
        "call's value (dev scores: results/seal-filter-dev/compare-refill.md)",
    )
    p.add_argument(
        "--generic-values",
        action="store_true",
        help="drop a string argument that only repeats its parameter's name (building_id = "
        "'building'), or in a later call put the previous call's first response there",
    )
    p.add_argument(
        "--missing-calls",
        metavar="ENGINE",
        default=None,
        help="ask this engine (the run's own model, as --refill) for a call to each candidate "
        "that some clause of the query points at first and no call uses, with only that tool "
        "and its own clauses; RUN may be a filtered run without this step",
    )
    p.add_argument(
        "--threads", type=int, default=1, help="llama.cpp threads for --refill (default 1)"
    )
    p.add_argument(
        "--iso-dates",
        action="store_true",
        help="write an argument that is exactly a date in words with a year (November 25, "
        "2013) as YYYY-MM-DD, unless the parameter's description spells dates in words",
    )
    p.add_argument(
        "--shard",
        default=None,
        metavar="K/N",
        help="post-process only shard K of N of the answers (every N-th from the K-th), in its "
        "own --out; join the shards with `toollearn runs merge` and rerun without --shard to "
        "score the whole (an --out holding some answers with the same settings is resumed)",
    )
    p.add_argument(
        "--data-root", default=None, help="folder holding seal-tools/ (default $TOOLLEARN_DATA)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Filter, score, print the table."""
    from toollearn.agents.tool_filter import ToolFilter
    from toollearn.cli.eval_seal import summary_table
    from toollearn.evaluation.runners.base import parse_shard, read_records
    from toollearn.evaluation.runners.seal_filter import filter_run, filter_stats, source_config
    from toollearn.evaluation.runners.seal_tools import run_examples, score_records

    if not (args.margin is not None or args.iso_dates or args.foreign_values or args.whole_words
            or args.generic_values or args.missing_calls):  # fmt: skip
        raise SystemExit("error: give --margin (the tool filter), --foreign-values, "
                         "--whole-words, --generic-values, --missing-calls, "
                         "--iso-dates")  # fmt: skip
    if args.refill and not (args.foreign_values or args.whole_words):
        raise SystemExit("error: --refill asks again for what --foreign-values or "
                         "--whole-words dropped: give one of them")  # fmt: skip
    src = Path(args.run)
    config = source_config(src, ())  # filter_run refuses a step the run had already
    records = read_records(src / "predictions.jsonl")
    examples = run_examples(config, records, args.data_root)
    needs_clauses = (args.margin is not None or args.foreign_values or args.refill
                     or args.missing_calls)  # fmt: skip
    tool_filter = ToolFilter(args.margin, args.model) if needs_clauses else None
    from toollearn.cli.common import load_engine_spec

    specs = {s for s in (args.refill, args.missing_calls) if s}  # one engine for one spec
    engines = {s: load_engine_spec(s, threads=args.threads) for s in specs}
    writer, records = filter_run(src, args.out, examples, tool_filter, args.iso_dates,
                                 args.foreign_values, whole_words=args.whole_words,
                                 refill=engines.get(args.refill), refill_scope=args.refill_scope,
                                 generic=args.generic_values,
                                 missing=engines.get(args.missing_calls),
                                 shard=parse_shard(args.shard))  # fmt: skip
    scores = score_records(records, examples)
    stats = filter_stats(records)
    path = writer.write_scores(scores, {"tool_filter": stats})
    print(summary_table(scores))
    print(f"\nfiltered: {stats['calls_dropped']} calls dropped, {stats['values_dropped']} "
          f"foreign values dropped, {stats['values_cut']} cut words dropped, "
          f"{stats['values_refilled']} values refilled, {stats['values_generic']} generic "
          f"values taken, {stats['calls_added']} calls added, {stats['dates_rewritten']} dates "
          f"rewritten; "
          f"{stats['answers_changed']} of {stats['answers']} answers changed\n"
          f"scores: {path}", file=sys.stderr)  # fmt: skip
    return 0
