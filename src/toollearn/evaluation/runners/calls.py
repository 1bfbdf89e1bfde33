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

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from toollearn.evaluation.calls_suite import Answer, Suite, SuiteItem, by_category, score_item
from toollearn.evaluation.runners.base import RunWriter, progress

Answerer = Callable[[dict[str, Any]], tuple[dict[str, Any], dict[str, Any]]]


def in_process(
    engine: Any,
    model_id: str = "toollearn",
    docs: str = "json",
    gate: dict[str, Any] | None = None,
    max_tokens_cap: int = 4096,
) -> Answerer:
    """An answerer running `engine` behind the server's request path; `gate`: the server's
    call-gate settings (call_gate, call_threshold, sure_call_threshold)."""
    from toollearn.serve.app import ServerConfig, Worker
    from toollearn.serve.chat import RequestError, chat_response, parse_request

    # one item at a time through the engine's own path (exact cells, no prefix cache)
    config = ServerConfig(model_id=model_id, docs=docs, max_tokens=max_tokens_cap, batch=False,
                          **(gate or {}))  # fmt: skip
    worker = Worker(engine, config)

    def answer(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        try:
            job = parse_request({**body, "model": model_id}, model_id, max_tokens_cap, docs)
            worker.admit()
            completion = worker.generate(job)[0]
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
        return response["choices"][0]["message"], raw

    answer.worker = worker  # type: ignore[attr-defined]
    return answer


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
