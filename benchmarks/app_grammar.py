"""What each app program grammar costs at decode time, against the any-order grammar.

The typed Trip Booking grammar (`apps.grammar`, `order="typed"`) has about 870 rules against
the any-order grammar's 30: one state per (required setters called, optional calls made) and
booking type. This script runs the same Trip Booking test goals through the same engine with
the app-order, any-order and typed grammars, interleaved, `--rounds` times, one goal per
request (no batching, llama.cpp's prompt cache reset before each, so every request reads its
whole prompt), and reports per grammar the median seconds per program, the completion tokens
per second of whole request (prompt included), the programs that run, and the programs whose
text equals the any-order one's. Baseline: the any-order grammar, in the same process.

    python benchmarks/app_grammar.py --goals 12 --rounds 2 --threads 2 \
        --engine tuned:runs/train/apps-135m-v3/adapter.gguf
Writes benchmarks/results/app_grammar.json and app_grammar.md.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from _results import RESULTS, write_results

from toollearn.apps import TripBookingApp
from toollearn.apps.datasets import load_demos, load_tests
from toollearn.apps.generator import ActionGenerator
from toollearn.apps.grammar import ORDERS, program_grammar
from toollearn.apps.scoring import score_program
from toollearn.cli.common import load_engine_spec
from toollearn.evaluation.runners.apps import app_config

BASELINE = "any"


def reset_cache(engine) -> None:
    """Forget llama.cpp's cached prompt, so the grammar run first on a goal pays no more."""
    for llm in (getattr(engine, "llm", None), getattr(engine, "reader", None)):
        if llm is not None:
            getattr(llm, "llm", llm).reset()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default="tuned", help="engine spec (default: the shipped one)")
    ap.add_argument("--goals", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()

    engine = load_engine_spec(args.engine, args.threads)
    tests = load_tests("trip-booking")[: args.goals]
    demos = load_demos("trip-booking")
    gens = {
        order: ActionGenerator(
            TripBookingApp, engine, demos, app_config("trip-booking", "constrained", False, order)
        )
        for order in ORDERS
    }
    seconds: dict[str, list[float]] = {o: [] for o in ORDERS}
    tokens: dict[str, list[int]] = {o: [] for o in ORDERS}
    texts: dict[str, dict[str, str]] = {o: {} for o in ORDERS}
    for _ in range(args.rounds):
        for ex in tests:
            for order, gen in gens.items():
                reset_cache(engine)
                start = time.perf_counter()
                (g,) = gen.generate([ex.query])
                seconds[order].append(time.perf_counter() - start)
                tokens[order].append(g.completion.completion_tokens)
                texts[order][ex.id] = g.text
    labels = {ex.id: ex.metadata["program"] for ex in tests}
    rows, result = [], {"engine": args.engine, "goals": len(tests), "rounds": args.rounds}
    base_s = statistics.median(seconds[BASELINE])
    for order in ORDERS:
        med = statistics.median(seconds[order])
        runs = sum(
            score_program(texts[order][i], [labels[i]], TripBookingApp)["executable"]
            for i in labels
        )
        same = sum(texts[order][i] == texts[BASELINE][i] for i in labels)
        rate = sum(tokens[order]) / sum(seconds[order])
        rules = program_grammar(TripBookingApp, order).count("::=")
        result[order] = {
            "rules": rules,
            "median_s": round(med, 3),
            "tokens_per_s": round(rate, 1),
            "executable": runs,
            "same_text_as_any": same,
        }
        rows.append(
            f"| {order} | {rules} | {med:.2f} | {med / base_s:.2f} | {rate:.1f} | "
            f"{runs}/{len(labels)} | {same}/{len(labels)} |"
        )
    head = (
        f"Trip Booking, {len(tests)} test goals x {args.rounds} rounds, one goal per request, "
        f"engine `{args.engine}`, {args.threads} threads, {platform.processor() or 'cpu'}\n\n"
        "| grammar | rules | median s / program | vs any | tokens out / request s | programs that "
        "run | same text as any |\n|---|---:|---:|---:|---:|---:|---:|\n"
    )
    write_results(args.out, "app_grammar", result, head + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
