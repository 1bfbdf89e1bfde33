"""OpenAI-compatible HTTP engine: vLLM, Ollama, llama.cpp's server, or any hosted endpoint.

A raw-text prompt goes to /completions, a message list to /chat/completions (the server applies
the model's chat template). Requests run with bounded concurrency; 429, 5xx, timeouts and
refused connections are retried with exponential backoff; other HTTP errors fail at once. A
prompt that still fails comes back as a Completion with `error` set, so the finished prompts of
the batch are kept. Standard library only (urllib).
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from toollearn.core.errors import EngineError
from toollearn.engines.base import Completion, Prompt, as_messages, is_chat

if TYPE_CHECKING:
    from toollearn.decoding.constraint import Constraint

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
CONSTRAINT_STYLES = ("llama", "vllm", "none")


class _Retryable(Exception):
    """A failure worth another try (rate limit, server error, network)."""


class OpenAIEngine:
    """Client for an OpenAI-compatible server.

    constraint_style: how a Constraint is sent: "llama" (llama.cpp / llama-cpp-python servers:
    `grammar` for GBNF, `response_format` with a schema for JSON Schema), "vllm"
    (`guided_grammar` / `guided_json`), "none" (constraints rejected).
    """

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        api_key: str | None = None,
        concurrency: int = 4,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        constraint_style: str = "llama",
    ):
        if constraint_style not in CONSTRAINT_STYLES:
            raise EngineError(f"constraint_style must be one of {CONSTRAINT_STYLES}")
        self.base_url = base_url.rstrip("/")
        self.model = model or "default"
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.concurrency = max(1, concurrency)
        self.timeout, self.retries = timeout, max(0, retries)
        self.backoff, self.max_backoff = backoff, max_backoff
        self.constraint_style = constraint_style
        self.supports_constraints = constraint_style != "none"
        self.name = f"openai:{self.base_url}#{self.model}"

    def complete(
        self,
        prompts: Sequence[Prompt],
        *,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int = 0,
        constraint: Constraint | None = None,
    ) -> list[Completion]:
        """One completion per prompt, in order; failures carry `error` instead of raising."""
        extra = self._constraint_fields(constraint)
        common = {
            "model": self.model,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "top_p": top_p,
            "seed": seed,
            **({"stop": list(stop)} if stop else {}),
            **extra,
        }

        def one(prompt: Prompt) -> Completion:
            if is_chat(prompt):
                body = {**common, "messages": [m.to_dict() for m in as_messages(prompt)]}
                return self._request("/chat/completions", body, chat=True)
            return self._request("/completions", {**common, "prompt": prompt}, chat=False)

        if len(prompts) <= 1 or self.concurrency == 1:
            return [one(p) for p in prompts]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(prompts))) as pool:
            return list(pool.map(one, prompts))

    def _constraint_fields(self, constraint: Constraint | None) -> dict[str, Any]:
        if constraint is None:
            return {}
        style, kind = self.constraint_style, constraint.kind
        if style == "llama" and kind == "gbnf":
            return {"grammar": constraint.grammar}
        if style == "llama" and kind == "json_schema":
            schema = json.loads(constraint.grammar)
            return {"response_format": {"type": "json_object", "schema": schema}}
        if style == "vllm" and kind in ("gbnf", "json_schema", "regex"):
            key = {"gbnf": "guided_grammar", "json_schema": "guided_json", "regex": "guided_regex"}
            return {key[kind]: constraint.grammar}
        raise EngineError(f"a {kind} constraint cannot be sent with constraint_style={style!r}")

    def _request(self, path: str, body: dict[str, Any], chat: bool) -> Completion:
        """POST with retries; a Completion either way (error set after the last failure)."""
        t0, last = time.perf_counter(), ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(self.max_backoff, self.backoff * 2 ** (attempt - 1)))
            try:
                data = self._post(path, body)
            except _Retryable as exc:
                last = str(exc)
                continue
            except EngineError as exc:
                return _failed(str(exc), t0)
            return _parse(data, chat, t0)
        tries = self.retries + 1
        return _failed(f"{self.base_url}{path}: gave up after {tries} attempts: {last}", t0)

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(
            self.base_url + path, json.dumps(body).encode(), headers, method="POST"
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", errors="replace")[:300]
            msg = f"HTTP {exc.code} from {self.base_url}{path}: {detail}"
            if exc.code in RETRY_STATUS:
                raise _Retryable(msg) from exc
            raise EngineError(msg) from exc
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise _Retryable(f"cannot reach {self.base_url}{path}: {reason}") from exc
        except json.JSONDecodeError as exc:
            raise EngineError(f"{self.base_url}{path} did not answer JSON: {exc}") from exc


def _parse(data: dict[str, Any], chat: bool, t0: float) -> Completion:
    try:
        choice = data["choices"][0]
        text = choice["message"]["content"] if chat else choice["text"]
    except (KeyError, IndexError, TypeError):
        return _failed(f"unexpected response shape: {json.dumps(data)[:300]}", t0)
    usage = data.get("usage") or {}
    return Completion(
        text=text or "",
        finish_reason=choice.get("finish_reason") or "stop",
        prompt_tokens=usage.get("prompt_tokens", 0),
        completion_tokens=usage.get("completion_tokens", 0),
        seconds=time.perf_counter() - t0,
    )


def _failed(message: str, t0: float) -> Completion:
    return Completion("", "error", seconds=time.perf_counter() - t0, error=message)
