"""Run the general suite (`evaluation.calls_suite`) the way users reach a model.

Each item is a chat completions body. In process it goes through the server's own code
(`serve.chat.parse_request`, the server's call gate, the engine, `serve.chat.chat_response`):
the general renderer and grammar exactly as `toollearn serve` applies them, without HTTP.
With a URL it is sent through the official `openai` client to any OpenAI-compatible server
(`toollearn serve`, vLLM, llama.cpp's server, a hosted API), so every server or model is scored
by the same code. Records are appended as each item finishes (a run resumes), and the scores
are the categories' (`calls_suite.by_category`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from toollearn.engines.base import prompt_docs
from toollearn.evaluation.calls_suite import Answer, Suite, SuiteItem, by_category, score_item
from toollearn.evaluation.runners.base import RunWriter, progress

Answerer = Callable[[dict[str, Any]], tuple[dict[str, Any], dict[str, Any]]]


def in_process(
    engine: Any,
    model_id: str = "toollearn",
    docs: str | None = None,
    gate: dict[str, Any] | None = None,
    max_tokens_cap: int = 4096,
    reuse: dict[str, dict[str, Any]] | None = None,
    plan: tuple[str, Any] | None = None,
    repairs: Any = None,
) -> Answerer:
    """An answerer running `engine` behind the server's request path; `gate`: the server's
    call-gate settings (call_gate, call_threshold, sure_call_threshold); `plan`: (mode,
    planner), the server's call plan (`Worker.plan_turn`, as `toollearn run --plan MODE`);
    `repairs`: the server's repair loop (`agents.repairs.RepairLoop`).
    `reuse`: records of an earlier greedy run of the same model without gate or plan, by
    `body_key`: an answer they would not change is taken from there (see `gate_keeps`; not
    one the repair loop would ask again)."""
    from toollearn.serve.app import ServerConfig, Worker
    from toollearn.serve.chat import RequestError, chat_response, parse_request

    docs = docs or prompt_docs(engine)  # as the model was trained to see tools
    # one item at a time through the engine's own path (exact cells, no prefix cache)
    config = ServerConfig(model_id=model_id, docs=docs, max_tokens=max_tokens_cap, batch=False,
                          plan=plan, repairs=repairs, **(gate or {}))  # fmt: skip
    worker = Worker(engine, config)

    def answer(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        try:
            job = parse_request({**body, "model": model_id}, model_id, max_tokens_cap, docs)
            planned = worker.plan_turn(job, worker.decide(job)) if plan else None
            prev = None if planned else (reuse or {}).get(body_key(body))
            if prev is not None and repairs is not None and _repaired(repairs, job, prev):
                prev = None
            if prev is not None and gate_keeps(worker, job, prev.get("raw", {}).get("text")):
                return prev["message"], {**prev["raw"], "reused": prev["id"]}
            worker.admit()
            completion = worker.generate(job)[0]  # the gate, then the plan, as served
        except RequestError as exc:
            return {}, {"error": exc.message}
        if completion.error:
            return {}, {"error": completion.error}
        usage = {
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
        }
        response = chat_response(
            job,
            [(completion.text, completion.finish_reason)],
            {**usage, "total_tokens": sum(usage.values())},
        )
        raw = {"text": completion.text, "finish_reason": completion.finish_reason, **usage}
        if planned is not None:  # what the plan let this turn call
            raw["plan"] = [t.name for t in planned[0]]
        return response["choices"][0]["message"], raw

    answer.worker = worker  # type: ignore[attr-defined]
    return answer


def _repaired(repairs: Any, job: Any, prev: dict[str, Any]) -> bool:
    """Whether the repair loop would ask an earlier answer again."""
    from toollearn.agents.repairs import Turn

    text = (prev.get("raw") or {}).get("text")
    turn = Turn(list(job.tools), job.constraint, said=job.said, results=job.results)
    return text is None or repairs.find(text, turn) is not None


def body_key(body: dict[str, Any]) -> str:
    """A request body's identity (what reused answers are looked up by)."""
    text = json.dumps({k: v for k, v in body.items() if k != "model"}, sort_keys=True,
                      ensure_ascii=False)  # fmt: skip
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def gate_keeps(worker: Any, job: Any, text: str | None) -> bool:
    """Whether the greedy answer `text`, made under the job's own grammar, is also the answer
    under the grammar the call gate leaves: when the gate changes nothing, or the answer is
    already what the gate allows (a reply where it declines, calls where it is sure). Greedy
    constrained decoding picks the best token the grammar admits; the gate's grammar admits a
    subset of the job's, so a path inside that subset is picked there too, token by token."""
    from toollearn.core.errors import FormatError
    from toollearn.formats.answers import tool_calls

    if text is None:
        return False
    decision = worker.decide(job)
    if decision is None:
        return True
    try:
        answer = tool_calls.parse(text)
    except FormatError:
        return False  # a cut call list: generate it under the gate's grammar
    return answer.declined if decision == "no call" else not answer.declined


def reusable(suite: Suite, run: str | Path, engine: Any, max_tokens: int) -> dict[str, dict]:
    """The records of an earlier run of `suite` to reuse (`in_process(reuse=...)`), by body
    key; DataError unless it is an ungated greedy run of the same model, template and
    settings."""
    from toollearn.core.errors import DataError
    from toollearn.engines.provenance import describe_engine
    from toollearn.evaluation.runners.base import _identity, read_records

    run = Path(run)
    config = json.loads((run / "config.json").read_text(encoding="utf-8"))
    sessions = [s["provenance"] for s in read_records(run / "sessions.jsonl") if "provenance" in s]
    if config.get("call_gate") or config.get("max_tokens") != max_tokens or not sessions or any(
            _identity(p) != _identity(describe_engine(engine)) for p in sessions):  # fmt: skip
        raise DataError(f"{run} is not an ungated run of this model with max_tokens "
                        f"{max_tokens}: its answers cannot be reused")  # fmt: skip
    items = {it.id: it for it in suite.items}
    out = {}
    for rec in read_records(run / "predictions.jsonl"):
        item = items.get(str(rec.get("id")))
        if item is not None and not (rec.get("raw") or {}).get("error"):
            out[body_key(suite.request(item, max_tokens=max_tokens))] = rec
    return out


def over_http(
    url: str, model: str | None = None, api_key: str = "-", timeout: float = 300.0
) -> tuple[Answerer, str]:
    """An answerer sending each body through the `openai` client to `url`; the served model's
    id (the first the server lists, unless `model` is given)."""
    from openai import OpenAI, OpenAIError

    client = OpenAI(base_url=url, api_key=api_key, timeout=timeout, max_retries=2)
    model = model or client.models.list().data[0].id

    def answer(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        try:
            response = client.chat.completions.create(**{**body, "model": model})
        except OpenAIError as exc:
            return {}, {"error": f"{type(exc).__name__}: {exc}"}
        choice = response.choices[0]
        usage = response.usage.model_dump() if response.usage else {}
        return choice.message.model_dump(exclude_none=True), {
            "finish_reason": choice.finish_reason,
            **usage,
        }

    return answer, model


def run_suite(
    suite: Suite,
    answer: Answerer,
    out_dir: str | Path,
    config: dict[str, Any],
    engine: Any = None,
    max_tokens: int = 256,
) -> dict[str, Any]:
    """Answer every item not yet in `out_dir`, then score all; returns the scores."""
    writer = RunWriter(out_dir, config)
    if engine is not None:
        writer.record_engine(engine)
    done = writer.done_ids()
    todo = [it for it in suite.items if it.id not in done]
    for item in progress(todo, total=len(todo), desc=f"calls {suite.split}"):
        writer.append(answer_item(suite, item, answer, max_tokens))
    rows = rescore(suite, writer.records())
    scores = by_category(rows)
    writer.write_scores(scores, {"split": suite.split, "items": len(suite.items)})
    return scores


def answer_item(suite: Suite, item: SuiteItem, answer: Answerer, max_tokens: int) -> dict[str, Any]:
    """One item's record: the request's answer (OpenAI message and raw details) and counts."""
    start = time.perf_counter()
    message, raw = answer(suite.request(item, max_tokens=max_tokens))
    seconds = round(time.perf_counter() - start, 3)
    ans = _answer(message, raw)
    return {
        "id": item.id,
        "category": item.category,
        "kind": item.kind,
        "message": message,
        "raw": raw,
        "seconds": seconds,
        **score_item(item, ans, suite.schemas(item)),
    }


def _answer(message: dict[str, Any], raw: dict[str, Any]) -> Answer:
    ans = Answer.from_message(message)
    return Answer(ans.calls, ans.text, raw.get("error"))


def rescore(suite: Suite, records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Score recorded answers again with the current scorer (items of the suite only)."""
    items = {it.id: it for it in suite.items}
    rows = []
    for r in records:
        item = items.get(str(r["id"]))
        if item is None:
            continue
        counts = score_item(
            item, _answer(r.get("message") or {}, r.get("raw") or {}), suite.schemas(item)
        )
        rows.append({"id": item.id, "category": item.category, "kind": item.kind, **counts})
    return rows
