"""A cross-encoder that reads a query and a tool together and scores whether the tool fits.

DEER's Call/NoCall decision asks whether any of five candidates does what the query asks. A
bi-encoder compares two vectors made apart; a cross-encoder attends across both texts at
once. This fine-tunes the embedded MiniLM into one (sentence-transformers' `CrossEncoder`, a
new one-logit head, `BinaryCrossEntropyLoss`) on labelled (query, tool) pairs from `datagen
deer` branches: the gold tool of a Call sample is 1, every other pool tool of Call and NoCall
samples 0, so the pool sampling (random, intra- or inter-cluster) decides how hard the
negatives are. The pairs come from training tools and queries only (the generators' leakage
reports). The run folder holds the model (`model/`) and `train.json` (data hashes, the samples
drawn, settings, loss, wall time); `Reranker` scores with it, `agents.call_gate` gates with it.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from toollearn.core.errors import DataError, RetrievalError
from toollearn.core.types import Tool
from toollearn.retrieval.text import DEFAULT_FIELDS, tool_text

KINDS = ("call", "nocall")


@dataclass(frozen=True)
class LabelledPair:
    """A query, a tool's text, and whether the tool does what the query asks (1.0 or 0.0)."""

    query: str
    tool: str
    label: float


def decision_samples(path: str | Path) -> list[dict[str, Any]]:
    """The Call/NoCall samples of a generated DEER dataset, as {query, tools, gold}."""
    file = Path(path)
    file = file / "data.jsonl" if file.is_dir() else file
    if not file.is_file():
        raise DataError("no generated dataset here (datagen writes data.jsonl)", str(path))
    out = []
    for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        try:
            sample = json.loads(line)
            meta = sample.get("metadata") or {}
            if meta.get("kind") not in KINDS:
                continue
            tools = [Tool.from_dict(t) for t in sample.get("tools") or []]
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise DataError(f"line {n}: not a generated sample ({exc})", str(file)) from None
        gold = meta.get("gold") if meta["kind"] == "call" else None
        if meta.get("query") and tools:
            out.append({"query": meta["query"], "tools": tools, "gold": gold})
    return out


def draw_samples(
    datasets: dict[str, int], seed: int = 0
) -> tuple[list[dict[str, Any]], list[dict]]:
    """{dataset: samples to draw (0: all)} -> the drawn samples and a record per dataset."""
    from toollearn.engines.provenance import file_record

    drawn, sources = [], []
    for path, want in datasets.items():
        samples = decision_samples(path)
        random.Random(f"{seed}:rerank:{path}").shuffle(samples)
        take = samples[:want] if want else samples
        drawn += take
        data = Path(path) / "data.jsonl" if Path(path).is_dir() else Path(path)
        sources.append({"path": str(path), "data": file_record(data),
                        "samples_available": len(samples), "samples_used": len(take)})  # fmt: skip
    return drawn, sources


def sample_pairs(samples: Sequence[dict[str, Any]]) -> list[LabelledPair]:
    """Every (query, pool tool) pair of the samples, labelled by the gold tool."""
    return [LabelledPair(s["query"], tool_text(t, DEFAULT_FIELDS), float(t.name == s["gold"]))
            for s in samples for t in s["tools"]]  # fmt: skip


@dataclass
class RerankerConfig:
    """A reranker fine-tuning run: data, steps, and where it goes."""

    output_dir: str = "runs/reranker-minilm"
    datasets: dict[str, int] | None = None  # {generated DEER dataset: samples drawn (0: all)}
    epochs: float = 1.0
    batch_size: int = 32
    learning_rate: float = 5e-5
    warmup_ratio: float = 0.1
    max_seq_length: int = 128
    seed: int = 0
    threads: int | None = None


def train_reranker(config: RerankerConfig) -> Path:
    """Fine-tune the embedded MiniLM as a cross-encoder; returns the run folder."""
    import torch
    from datasets import Dataset
    from sentence_transformers.cross_encoder import (
        CrossEncoder,
        CrossEncoderTrainer,
        CrossEncoderTrainingArguments,
    )
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    from toollearn.retrieval.dense import minilm_path
    from toollearn.retrieval.train import save_run, trainer_options

    if not config.datasets:
        raise DataError("give at least one generated DEER dataset to draw pairs from")
    if config.threads:
        torch.set_num_threads(config.threads)
    run = Path(config.output_dir)
    run.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    samples, sources = draw_samples(config.datasets, config.seed)
    pairs = sample_pairs(samples)
    if not pairs:
        raise DataError("the datasets gave no Call/NoCall samples")
    random.Random(config.seed).shuffle(pairs)
    model = CrossEncoder(str(minilm_path()), num_labels=1, max_length=config.max_seq_length,
                         device="cpu")  # fmt: skip
    args = CrossEncoderTrainingArguments(**trainer_options(config, run))
    data = Dataset.from_dict({"query": [p.query for p in pairs], "tool": [p.tool for p in pairs],
                              "label": [p.label for p in pairs]})  # fmt: skip
    positives = sum(p.label for p in pairs)
    loss = BinaryCrossEntropyLoss(model, pos_weight=torch.tensor((len(pairs) - positives) /
                                                                 max(positives, 1)))  # fmt: skip
    trainer = CrossEncoderTrainer(model=model, args=args, train_dataset=data, loss=loss)
    trainer.train()
    model.save(str(run / "model"))
    return save_run(run, trainer, config, sources, t0, kind="reranker", samples=len(samples),
                    pairs=len(pairs), positive_pairs=int(positives))  # fmt: skip


class Reranker:
    """A trained cross-encoder (`train_reranker`'s run/model), loaded offline."""

    def __init__(self, path: str | Path, threads: int | None = 1):
        import os

        from toollearn.engines.provenance import sha256_file

        self.path = Path(path)
        weights = self.path / "model.safetensors"
        if not weights.is_file():
            raise RetrievalError(f"no cross-encoder model (model.safetensors) in {path}")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        if threads:
            import torch

            torch.set_num_threads(threads)
        from sentence_transformers.cross_encoder import CrossEncoder

        self.model = CrossEncoder(str(self.path), device="cpu")
        self.model_id = f"MiniLM cross-encoder (sha256 {sha256_file(weights)[:16]})"

    def scores(self, query: str, tools: Sequence[Tool]) -> np.ndarray:
        """One logit per tool: how well it does what the query asks."""
        import torch

        texts = [[query, tool_text(t, DEFAULT_FIELDS)] for t in tools]
        logits = self.model.predict(texts, activation_fn=torch.nn.Identity(),
                                    show_progress_bar=False)  # fmt: skip
        return np.asarray(logits, dtype=np.float32).reshape(-1)
