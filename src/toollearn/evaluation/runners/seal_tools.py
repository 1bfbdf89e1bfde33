"""Seal-Tools runner: the paper's 5-candidate prompts through an engine, scored two ways.

Each example's prompt (the dataset's own human turn, else `render_prompt`) is sent as a user
message through the model's chat template; greedy decoding; optionally constrained to the
candidates' call-list grammar. Predictions are appended as they finish (resumable) and scored
with the official and strict scorers, overall and by easy / difficult / nested, plus the
error analysis and a count of hallucinated (non-candidate) tool names under each parser.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from toollearn.core.errors import EngineError
from toollearn.core.types import Example, Message
from toollearn.engines.base import Completion, Engine

SPLITS = ("test_in_domain", "test_out_domain", "dev")
SPLIT_CHOICES = (*SPLITS, "all")  # all = the two test splits, the paper's 1,354 test queries


@dataclass(frozen=True)
class SealRunOptions:
    """Decoding settings of a run (recorded in its config)."""

    constrained: bool = True
    allow_empty: bool = False  # `[]` is a format failure for the official scorer
    max_tokens: int = 320
    stop: tuple[str, ...] = ()
    batch_size: int = 8
    seed: int = 0


def split_names(split: str) -> list[str]:
    """The dataset splits behind a --split choice."""
    if split == "all":
        return ["test_in_domain", "test_out_domain"]
    if split not in SPLITS:
        raise ValueError(f"unknown Seal-Tools split {split!r}; use one of {SPLIT_CHOICES}")
    return [split]


def load_prompts(split: str, root: Any = None, sample: bool = False) -> list[Example]:
    """The paper's evaluation prompts (5 candidates each) for a split choice."""
    from toollearn.data.registry import load_examples

    base = "sample/seal-tools-prompts" if sample else "seal-tools-prompts"
    return [ex for name in split_names(split) for ex in load_examples(f"{base}/{name}", root)]


def example_prompt(ex: Example) -> list[Message]:
    """The chat prompt for one example: its paper prompt as the user turn."""
    from toollearn.formats.answers.seal_tools import render_prompt

    text = ex.metadata.get("prompt") or render_prompt(ex.query, ex.tools)
    return [Message("user", text)]


def predict_batch(
    engine: Engine, examples: Sequence[Example], opts: SealRunOptions
) -> list[dict[str, Any]]:
    """Run one batch; returns one prediction record per example (errors recorded, not raised).

    With a constraint, each example gets its own grammar (its own candidates), so the batch is
    sent one prompt at a time; unconstrained examples go to the engine together.
    """
    prompts = [example_prompt(ex) for ex in examples]
    if opts.constrained:
        results = [constrained_answer(engine, ex, p, opts) for ex, p in zip(examples, prompts)]
    else:
        kw = {"max_tokens": opts.max_tokens, "stop": opts.stop, "seed": opts.seed}
        results = [(c, 0) for c in engine.complete(prompts, **kw)]
    return [
        {
            "id": ex.id,
            "split": ex.split,
            "output": comp.text,
            "finish_reason": comp.finish_reason,
            "prompt_tokens": comp.prompt_tokens,
            "completion_tokens": comp.completion_tokens,
            "seconds": round(comp.seconds, 3),
            "retries": retries,
            "error": comp.error,
        }
        for ex, (comp, retries) in zip(examples, results)
    ]


_FINISHED_CALL = re.compile(r'"responses": \[(?:"API_call_\d+",?)+\]\}')


def constrained_answer(
    engine: Engine, ex: Example, prompt: list[Message], opts: SealRunOptions
) -> tuple[Completion, int]:
    """A constrained answer that always completes within the token budget.

    If the answer runs out of tokens (a model looping over calls or inside a string), it is
    generated again with the calls capped at those it had finished and strings bounded, then
    with one call and short strings; greedy decoding makes the retry follow the same path up
    to the cap. Returns the completion (times and tokens summed) and the number of retries.
    """
    from toollearn.decoding.seal_tools import MAX_CALLS, seal_calls_constraint

    plans = [(MAX_CALLS, None), (None, 64), (1, 24)]
    total_s, total_toks, comp, retries = 0.0, 0, None, -1
    for max_calls, max_string in plans:
        retries += 1
        if max_calls is None:  # keep the calls the first attempt finished
            max_calls = max(1, len(_FINISHED_CALL.findall(comp.text if comp else "")))
        c = seal_calls_constraint(ex.tools, opts.allow_empty, max_calls, max_string)
        comp = engine.complete(
            [prompt], max_tokens=opts.max_tokens, stop=opts.stop, seed=opts.seed, constraint=c
        )[0]
        total_s, total_toks = total_s + comp.seconds, total_toks + comp.completion_tokens
        if comp.finish_reason != "length" or comp.error:
            break
    comp = replace(comp, seconds=total_s, completion_tokens=total_toks)
    return comp, retries


def _batches(items: Sequence[Example], size: int) -> Iterator[list[Example]]:
    for i in range(0, len(items), size):
        yield list(items[i : i + size])


def run_seal_tools(
    engine: Engine, examples: Sequence[Example], writer: Any, opts: SealRunOptions
) -> list[dict[str, Any]]:
    """Predict every example not yet in the writer's file; returns all records of these examples."""
    from toollearn.evaluation.runners.base import progress

    done = writer.done_ids()
    todo = [ex for ex in examples if ex.id not in done]
    bar = progress(range(len(todo)), total=len(todo), desc="seal-tools")
    for batch in _batches(todo, max(1, opts.batch_size)):
        records = predict_batch(engine, batch, opts)
        failed = [r for r in records if r["error"]]
        for record in records:
            if not record["error"]:
                writer.append(record)
                next(bar, None)
        if failed:  # keep what finished; a rerun of the same command resumes
            raise EngineError(
                f"{len(failed)} of {len(records)} prompts failed ({failed[0]['id']}: "
                f"{failed[0]['error']}); finished predictions are saved in {writer.out_dir}, "
                "rerun the same command to resume"
            )
    for _ in bar:  # close the bar
        pass
    wanted = {ex.id for ex in examples}
    return [r for r in writer.records() if r["id"] in wanted]


def official_gold(ex: Example) -> Any:
    """Gold answer as the official scorer reads it: the target literal when the data has it."""
    from toollearn.evaluation.metrics.seal_tools import official_gold as parse_target

    target = ex.metadata.get("target")
    return parse_target(target) if target else list(ex.calls)


def hallucinated_names(outputs: Sequence[str], examples: Sequence[Example]) -> dict[str, int]:
    """Predicted tool names that are not among the example's candidates, per parser."""
    from toollearn.evaluation.metrics.seal_tools import official_parse, strict_parse

    official = strict = 0
    for text, ex in zip(outputs, examples):
        names = {t.name for t in ex.tools}
        parsed = official_parse(text or "") or []
        official += sum(
            1 for d in parsed if isinstance(d, dict) and "api" in d and d["api"] not in names
        )
        strict += sum(1 for c in strict_parse(text) or [] if c.name not in names)
    return {"official": official, "strict": strict}


def score_records(records: Sequence[dict[str, Any]], examples: Sequence[Example]) -> dict:
    """Official and strict scores (by group and by split), error analysis, run statistics."""
    from toollearn.evaluation.metrics.seal_errors import seal_error_analysis
    from toollearn.evaluation.metrics.seal_tools import (
        difficulty_from_id,
        official_scores,
        scores_by_group,
        strict_scores,
    )

    by_id = {r["id"]: r for r in records}
    exs = [ex for ex in examples if ex.id in by_id]
    outs = [by_id[ex.id]["output"] or "" for ex in exs]
    levels = [ex.difficulty or difficulty_from_id(ex.id) for ex in exs]
    scores: dict[str, Any] = {
        "official": scores_by_group(official_scores, outs, [official_gold(e) for e in exs], levels),
        "strict": scores_by_group(strict_scores, outs, [list(e.calls) for e in exs], levels),
    }
    splits = sorted({ex.split for ex in exs})
    if len(splits) > 1:
        for name in splits:
            idx = [i for i, ex in enumerate(exs) if ex.split == name]
            sub_o, sub_e = [outs[i] for i in idx], [exs[i] for i in idx]
            scores[f"official_{name}"] = official_scores(sub_o, [official_gold(e) for e in sub_e])
            scores[f"strict_{name}"] = strict_scores(sub_o, [list(e.calls) for e in sub_e])
    scores["hallucinated_tools"] = hallucinated_names(outs, exs)
    scores["errors"] = seal_error_analysis(outs, exs)
    scores["run"] = run_stats([by_id[ex.id] for ex in exs])
    return scores


def run_stats(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Totals over records: time, tokens, truncated and failed generations."""
    secs = sum(r.get("seconds") or 0 for r in records)
    gen = sum(r.get("completion_tokens") or 0 for r in records)
    return {
        "n": len(records),
        "generation_seconds": round(secs, 1),
        "prompt_tokens": sum(r.get("prompt_tokens") or 0 for r in records),
        "completion_tokens": gen,
        "decode_tokens_per_s": round(gen / secs, 1) if secs else 0.0,
        "truncated": sum(1 for r in records if r.get("finish_reason") == "length"),
        "retried_for_length": sum(1 for r in records if r.get("retries")),
        "engine_errors": sum(1 for r in records if r.get("error")),
    }


def options_config(opts: SealRunOptions) -> dict[str, Any]:
    """The options that decide the predictions, as a JSON-able dict for the run config."""
    d = asdict(opts)
    d["stop"] = list(opts.stop)
    del d["batch_size"]  # a throughput knob: a resumed run may change it
    return d
