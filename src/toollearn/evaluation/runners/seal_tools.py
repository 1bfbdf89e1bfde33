"""Seal-Tools runner: the paper's 5-candidate prompts through an engine, scored two ways.

Each example's prompt (the dataset's own human turn, else `render_prompt`) is sent as a user
message through the model's chat template; greedy decoding; optionally constrained to the
candidates' call-list grammar. Predictions are appended as they finish (resumable) and scored
with the official and strict scorers, overall and by easy / difficult / nested, plus the
error analysis and a count of hallucinated (non-candidate) tool names under each parser.

Several modes (free and constrained) can run together (`run_seal_modes`): each example's
pending answers go to the engine in one batch, so a batching engine evaluates its prompt once.
Candidates are the paper's 5 per prompt, or (`retrieve_candidates`) our retriever's top 5 from
the full tool pool, with the gold tools it missed recorded in each prediction.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from toollearn.core.errors import EngineError, RetrievalError
from toollearn.core.types import Example, Message, Tool
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
    candidates: str = "paper"  # or our retriever over the full pool: METHOD[:MODEL_DIR]
    retriever_model: str | None = None  # the fine-tuned encoder's id (with its hash), if any
    retry: bool = True  # regenerate constrained answers cut off by max_tokens (RETRY_POLICY)
    distinct_tools: bool = False  # constrained lists call each candidate at most once
    copy_strings: bool = False  # constrained string values are spans of the query
    stated_optional: bool = False  # with copy_strings: optional values are ones the query states
    prune_margin: float | None = None  # candidates the tool filter would drop are not offered


RETRY_POLICY = (
    "a constrained answer cut off by max_tokens is generated again with the calls capped at "
    "those it finished and strings of at most 64 characters, then (if still cut off) with one "
    "call and strings of at most 24 characters"
)


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
    from toollearn.formats.answers.seal_tools import render_messages

    return render_messages(ex.query, ex.tools, ex.metadata.get("prompt"))


def predict_batch(
    engine: Engine, examples: Sequence[Example], opts: SealRunOptions
) -> list[dict[str, Any]]:
    """Run one batch; returns one prediction record per example (errors recorded, not raised)."""
    return predict_jobs(engine, [(ex, opts) for ex in examples])


def predict_jobs(
    engine: Engine, jobs: Sequence[tuple[Example, SealRunOptions]]
) -> list[dict[str, Any]]:
    """One record per (example, mode) job, generated together when the engine batches.

    Each job's first attempt goes to the engine in one `complete_requests` call (identical
    prompts, e.g. the free and constrained answers of one example, are evaluated once); then,
    unless the job's options say `retry=False`, constrained answers that ran out of tokens are
    asked again in rounds: the repair loop's `seal_cut_off` check (`decoding.repair_loop`)
    finds them and gives each try's grammar (see `constraint_plan`). Each record counts its
    retries.
    """
    from toollearn.decoding.repair_loop import Turn
    from toollearn.engines.llama_batch import Request, complete_requests

    prompts = [example_prompt(ex) for ex, _ in jobs]
    attempts: list[list[Completion]] = [[] for _ in jobs]
    grammars = [constraint_plan(ex, opts, 0, "") for ex, opts in jobs]
    todo = list(range(len(jobs)))
    while todo:
        reqs = [Request(prompts[i], jobs[i][1].max_tokens, tuple(jobs[i][1].stop), grammars[i],
                        0.0, jobs[i][1].seed) for i in todo]  # fmt: skip
        for i, comp in zip(todo, complete_requests(engine, reqs)):
            attempts[i].append(comp)
        again = []
        for i in todo:
            last = attempts[i][-1]
            turn = Turn(list(jobs[i][0].tools), grammars[i], finish_reason=last.finish_reason,
                        tries=len(attempts[i]) - 1, context=jobs[i])  # fmt: skip
            fault = None if last.error else SEAL_REPAIRS.find(last.text, turn)
            if fault is not None:
                grammars[i] = fault.constraint
                again.append(i)
        todo = again
    return [_record(ex, tries) for (ex, _), tries in zip(jobs, attempts)]


def _record(ex: Example, tries: list[Completion]) -> dict[str, Any]:
    comp = tries[-1]
    record = {
        "id": ex.id,
        "split": ex.split,
        "output": comp.text,
        "finish_reason": comp.finish_reason,
        "prompt_tokens": comp.prompt_tokens,
        "completion_tokens": sum(c.completion_tokens for c in tries),
        "seconds": round(sum(c.seconds for c in tries), 3),
        "retries": len(tries) - 1,
        "error": comp.error,
    }
    if "retrieval_missed" in ex.metadata:  # our retriever's candidates: kept for rescoring
        record["retrieval_missed"] = list(ex.metadata["retrieval_missed"])
        record["candidates"] = [t.name for t in ex.tools]
    return record


_FINISHED_CALL = re.compile(r'"responses": \[(?:"API_call_\d+",?)+\]\}')
_PLANS = ((0, None), (None, 64), (1, 24))  # (max calls, max string length); 0 = MAX_CALLS


def seal_cut_off(text: str, turn: Any, constrained: bool) -> Any:
    """The repair loop's check for a constrained Seal-Tools answer cut off by max_tokens
    (`turn.context`: the (example, options) job; `turn.tries`: the tries made): asked again
    under the next grammar of `constraint_plan`, while one is left."""
    from toollearn.decoding.repair_loop import Fault

    ex, opts = turn.context
    attempt = turn.tries + 1
    if not (opts.constrained and opts.retry and turn.finish_reason == "length"):
        return None
    if attempt >= len(_PLANS):
        return None
    detail = f"cut off by max_tokens; try {attempt + 1} of {len(_PLANS)} ({RETRY_POLICY})"
    return Fault("seal_cut_off", detail, turn.tools, constraint_plan(ex, opts, attempt, text))


def _seal_repairs() -> Any:
    from toollearn.decoding.repair_loop import RepairLoop, register_check

    register_check("seal_cut_off", seal_cut_off)
    return RepairLoop(("seal_cut_off",), budget=len(_PLANS) - 1)


def constraint_plan(ex: Example, opts: SealRunOptions, attempt: int, previous: str) -> Any:
    """The constraint of a job's attempt (None when unconstrained).

    A constrained answer that runs out of tokens (a model looping over calls or inside a
    string) is generated again with the calls capped at those it had finished and strings
    bounded, then with one call and short strings; greedy decoding makes the retry follow the
    same path up to the cap, so every answer completes within the token budget.
    """
    from toollearn.decoding.seal_tools import MAX_CALLS, seal_calls_constraint

    if not opts.constrained:
        return None
    max_calls, max_string = _PLANS[attempt]
    if max_calls == 0:
        max_calls = MAX_CALLS
    elif max_calls is None:  # keep the calls the first attempt finished
        max_calls = max(1, len(_FINISHED_CALL.findall(previous)))
    return seal_calls_constraint(
        ex.tools,
        opts.allow_empty,
        max_calls,
        max_string,
        distinct=opts.distinct_tools,
        copy_from=ex.query if opts.copy_strings else None,
        stated_optional=opts.stated_optional,
    )


SEAL_REPAIRS = _seal_repairs()  # the loop with the Seal-Tools check, as the runner asks


def _batches(items: Sequence[Example], size: int) -> Iterator[list[Example]]:
    for i in range(0, len(items), size):
        yield list(items[i : i + size])


def run_seal_tools(
    engine: Engine, examples: Sequence[Example], writer: Any, opts: SealRunOptions
) -> list[dict[str, Any]]:
    """Predict every example not yet in the writer's file; returns all records of these examples."""
    return run_seal_modes(engine, examples, [(writer, opts)])[0]


def run_seal_modes(
    engine: Engine, examples: Sequence[Example], runs: Sequence[tuple[Any, SealRunOptions]]
) -> list[list[dict[str, Any]]]:
    """Several runs (e.g. free and constrained) over the same examples, each with its own
    writer (resumable on its own); an example's pending modes are generated together so its
    prompt is evaluated once. Returns each run's records of these examples."""
    from toollearn.evaluation.runners.base import progress

    done = [w.done_ids() for w, _ in runs]
    todo = [ex for ex in examples if any(ex.id not in d for d in done)]
    bar = progress(range(len(todo)), total=len(todo), desc="seal-tools")
    size = max(1, max(o.batch_size for _, o in runs))
    for batch in _batches(todo, size):
        jobs = [(k, ex) for ex in batch for k in range(len(runs)) if ex.id not in done[k]]
        records = predict_jobs(engine, [(ex, runs[k][1]) for k, ex in jobs])
        failed = [r for r in records if r["error"]]
        for (k, _), record in zip(jobs, records):
            if not record["error"]:
                runs[k][0].append(record)
        for _ in batch:
            next(bar, None)
        if failed:  # keep what finished; a rerun of the same command resumes
            raise EngineError(
                f"{len(failed)} of {len(records)} prompts failed ({failed[0]['id']}: "
                f"{failed[0]['error']}); finished predictions are saved, "
                "rerun the same command to resume"
            )
    for _ in bar:  # close the bar
        pass
    wanted = {ex.id for ex in examples}
    return [[r for r in w.records() if r["id"] in wanted] for w, _ in runs]


CANDIDATES = ("paper", "bm25", "dense", "hybrid")


def candidate_encoder(spec: str) -> Any:
    """The encoder a --candidates spec names: None for the embedded MiniLM (or BM25), a
    fine-tuned SentenceTransformer folder for "dense:DIR" / "hybrid:DIR"."""
    method, _, model = spec.partition(":")
    if method not in CANDIDATES:
        raise RetrievalError(f"unknown candidates {spec!r}; use one of {CANDIDATES}[:MODEL_DIR]")
    if not model:
        return None
    if method not in ("dense", "hybrid"):
        raise RetrievalError(f"candidates {spec!r}: only dense and hybrid take a model folder")
    from toollearn.retrieval.dense import MiniLMEncoder

    return MiniLMEncoder(path=model, threads=1)


def retrieve_candidates(
    examples: Sequence[Example],
    method: str,
    root: Any = None,
    k: int = 5,
    sample: bool = False,
    encoder: Any = None,
) -> list[Example]:
    """The "our-retriever" protocol: each query's top-k tools from the full Seal-Tools pool
    replace the paper's candidates (and its prompt); metadata["retrieval_missed"] lists the
    gold tools retrieval did not return (the error analysis counts them as retriever misses).
    method: bm25 | dense | hybrid, or dense:DIR / hybrid:DIR with a fine-tuned MiniLM
    (`toollearn retrieve train`'s run/model); `encoder` is that spec's `candidate_encoder`,
    made once by the caller (built here when None)."""
    from toollearn.data.registry import load_tool_pool
    from toollearn.retrieval import ToolRetriever

    if method == "paper":
        return list(examples)
    if encoder is None:
        encoder = candidate_encoder(method)
    pool = load_tool_pool("sample/seal-tools" if sample else "seal-tools", root)
    retriever = ToolRetriever(pool, method.partition(":")[0], encoder=encoder)
    hits = retriever.search_batch([ex.query for ex in examples], k)
    return [with_candidates(ex, [h.item for h in found]) for ex, found in zip(examples, hits)]


def recorded_candidates(
    examples: Sequence[Example], records: Sequence[dict[str, Any]], root: Any = None,
    sample: bool = False,
) -> list[Example]:  # fmt: skip
    """The examples with the candidates their run's records name (`candidates`), so a run
    made with a retriever that is not at hand (a fine-tuned model) rescores without it."""
    from toollearn.data.registry import load_tool_pool

    tools = load_tool_pool("sample/seal-tools" if sample else "seal-tools", root)
    pool = {t.name: t for t in tools}
    names = {r["id"]: r["candidates"] for r in records}
    unknown = sorted({n for ns in names.values() for n in ns} - set(pool))
    if unknown:
        raise RetrievalError(f"recorded candidates not in the Seal-Tools pool: {unknown[:5]}")
    return [with_candidates(ex, [pool[n] for n in names[ex.id]]) for ex in examples]


def run_examples(
    config: dict[str, Any], records: Sequence[dict[str, Any]], root: Any = None
) -> list[Example]:
    """The examples a finished run's records answer, with the candidates it was given."""
    sample = bool(config.get("sample"))
    wanted = {r["id"] for r in records}
    examples = [ex for ex in load_prompts(config["split"], root, sample) if ex.id in wanted]
    candidates = config.get("candidates", "paper")
    if records and all("candidates" in r for r in records):  # retrieved or pruned candidates
        return recorded_candidates(examples, records, root, sample=sample)
    return retrieve_candidates(examples, candidates, root, sample=sample)


def prune_candidates(examples: Sequence[Example], tool_filter: Any) -> list[Example]:
    """Each example offered only the candidates `tool_filter` supports (support >= -margin;
    the closest tool of each clause always stays); pruned gold tools are recorded as missed."""
    out = []
    for ex in examples:
        support = tool_filter.support(ex.query, ex.tools)
        kept = [t for t in ex.tools if support[t.name] >= -tool_filter.margin]
        out.append(with_candidates(ex, kept))
    return out


def with_candidates(ex: Example, found: Sequence[Tool]) -> Example:
    """An example whose candidates (and prompt) are `found`; metadata["retrieval_missed"]
    lists its gold tools that are not among them."""
    from toollearn.formats.answers.seal_tools import render_prompt

    tools = tuple(found)
    names = {t.name for t in tools}
    missed = sorted({c.name for c in ex.calls} - names)
    meta = {**ex.metadata, "prompt": render_prompt(ex.query, tools)}
    meta["retrieval_missed"] = missed
    return replace(ex, tools=tools, metadata=meta)


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
        official_gold,
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
    if d["candidates"] == "paper":  # the default protocol: configs stay as before
        del d["candidates"]
    if d["retriever_model"] is None:
        del d["retriever_model"]
    del d["retry"]
    for key in ("distinct_tools", "copy_strings", "stated_optional"):
        if not d[key]:  # the default: configs stay as before
            del d[key]
    if d["prune_margin"] is None:
        del d["prune_margin"]
    d["retry_truncated"] = RETRY_POLICY if opts.retry and opts.constrained else "off"
    return d
