"""Training data: datasets mixed by weight, encoded as the model reads them when served.

A sample becomes token ids and labels: the prompt rendered by the model's chat template
(`formats.chat`, the engines' own path) with no loss, then the target's pieces in order, the
model-written spans with loss and the inserted pieces (DEER's tool pool, a prefill) without,
then the end-of-turn token (with loss when the turn ends with a model span, so the model learns
to stop). Samples longer than `max_length` are dropped and counted, never cut.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError
from toollearn.core.samples import TrainingSample

IGNORE = -100


@dataclass
class Mixture:
    """The samples drawn from each dataset, with provenance."""

    train: list[TrainingSample] = field(default_factory=list)
    eval: list[TrainingSample] = field(default_factory=list)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def dataset_spec(name: str, spec: Any) -> tuple[float, tuple[str, ...]]:
    """(weight, kinds) of one `datasets` entry: a number, or {weight: W, kinds: [...]}."""
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - {"weight", "kinds"})
        if unknown:
            raise DataError(f"unknown dataset keys {unknown} (weight, kinds)", name)
        weight, kinds = spec.get("weight", 1.0), spec.get("kinds") or ()
        kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    else:
        weight, kinds = spec, ()
    try:
        weight = float(weight)
    except (TypeError, ValueError):
        raise DataError(f"a dataset weight is a number, not {weight!r}", name) from None
    if weight <= 0:
        raise DataError("a dataset weight is positive", name)
    return weight, kinds


def draw_dataset(
    name: str,
    index: int,
    spec: Any,
    share: float | None,
    seed: int,
    kinds: Sequence[str] = (),
) -> tuple[list[TrainingSample], dict[str, Any]]:
    """The samples the mixture draws from one dataset (its `index` in `datasets`), and its
    provenance record. share: its weight over the total weight times the samples asked for
    (None: all of them). Each dataset has its own random stream, so one draw can be
    recomputed without the other datasets (what `evaluation.calibration` does)."""
    from toollearn.datagen.dataset import read_dataset

    weight, own_kinds = dataset_spec(name, spec)
    path = Path(name)
    path = path / "data.jsonl" if path.is_dir() else path
    if not path.is_file():
        raise DataError("training dataset not found", str(path))
    pool = read_dataset(path)
    wanted = own_kinds or tuple(kinds)
    if wanted:
        pool = [s for s in pool if s.metadata.get("kind") in wanted]
    if not pool:
        raise DataError(f"no samples of kinds {list(wanted)}", str(path))
    want = len(pool) if share is None else round(share)
    rng = random.Random(f"{seed}:mix:{index}")
    picked = rng.sample(pool, min(want, len(pool)))
    while len(picked) < want:  # a small dataset with a large weight repeats
        picked += rng.sample(pool, min(want - len(picked), len(pool)))
    record = {"path": str(path), "sha256": file_sha256(path), "weight": weight,
              "kinds": list(wanted), "available": len(pool), "drawn": len(picked)}  # fmt: skip
    return picked, record


def dataset_share(datasets: dict[str, Any], name: str, samples: int | None) -> float | None:
    """How many samples the mixture draws from `name` (None: all of them)."""
    if samples is None:
        return None
    total = sum(dataset_spec(n, spec)[0] for n, spec in datasets.items())
    return samples * dataset_spec(name, datasets[name])[0] / total


def load_mixture(
    datasets: dict[str, Any],
    samples: int | None,
    eval_samples: int,
    seed: int,
    kinds: Sequence[str] = (),
) -> Mixture:
    """Samples of each dataset (only those of `kinds`, or of the dataset's own kinds, when
    given) in proportion to its weight (all of them when `samples` is None), shuffled with the
    seed; the first `eval_samples` of the shuffled mix are held out."""
    if not datasets:
        raise DataError("no training datasets: give datasets: {path: weight}")
    mix = Mixture()
    drawn: list[TrainingSample] = []
    for i, (name, spec) in enumerate(datasets.items()):
        share = dataset_share(datasets, name, samples)
        picked, mix.sources[name] = draw_dataset(name, i, spec, share, seed, kinds)
        drawn += picked
    random.Random(f"{seed}:shuffle").shuffle(drawn)
    mix.eval, mix.train = drawn[:eval_samples], drawn[eval_samples:]
    return mix


class SampleEncoder:
    """TrainingSample -> {"input_ids", "labels"} with the model's tokenizer and template."""

    def __init__(self, tokenizer: Any, template: Any, max_length: int, loss_on: str = "spans"):
        self.tok, self.template = tokenizer, template
        self.max_length, self.loss_on = max_length, loss_on
        end = self.ids(template.turn_end() or tokenizer.eos_token)
        if not end:
            raise DataError("the chat template has no end-of-turn token to train")
        self.end_id = end[0]  # the template's end of an assistant turn, not the tokenizer's eos
        self.dropped: Counter = Counter()

    def ids(self, text: str) -> list[int]:
        return list(self.tok(text, add_special_tokens=False)["input_ids"]) if text else []

    def pieces(self, sample: TrainingSample) -> list[tuple[str, bool]]:
        """The target as (text, carries loss) pieces."""
        if self.loss_on == "target":
            return [(sample.target, True)]
        out, pos = [], 0
        for start, end in sample.spans:
            if start > pos:
                out.append((sample.target[pos:start], False))
            out.append((sample.target[start:end], True))
            pos = end
        if pos < len(sample.target):
            out.append((sample.target[pos:], False))
        return out

    def encode(self, sample: TrainingSample) -> dict[str, list[int]] | None:
        """The encoded sample, or None (counted in `dropped`) when it is too long."""
        input_ids = self.ids(self.template.render(list(sample.messages)))
        labels = [IGNORE] * len(input_ids)
        pieces = self.pieces(sample)
        for text, loss in pieces:
            piece = self.ids(text)
            input_ids += piece
            labels += piece if loss else [IGNORE] * len(piece)
        input_ids.append(self.end_id)
        labels.append(self.end_id if pieces and pieces[-1][1] else IGNORE)
        if len(input_ids) > self.max_length:
            self.dropped["longer than max_length"] += 1
            return None
        if all(x == IGNORE for x in labels):
            self.dropped["no loss tokens"] += 1
            return None
        return {"input_ids": input_ids, "labels": labels}

    def encode_all(self, samples: Sequence[TrainingSample]) -> list[dict[str, list[int]]]:
        return [e for e in (self.encode(s) for s in samples) if e is not None]
