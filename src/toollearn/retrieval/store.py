"""Persisted indexes: a directory with the index payload and a manifest that pins what it indexes.

The manifest holds a sha256 over the item keys, the indexed texts and the retriever spec
(method, options, model id). Opening an index for a pool whose hash differs rebuilds it (or
raises with `strict=True`): a changed pool is never served from a stale index.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import RetrievalError
from toollearn.retrieval.base import Retriever
from toollearn.retrieval.bm25 import BM25Retriever
from toollearn.retrieval.dense import DenseRetriever, Encoder, MiniLMEncoder
from toollearn.retrieval.hybrid import HybridRetriever
from toollearn.retrieval.text import content_hash

INDEX_FORMAT = 1
METHODS: dict[str, type[Retriever]] = {
    "bm25": BM25Retriever,
    "dense": DenseRetriever,
    "hybrid": HybridRetriever,
}


def default_index_root() -> Path:
    """$TOOLLEARN_INDEX_DIR, else $XDG_CACHE_HOME/toollearn/indexes (~/.cache by default)."""
    env = os.environ.get("TOOLLEARN_INDEX_DIR")
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "toollearn" / "indexes"


def index_path(name: str, method: str, root: str | Path | None = None) -> Path:
    """Where the index of pool `name` with `method` lives under `root` (default cache)."""
    return Path(root or default_index_root()) / f"{name}-{method}"


def check_method(method: str) -> type[Retriever]:
    if method not in METHODS:
        raise RetrievalError(f"unknown retrieval method {method!r}; choose from {sorted(METHODS)}")
    return METHODS[method]


def index_spec(method: str, options: dict[str, Any], encoder: Encoder | None) -> dict[str, Any]:
    """Everything besides the texts that decides an index's content."""
    model = None
    if method in ("dense", "hybrid"):
        model = (encoder or MiniLMEncoder()).model_id
    return {"format": INDEX_FORMAT, "method": method, "options": options, "model": model}


def build_retriever(
    method: str,
    items: Sequence[Any],
    texts: Sequence[str],
    *,
    encoder: Encoder | None = None,
    **options: Any,
) -> Retriever:
    """A fresh in-memory retriever (no persistence)."""
    kind = check_method(method)
    if method in ("dense", "hybrid"):
        options = {**options, "encoder": encoder}
    return kind(items, texts, **options)


def _set_encoder(retriever: Retriever, encoder: Encoder | None) -> None:
    if encoder is None:
        return
    if isinstance(retriever, DenseRetriever):
        retriever.encoder = encoder
    for part in getattr(retriever, "parts", ()):
        _set_encoder(part, encoder)


def _read_manifest(directory: Path) -> dict[str, Any] | None:
    path = directory / "manifest.json"
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise RetrievalError(
            f"{path}: unreadable index manifest ({exc}); delete the folder"
        ) from exc


def _write(directory: Path, retriever: Retriever, manifest: dict[str, Any]) -> None:
    """Write payload + manifest to a temporary sibling, then swap it in."""
    if (
        directory.exists()
        and any(directory.iterdir())
        and not (directory / "manifest.json").exists()
    ):
        raise RetrievalError(
            f"{directory} exists and is not a toollearn index; refusing to overwrite"
        )
    tmp = directory.with_name(f".{directory.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "index").mkdir(parents=True)
    retriever.save(tmp / "index")
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))
    if directory.exists():
        shutil.rmtree(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp.rename(directory)


def open_index(
    directory: str | Path | None,
    method: str,
    items: Sequence[Any],
    keys: Sequence[str],
    texts: Sequence[str],
    *,
    encoder: Encoder | None = None,
    strict: bool = False,
    rebuild: bool = False,
    extra: dict[str, Any] | None = None,
    **options: Any,
) -> tuple[Retriever, bool]:
    """(retriever, loaded_from_disk): reload the index at `directory` if it matches, else build.

    strict: raise instead of rebuilding when the index is missing or was built for another pool.
    rebuild: always rebuild. `extra` (e.g. the indexed fields) is part of the hash.
    """
    kind = check_method(method)
    spec = {**index_spec(method, options, encoder), **(extra or {})}
    digest = content_hash(keys, texts, spec)
    if directory is None:
        return build_retriever(method, items, texts, encoder=encoder, **options), False
    directory = Path(directory)
    manifest = None if rebuild else _read_manifest(directory)
    if manifest is not None and manifest.get("content_hash") == digest:
        retriever = kind.load(directory / "index", items, texts)
        _set_encoder(retriever, encoder)
        return retriever, True
    if strict:
        what = (
            "no index"
            if manifest is None
            else (
                f"an index of {manifest.get('n_items')} items with hash "
                f"{str(manifest.get('content_hash'))[:12]}"
            )
        )
        raise RetrievalError(
            f"{directory} holds {what}, but the pool has {len(items)} items with hash "
            f"{digest[:12]} ({method}); rebuild it (toollearn retrieve build) or drop strict"
        )
    start = time.perf_counter()
    retriever = build_retriever(method, items, texts, encoder=encoder, **options)
    built = {
        "format": INDEX_FORMAT,
        "content_hash": digest,
        "spec": spec,
        "n_items": len(items),
        "first_keys": list(keys[:3]),
        "build_seconds": round(time.perf_counter() - start, 3),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    _write(directory, retriever, built)
    return retriever, False


def read_manifest(directory: str | Path) -> dict[str, Any]:
    """The manifest of a saved index (RetrievalError when there is none)."""
    manifest = _read_manifest(Path(directory))
    if manifest is None:
        raise RetrievalError(f"no index at {directory}; build one with `toollearn retrieve build`")
    return manifest
