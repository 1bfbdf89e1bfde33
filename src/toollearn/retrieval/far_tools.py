"""Tools to show beside the right ones that never fit the request themselves.

A tool is kept out of a request's list when its text's cosine with a gold tool's text (the
embedded MiniLM, as released) is at or above `NEAR_TOOL`, or when it shares the gold tool's
category (a Seal-Tools sub-field): the general suite's distractors and `datagen general`'s.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from toollearn.core.types import Tool

NEAR_TOOL = 0.5


class Distractors:
    """Tools to show beside gold ones, never close to any of them (see the module doc)."""

    def __init__(self, tools: Sequence[tuple[str, Tool]], encoder: Any = None):
        from toollearn.retrieval.text import tool_text

        self.keys = [k for k, _ in tools]
        self.tools = dict(tools)
        if encoder is None:
            from toollearn.retrieval.dense import MiniLMEncoder

            encoder = MiniLMEncoder()
        texts = [tool_text(t) for _, t in tools]
        self.vectors = np.asarray(encoder.encode(texts), dtype=np.float32)
        self.row = {k: i for i, k in enumerate(self.keys)}
        self.encoder = encoder

    def far(self, gold: Sequence[str], exclude: Sequence[str] = ()) -> list[str]:
        """Keys of tools far from every gold key (not one of them, nor in `exclude`)."""
        if not gold:
            return [k for k in self.keys if k not in exclude]
        sims = self.vectors @ self.vectors[[self.row[g] for g in gold]].T
        fields = {self.tools[g].category for g in gold if self.tools[g].category}
        skip = set(gold) | set(exclude)
        return [k for k, s in zip(self.keys, sims.max(axis=1))
                if s < NEAR_TOOL and k not in skip
                and not (self.tools[k].category and self.tools[k].category in fields)]  # fmt: skip

    def draw(self, gold: Sequence[str], n: int, rng: random.Random,
             exclude: Sequence[str] = ()) -> list[str]:  # fmt: skip
        """n far tools at random (fewer when not enough are far), names unlike the gold's."""
        names = {self.tools[g].name for g in gold}
        pool = [k for k in self.far(gold, exclude) if self.tools[k].name not in names]
        chosen: list[str] = []
        for k in rng.sample(pool, min(len(pool), 4 * n)):
            if self.tools[k].name not in names:
                chosen.append(k)
                names.add(self.tools[k].name)
            if len(chosen) == n:
                break
        return chosen
