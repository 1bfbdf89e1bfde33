"""`toollearn serve`: an OpenAI-compatible HTTP server (FastAPI + uvicorn) over one engine.

Endpoints: `GET /v1/models`, `POST /v1/chat/completions` (tools, tool_choice, tool results in
the history, streaming as server-sent events), `GET /health`. Requests share the engine's
continuous batch where it has one (`engines.llama_online`: the llama engine decodes up to
n_seq of them together, each joining as a slot frees), else one worker thread generates them
one at a time in arrival order. At most `max_queue` requests are admitted (running + waiting)
and the rest get a 503 at once; a request not answered within `timeout` seconds gets a 504
(a batched generation then stops; a sequential one finishes and frees its slot, so the bound
is real load). A streamed answer goes out as it decodes (`Engine.stream` where
the engine has it: the llama engine): text as content deltas, a call list as OpenAI's
`tool_calls` deltas (index, id and name, then argument fragments: `serve.stream`), the last
chunk with its finish_reason (`length` when cut) and, asked for, the usage; a client that
leaves or times out stops the decoding. With a call gate (`toollearn serve --call-gate`:
DEER's shipped gate), a tool_choice "auto" request whose last turn is the user's is first
scored against its tools, and where none is close enough the model may only answer without
calls (`/health` counts them as `gate_declined`); where it is sure one fits (at or below its
sure-call threshold) the answer must call, as with "required" (`gate_sure`); without it the
model decides, as OpenAI's "auto" means. With a call plan the turn may call only the planned
tools (`Worker.plan_turn`). With the repair loop (`agents.repairs`; a preset's `repairs`) a
call list cut off by max_tokens, or a free one the tools' schemas refuse, is asked again before
the answer goes out (`/health` counts them as `repaired`; a streamed answer goes out as it
decodes, unrepaired).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse

from toollearn.engines.base import Completion, prompt_docs, stream_completion
from toollearn.serve.chat import ChatJob, RequestError, chat_response, chunk, parse_request
from toollearn.serve.stream import answer_stream

DONE = object()


@dataclass
class ServerConfig:
    """What `toollearn serve` was started with."""

    model_id: str = "toollearn"
    max_queue: int = 8
    timeout: float = 120.0
    max_tokens: int = 1024
    docs: str | None = None  # tool listing style: json | compact (None: the model's own)
    call_gate: Any = None  # with call_threshold: tool_choice auto asks the gate first
    call_threshold: float | None = None
    sure_call_threshold: float | None = None  # with a gate: at or below it the answer calls
    plan: Any = None  # (mode, agents.clause_plan.ClausePlanner): the planned calls a turn
    repairs: Any = None  # agents.repairs.RepairLoop: answers asked again (not streamed ones)
    template: Any = None  # serve.chat.TemplatePrompt: the model's own chat template and calls
    batch: bool = True  # continuous batching where the engine has it (engines.llama_online)


class Worker:
    """The engine behind an admission bound: requests share its continuous batch where it
    has one (`engines.llama_online`), else go one at a time through a one-thread executor."""

    def __init__(self, engine: Any, config: ServerConfig):
        self.engine, self.config = engine, config
        online = getattr(engine, "online_batcher", None) if config.batch else None
        self.batcher = online() if online is not None else None
        threads = config.max_queue if self.batcher is not None else 1
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="engine")
        self.pending = 0
        self.lock = threading.Lock()
        self.served = self.rejected = self.timed_out = self.gate_declined = self.gate_sure = 0
        self.repaired = 0  # answers the repair loop asked again
        self.cancelled = 0  # streams stopped because the client left or timed out

    def decide(self, job: ChatJob) -> str | None:
        """The call gate's decision for a job: "no call", "sure call", or None (the model
        decides: no gate, not tool_choice auto, or the gate left the choice)."""
        from toollearn.agents.call_gate import gate_decision

        config = self.config
        if config.call_gate is None or not job.gate_query:
            return None
        sure = config.sure_call_threshold
        decision, _ = gate_decision(config.call_gate, config.call_threshold, sure,
                                    job.gate_query, job.tools)  # fmt: skip
        return decision if decision in ("no call", "sure call") else None

    def gated(self, job: ChatJob) -> ChatJob:
        """The job with only the no-call answer left when the call gate finds no request tool
        close enough to the user's turn, or only call lists when it is sure one fits (tool_choice
        auto; `ServerConfig.call_gate`, `sure_call_threshold`); then narrowed to the planned
        call where a call plan is set (`plan_turn`)."""
        decision = self.decide(job)
        if decision is not None:
            with self.lock:
                self.gate_declined += decision == "no call"
                self.gate_sure += decision == "sure call"
            job = job.decided(decision)
        turn = self.plan_turn(job, decision)
        return job if turn is None else replace(job, constraint=turn[1], offered=tuple(turn[0]))

    def plan_turn(self, job: ChatJob, decision: str | None = None) -> tuple[list[Any], Any] | None:
        """Where the call plan narrows this turn (`ServerConfig.plan`), (the tools it may call,
        its grammar), as `toollearn run` follows it (`agents.tool_calls.planned_turn`); None
        where it leaves the turn free: no plan, not tool_choice auto, the gate's no-call
        verdict, the model's own template, no planned tool due."""
        from toollearn.agents.tool_calls import planned_turn

        if (self.config.plan is None or job.episode is None or not job.tools or job.dialect
                or job.constraint is None or decision == "no call"):  # fmt: skip
            return None
        mode, planner = self.config.plan
        episode = job.episode
        plan = planner.plan(episode.query, job.tools)
        offered, constraint = planned_turn(plan, mode, list(episode.called), list(job.tools),
                                           episode.steps, decision)  # fmt: skip
        return None if constraint is None else (offered, constraint)

    def admit(self) -> None:
        with self.lock:
            if self.pending >= self.config.max_queue:
                self.rejected += 1
                raise RequestError(f"server busy: {self.pending} requests in the queue; retry "
                                   "later", None, "server_busy", 503)  # fmt: skip
            self.pending += 1

    def release(self) -> None:
        with self.lock:
            self.pending -= 1
            self.served += 1

    def check_context(self, job: ChatJob) -> ChatJob:
        """The job with max_tokens clamped to what the context leaves after the prompt; a
        prompt that leaves no room is a 400."""
        count = getattr(self.engine, "count_tokens", None)
        n_ctx = getattr(self.engine, "n_ctx", None)
        if count is None or n_ctx is None:
            return job
        n = count(job.engine_prompt)
        limit = n_ctx() if callable(n_ctx) else n_ctx
        if n >= limit:
            raise RequestError(f"the prompt ({n} tokens) fills the context of {limit} tokens",
                               "messages", "context_length_exceeded")  # fmt: skip
        return replace(job, max_tokens=min(job.max_tokens, limit - n))

    @staticmethod
    def _settings(job: ChatJob, choice: int = 0) -> dict[str, Any]:
        return {"max_tokens": job.max_tokens, "stop": job.engine_stop,
                "temperature": job.temperature, "top_p": job.top_p, "seed": job.seed + choice,
                "constraint": job.constraint}  # fmt: skip

    def generate(self, job: ChatJob, cancel: threading.Event | None = None) -> list[Any]:
        """Run in a worker thread: the job's `n` completions (seeds seed, seed + 1, ...), each
        through the repair loop; setting `cancel` (a timeout) stops a batched one."""
        try:
            job = self.gated(self.check_context(job))
            if self.batcher is None and job.logprobs is not None:
                raise RequestError("logprobs come from the batched llama engine; this server "
                                   "runs another", "logprobs", "unsupported_parameter")  # fmt: skip
            return [self.repair(job, i, cancel) for i in range(job.n)]
        finally:
            self.release()

    def complete(self, job: ChatJob, choice: int, cancel: threading.Event | None = None,
                 prompt: Any = None) -> Any:  # fmt: skip
        """One completion of the job (choice: the seed offset), batched where the engine is."""
        prompt = job.engine_prompt if prompt is None else prompt
        if self.batcher is not None:
            scored = {} if job.logprobs is None else {"logprobs": job.logprobs}
            return self.batcher.complete(prompt, cancel, **self._settings(job, choice), **scored)
        return self.engine.complete([prompt], **self._settings(job, choice))[0]

    def repair(self, job: ChatJob, choice: int = 0, cancel: threading.Event | None = None) -> Any:
        """A completion after the repair loop (`ServerConfig.repairs`; general call lists):
        a cut-off call list asked again with its finished calls, a free answer the tools'
        schemas refuse asked again under the grammar (or, for an engine without grammars,
        with the problems named); the last try, its tokens and seconds summed over the
        tries."""
        from toollearn.agents.repairs import Turn, note_message

        tries = [self.complete(job, choice, cancel)]
        loop = self.config.repairs
        if loop is None or tries[0].error or not job.calls_tools or job.dialect:
            return tries[0]

        def ask(fault: Any, text: str) -> str | None:
            if fault.note is not None and job.prompt is not None:
                return None  # a rendered template cannot take the note
            prompt = [*job.messages, *note_message(fault, text)] if fault.note else None
            tries.append(self.complete(replace(job, constraint=fault.constraint), choice,
                                       cancel, prompt))  # fmt: skip
            return None if tries[-1].error else tries[-1].text

        tools = list(job.offered if job.offered is not None else job.tools)
        grammar = job.constraint if getattr(self.engine, "supports_constraints", False) else None
        turn = Turn(tools, grammar, said=job.said, results=job.results)
        loop.run(tries[0].text, turn, ask)
        if len(tries) == 1:
            return tries[0]
        with self.lock:
            self.repaired += 1
        return replace(tries[-1], completion_tokens=sum(t.completion_tokens for t in tries),
                       seconds=round(sum(t.seconds for t in tries), 3))  # fmt: skip

    def stream(self, job: ChatJob, put: Any, cancel: threading.Event) -> None:
        """Run in the worker thread: text pieces to `put`, then the Completion and DONE (or
        the exception). Setting `cancel` (the client left, or timed out) stops decoding."""
        pieces, end = None, DONE
        try:
            job = self.gated(self.check_context(job))
            if self.batcher is not None:
                pieces = self.batcher.stream(job.engine_prompt, cancel, **self._settings(job))
            else:
                pieces = stream_completion(self.engine, job.engine_prompt, **self._settings(job))
            for item in pieces:
                if cancel.is_set():
                    with self.lock:
                        self.cancelled += 1
                    break
                put(item)
        except Exception as exc:  # handed to the request's coroutine
            end = exc
        finally:
            if pieces is not None:
                pieces.close()
            self.release()  # before the client sees the end: its next request finds the slot
            put(end)


def _usage(completions: list[Any]) -> dict[str, int]:
    """Usage of a request's choices: the prompt once, every choice's tokens."""
    prompt = completions[0].prompt_tokens if completions else 0
    generated = sum(c.completion_tokens for c in completions)
    return {"prompt_tokens": prompt, "completion_tokens": generated,
            "total_tokens": prompt + generated}  # fmt: skip


def _sse(obj: Any) -> str:
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"


def create_app(engine: Any, config: ServerConfig | None = None) -> FastAPI:
    """The FastAPI app serving `engine`."""
    config = config or ServerConfig()
    if config.docs is None:  # list tools as the model was trained to see them
        config = replace(config, docs=prompt_docs(engine))
    worker = Worker(engine, config)
    app = FastAPI(title="toollearn", version="1")
    app.state.worker = worker

    @app.exception_handler(RequestError)
    async def _request_error(_request: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(RequestError(str(exc)).body(), status_code=400)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "pending": worker.pending, "served": worker.served,
                "rejected": worker.rejected, "timed_out": worker.timed_out,
                "gate_declined": worker.gate_declined, "gate_sure": worker.gate_sure,
                "repaired": worker.repaired, "cancelled": worker.cancelled}  # fmt: skip

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": config.model_id, "object": "model",
                                            "created": 0, "owned_by": "toollearn"}]}  # fmt: skip

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise RequestError("the request body is not valid JSON") from None
        job = parse_request(body, config.model_id, config.max_tokens, config.docs,
                            config.template)  # fmt: skip
        loop = asyncio.get_running_loop()
        worker.admit()
        if job.stream:
            queue: asyncio.Queue = asyncio.Queue()
            put = lambda item: loop.call_soon_threadsafe(queue.put_nowait, item)  # noqa: E731
            cancel = threading.Event()
            loop.run_in_executor(worker.pool, worker.stream, job, put, cancel)
            try:  # errors before any byte are HTTP errors
                first = await _next(queue, config.timeout, worker)
            except RequestError:
                cancel.set()
                raise
            events = _events(job, first, queue, config.timeout, worker, cancel)
            return StreamingResponse(events, media_type="text/event-stream")
        cancel = threading.Event()
        future = loop.run_in_executor(worker.pool, worker.generate, job, cancel)
        try:
            completions = await asyncio.wait_for(asyncio.shield(future), config.timeout)
        except asyncio.TimeoutError:
            cancel.set()  # a batched generation stops; a sequential one runs to its end
            worker.timed_out += 1
            raise RequestError(f"no answer within {config.timeout:g} s", None, "timeout",
                               504) from None  # fmt: skip
        except RequestError:
            raise
        except Exception as exc:  # the engine raised: a 500 naming it, the server goes on
            raise RequestError(f"the engine failed: {exc}", None, "engine_error", 500) from None
        failed = next((c.error for c in completions if c.error), None)
        if failed:
            raise RequestError(f"the engine failed: {failed}", None, "engine_error", 500)
        texts = [(c.text, c.finish_reason) for c in completions]
        return chat_response(job, texts, _usage(completions), [c.logprobs for c in completions])

    return app


async def _next(queue: asyncio.Queue, timeout: float, worker: Worker) -> Any:
    try:
        item = await asyncio.wait_for(queue.get(), timeout)
    except asyncio.TimeoutError:
        worker.timed_out += 1
        raise RequestError(f"no answer within {timeout:g} s", None, "timeout", 504) from None
    if isinstance(item, RequestError):
        raise item
    if isinstance(item, Exception):
        raise RequestError(f"the engine failed: {item}", None, "engine_error", 500)
    return item


async def _events(job: ChatJob, first: Any, queue: asyncio.Queue, timeout: float,
                  worker: Worker, cancel: threading.Event) -> AsyncIterator[str]:  # fmt: skip
    """Server-sent events of an answer as it decodes: text deltas, or for a request with
    tools the call list's deltas (`serve.stream.CallStream`); then the finish_reason, the usage
    (stream_options.include_usage) and [DONE]. Leaving early (the client went away) or a
    timeout cancels the generation."""
    cid = f"chatcmpl-{uuid.uuid4().hex[:24]}"
    calls = answer_stream(job) if job.calls_tools else None
    completion: Completion | None = None
    try:
        yield _sse(chunk(job, cid, {"role": "assistant", "content": ""}))
        item = first
        while item is not DONE:
            if isinstance(item, Completion):
                completion = item
            else:
                for delta in calls.feed(item) if calls else [{"content": item}]:
                    yield _sse(chunk(job, cid, delta))
            try:
                item = await _next(queue, timeout, worker)
            except RequestError as exc:  # headers are sent: report in the stream, then stop
                yield _sse(exc.body())
                return
        engine_finish = completion.finish_reason if completion else "stop"
        for delta in calls.end(engine_finish) if calls else []:
            yield _sse(chunk(job, cid, delta))
        finish = calls.finish_reason(engine_finish) if calls else (
            "length" if engine_finish == "length" else "stop")  # fmt: skip
        yield _sse(chunk(job, cid, {}, finish))
        if job.include_usage and completion is not None:
            yield _sse(chunk(job, cid, {}, usage=_usage([completion])))
        yield "data: [DONE]\n\n"
    finally:
        cancel.set()  # finished, or the client left: the worker stops decoding


def serve(engine: Any, config: ServerConfig, host: str = "127.0.0.1", port: int = 8000,
          log_level: str = "info") -> None:  # fmt: skip
    """Run the server until interrupted."""
    import uvicorn

    uvicorn.run(create_app(engine, config), host=host, port=port, log_level=log_level)


class BackgroundServer:
    """The app on 127.0.0.1 in a thread (tests, benchmarks): `with BackgroundServer(...) as s:
    s.url`."""

    def __init__(self, engine: Any, config: ServerConfig | None = None, port: int = 0):
        import uvicorn

        self.app = create_app(engine, config)
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=port,
                                                    log_level="warning"))  # fmt: skip
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        sock = self.server.servers[0].sockets[0]
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        deadline = time.time() + 30
        while not self.server.started:
            if time.time() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
