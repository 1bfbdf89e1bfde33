"""What decides DEER's Search/NoSearch branch when the agent is given a search threshold.

Each gate scores a query and returns a dict holding `nosearch_margin` (higher: more reason to
answer from the model's own knowledge) and what it was computed from; the agent skips the
search when the margin exceeds its threshold (`DecisionAgent(search_threshold=...)`), and
`toollearn eval deer-calibrate --decision search` picks that threshold on held-out training
examples.
- `ClassifierSearchGate`: a logistic regression over the query's MiniLM embedding, fitted on
  generated DEER branches (`datagen deer`: tool requests of training tools against general
  queries; `fit_search_classifier`); the margin is minus its log-odds of "search". Fitted with
  `length=True` it also reads the query's length (log of its word count, standardised on the
  fitting queries): MiniLM's normalised mean-pooled embedding hardly encodes it, and a tool
  request is short while an evolved general instruction is long.
- `LibrarySearchGate`: minus the query's best cosine similarity to any tool of the agent's
  whole library ("nothing the agent has is close to the request").
A fitted classifier is a small .npz (the weights, the bias, the encoder's id and the hash of the
data it was fitted on); it is only used with the encoder it was fitted with.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from toollearn.core.errors import DataError
from toollearn.core.types import Tool

SEARCH_GATES = ("classifier", "similarity")


class SearchGate(Protocol):
    name: str

    def score(self, query: str) -> dict: ...

    def describe(self) -> dict[str, Any]: ...


def _encoder(model: str | Path | None, threads: int | None) -> Any:
    from toollearn.retrieval.dense import MiniLMEncoder

    return MiniLMEncoder(path=model, threads=threads)


class ClassifierSearchGate:
    """The NoSearch margin as minus a logistic regression's log-odds over the query embedding."""

    name = "classifier"

    def __init__(self, path: str | Path, threads: int | None = 1):
        self.path = Path(path)
        try:
            with np.load(self.path, allow_pickle=False) as f:
                self.coef, self.bias = f["coef"].astype(np.float32), float(f["bias"])
                self.meta = json.loads(str(f["meta"]))
        except (OSError, KeyError, ValueError) as exc:
            raise DataError(f"not a search-gate classifier: {exc}", str(path)) from exc
        from toollearn.engines.provenance import sha256_file

        self.sha256 = sha256_file(self.path)
        encoder = self.meta.get("encoder_path")
        self.encoder = _encoder(encoder, threads)
        if self.encoder.model_id != self.meta.get("encoder"):
            raise DataError(f"fitted with {self.meta.get('encoder')!r}, loaded with "
                            f"{self.encoder.model_id!r}", str(path))  # fmt: skip

    def logits(self, queries: Sequence[str]) -> np.ndarray:
        """Log-odds that each query needs a search."""
        return features(self.encoder, queries, self.meta.get("length")) @ self.coef + self.bias

    def score(self, query: str) -> dict:
        logit = float(self.logits([query])[0])
        return {"search_logit": round(logit, 4), "nosearch_margin": round(-logit, 4)}

    def describe(self) -> dict[str, Any]:
        return {"search_gate": self.name, "classifier": str(self.path),
                "classifier_sha256": self.sha256, "encoder": self.meta["encoder"],
                **({"length_feature": True} if "length" in self.meta else {})}  # fmt: skip


def log_words(queries: Sequence[str]) -> np.ndarray:
    """log(1 + the number of whitespace-separated words) of each query."""
    return np.log1p(np.array([len(q.split()) for q in queries], dtype=np.float32))


def features(encoder: Any, queries: Sequence[str], length: dict[str, float] | None) -> np.ndarray:
    """The classifier's input: the MiniLM embeddings, and with `length` ({mean, std} of the
    fitting queries' log word counts) the standardised log word count as one more column."""
    vectors = encoder.encode(list(queries))
    if not length:
        return vectors
    column = (log_words(queries) - length["mean"]) / length["std"]
    return np.hstack([vectors, column[:, None].astype(vectors.dtype)])


class LibrarySearchGate:
    """The NoSearch margin as minus the query's best cosine similarity to a library tool."""

    name = "similarity"

    def __init__(self, library: Sequence[Tool], model: str | Path | None = None,
                 threads: int | None = 1):  # fmt: skip
        from toollearn.retrieval.text import DEFAULT_FIELDS, tool_text

        if not library:
            raise DataError("the similarity search gate needs a tool library")
        self.names = [t.name for t in library]
        self.encoder = _encoder(model, threads)
        self.vectors = self.encoder.encode([tool_text(t, DEFAULT_FIELDS) for t in library])

    def score(self, query: str) -> dict:
        sims = self.vectors @ self.encoder.encode([query])[0]
        best = int(sims.argmax())
        return {
            "max_similarity": round(float(sims[best]), 4),
            "closest_tool": self.names[best],
            "nosearch_margin": round(-float(sims[best]), 4),
        }

    def describe(self) -> dict[str, Any]:
        return {"search_gate": self.name, "encoder": self.encoder.model_id,
                "library_tools": len(self.names)}  # fmt: skip


def fit_search_classifier(
    queries: Sequence[str], search: Sequence[bool], out: str | Path,
    data_meta: dict[str, Any], model: str | Path | None = None, threads: int | None = 1,
    length: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Fit the classifier (scikit-learn's LogisticRegressionCV, balanced classes, 5 folds) on
    queries labelled search / no search (with `length`, the query's length too), save it to
    `out` (.npz) and return its record."""
    from sklearn.linear_model import LogisticRegressionCV

    labels = np.asarray(search, dtype=bool)
    if labels.all() or not labels.any():
        raise DataError("fitting a search gate needs both search and no-search queries")
    encoder = _encoder(model, threads)
    stats = None
    if length:
        logs = log_words(queries)
        stats = {"mean": float(logs.mean()), "std": float(logs.std()) or 1.0}
    # scikit-learn 1.9 warns unless the new attribute layout is chosen; older ones lack the option
    newer = "use_legacy_attributes" in inspect.signature(LogisticRegressionCV).parameters
    clf = LogisticRegressionCV(
        Cs=[0.1, 1.0, 10.0],
        cv=5,
        class_weight="balanced",
        max_iter=3000,
        **({"use_legacy_attributes": False} if newer else {}),
    ).fit(features(encoder, queries, stats), labels)
    meta = {
        "encoder": encoder.model_id,
        **({"length": stats} if stats else {}),
        "encoder_path": str(model) if model else None,
        "C": float(np.ravel(clf.C_)[0]),
        "fitted_on": {
            "queries": len(labels),
            "search": int(labels.sum()),
            "no_search": int((~labels).sum()),
        },
        **data_meta,
    }
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as fh:  # np.savez would append .npz to a name without it
        np.savez(fh, coef=clf.coef_[0].astype(np.float32), bias=np.float32(clf.intercept_[0]),
                 meta=np.array(json.dumps(meta)))  # fmt: skip
    return meta


def make_search_gate(
    spec: str, library: Sequence[Tool] = (), threads: int | None = 1
) -> SearchGate:
    """`classifier:FILE` (a fitted .npz), `similarity` or `similarity:MODEL_DIR` (a fine-tuned
    MiniLM) over `library`."""
    kind, _, path = spec.partition(":")
    if kind == "classifier" and path:
        return ClassifierSearchGate(path, threads)
    if kind == "similarity":
        return LibrarySearchGate(library, path or None, threads)
    raise ValueError(
        f"unknown search gate {spec!r}: classifier:FILE, similarity or similarity:MODEL_DIR"
    )
