"""Training data: datasets mixed by weight, encoded as the model reads them when served.

A sample becomes token ids and labels: the prompt rendered by the model's chat template
(`formats.chat`, the engines' own path) with no loss, then the target's pieces in order, the
model-written spans with loss and the inserted pieces (DEER's tool pool, a prefill) without,
then the end-of-turn token (with loss when the turn ends with a model span, so the model learns
to stop). Samples longer than `max_length` are dropped and counted, never cut.

With `merge_turns` the turns of one conversation (samples whose prompt is another sample's
prompt, its turn and what followed) become one row: the last turn's, with the loss on every
earlier model turn as well, since each earlier sample is a token prefix of it. A multi-turn
agent's trajectory then costs its length once instead of once per turn.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError
from toollearn.core.samples import TrainingSample
from toollearn.core.types import Message

IGNORE = -100
Chain = tuple[TrainingSample, ...]  # one conversation's turns, in order
Unit = TrainingSample | Chain  # what the mixture draws: a sample, or a conversation (merge_turns)


@dataclass
class Mixture:
    """The samples drawn from each dataset, with provenance."""

    train: list[Unit] = field(default_factory=list)
    eval: list[Unit] = field(default_factory=list)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def turn_chains(samples: Sequence[TrainingSample]) -> list[Chain]:
    """The samples grouped by conversation, each chain in turn order, chains in the order of
    their last turn. A sample continues another when its prompt starts with that sample's prompt
    and turn; where two samples continue the same one (a branching conversation), the first
    chain to reach it takes it."""
    first: dict[tuple[Message, ...], int] = {}
    for i, s in enumerate(samples):
        first.setdefault((*s.messages, Message("assistant", s.target)), i)
    parent: dict[int, int] = {}
    for i, s in enumerate(samples):
        for k in range(len(s.messages) - 1, 0, -1):  # the longest earlier turn it continues
            j = first.get(s.messages[: k + 1]) if s.messages[k].role == "assistant" else None
            if j is not None:
                parent[i] = j
                break
    continued = set(parent.values())
    taken: set[int] = set()
    chains = []
    for i in range(len(samples)):
        if i in continued:
            continue
        chain = [i]
        while (j := parent.get(chain[-1])) is not None and j not in taken:
            chain.append(j)
        taken.update(chain)
        chains.append(tuple(samples[j] for j in reversed(chain)))
    return chains


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
    merge_turns: bool = False,
) -> tuple[list[Unit], dict[str, Any]]:
    """The samples the mixture draws from one dataset (its `index` in `datasets`), and its
    provenance record. share: its weight over the total weight times the samples asked for
    (None: all of them). Each dataset has its own random stream, so one draw can be
    recomputed without the other datasets (what `evaluation.calibration` does).
    merge_turns: draw whole conversations (`turn_chains`) instead of samples."""
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
    turns = len(pool)
    pool = turn_chains(pool) if merge_turns else pool
    want = len(pool) if share is None else round(share)
    rng = random.Random(f"{seed}:mix:{index}")
    picked = rng.sample(pool, min(want, len(pool)))
    while len(picked) < want:  # a small dataset with a large weight repeats
        picked += rng.sample(pool, min(want - len(picked), len(pool)))
    record = {"path": str(path), "sha256": file_sha256(path), "weight": weight,
              "kinds": list(wanted), "available": len(pool), "drawn": len(picked)}  # fmt: skip
    docs = dataset_docs(path)
    if docs:  # how its prompts list tools: how the trained model must be prompted
        record["docs"] = docs
    if merge_turns:
        record.update(unit="conversation", available_turns=turns,
                      drawn_turns=sum(len(c) for c in picked))  # fmt: skip
    return picked, record


def dataset_docs(path: Path) -> str | None:
    """The tool listing style (`docs`: json or compact) a datagen dataset's prompts use, from
    its stats.json; None when it does not say."""
    stats = path.parent / "stats.json"
    try:
        docs = json.loads(stats.read_text(encoding="utf-8")).get("config", {}).get("docs")
    except (OSError, ValueError, AttributeError):
        return None
    return docs if isinstance(docs, str) else None


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
    merge_turns: bool = False,
) -> Mixture:
    """Samples of each dataset (only those of `kinds`, or of the dataset's own kinds, when
    given) in proportion to its weight (all of them when `samples` is None), shuffled with the
    seed; the first `eval_samples` of the shuffled mix are held out. merge_turns: the units
    drawn, counted and held out are conversations (`turn_chains`), not samples."""
    if not datasets:
        raise DataError("no training datasets: give datasets: {path: weight}")
    mix = Mixture()
    drawn: list[Unit] = []
    for i, (name, spec) in enumerate(datasets.items()):
        share = dataset_share(datasets, name, samples)
        picked, mix.sources[name] = draw_dataset(name, i, spec, share, seed, kinds, merge_turns)
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
        self.merged: Counter = Counter()  # merge_turns: what became of each conversation

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
        return self.kept(self.row(sample))

    def row(self, sample: TrainingSample) -> dict[str, list[int]]:
        """The sample's ids and labels, whatever their length."""
        input_ids = self.ids(self.template.render(list(sample.messages)))
        labels = [IGNORE] * len(input_ids)
        pieces = self.pieces(sample)
        for text, loss in pieces:
            piece = self.ids(text)
            input_ids += piece
            labels += piece if loss else [IGNORE] * len(piece)
        input_ids.append(self.end_id)
        labels.append(self.end_id if pieces and pieces[-1][1] else IGNORE)
        return {"input_ids": input_ids, "labels": labels}

    def kept(self, row: dict[str, list[int]]) -> dict[str, list[int]] | None:
        """The row, or None (counted in `dropped`) when it is too long or carries no loss."""
        if len(row["input_ids"]) > self.max_length:
            self.dropped["longer than max_length"] += 1
            return None
        if all(x == IGNORE for x in row["labels"]):
            self.dropped["no loss tokens"] += 1
            return None
        return row

    def encode_chain(self, chain: Chain) -> list[dict[str, list[int]]]:
        """A conversation as one row: its last turn's, with the loss of every earlier turn
        whose tokens are a prefix of it. A turn that is not (the tokenizer merged across its
        end) stays a row of its own, as do all turns of a conversation over `max_length`;
        both are counted in `merged`."""
        last = self.row(chain[-1])
        if len(last["input_ids"]) > self.max_length:
            self.merged["conversations over max_length, trained turn by turn"] += 1
            return [e for e in map(self.encode, chain) if e is not None]
        rows = []
        for sample in chain[:-1]:
            row = self.row(sample)
            n = len(row["input_ids"])
            if last["input_ids"][:n] != row["input_ids"]:
                self.merged["turns not a token prefix of their conversation"] += 1
                rows.append(row)
                continue
            own = last["labels"][:n]
            last["labels"][:n] = [b if a == IGNORE else a for a, b in zip(own, row["labels"])]
            self.merged["turns merged into a later turn's row"] += 1
        self.merged["conversations"] += 1
        return [e for e in (self.kept(r) for r in [*rows, last]) if e is not None]

    def encode_all(self, units: Sequence[Unit]) -> list[dict[str, list[int]]]:
        """The rows of samples and conversations (`encode_chain`), dropped ones left out."""
        rows = []
        for unit in units:
            if isinstance(unit, TrainingSample):
                rows += [e] if (e := self.encode(unit)) is not None else []
            else:
                rows += self.encode_chain(unit)
        return rows
