"""Typed value comparison and one-to-one call matching, shared by the strict metrics.

Values compare by type: numbers numerically (1 == 1.0), a bool only equals a bool, strings
exactly (no normalisation), nested references by their id, lists and dicts element-wise.
Calls are matched one-to-one to maximise (first) the number of same-name pairs and (then)
the number of equal arguments over all pairs: an exact assignment, not a greedy guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toollearn.core.types import Ref, ToolCall

_EXACT_LIMIT = 12  # exact DP over subsets up to this many calls on the smaller side


def values_equal(a: Any, b: Any) -> bool:
    """Typed equality: numbers numerically, bool only with bool, refs by id, str exactly."""
    if isinstance(a, Ref) or isinstance(b, Ref):
        return isinstance(a, Ref) and isinstance(b, Ref) and a.id == b.id
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) or isinstance(b, int | float):
        return isinstance(a, int | float) and isinstance(b, int | float) and a == b
    if isinstance(a, list | tuple) or isinstance(b, list | tuple):
        return (
            isinstance(a, list | tuple)
            and isinstance(b, list | tuple)
            and len(a) == len(b)
            and all(values_equal(x, y) for x, y in zip(a, b))
        )
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(values_equal(a[k], b[k]) for k in a)
        )
    return type(a) is type(b) and a == b


def equal_arguments(pred: ToolCall, gold: ToolCall) -> int:
    """How many of `pred`'s arguments gold also has with an equal (typed) value."""
    return sum(
        1
        for k, v in pred.arguments.items()
        if k in gold.arguments and values_equal(v, gold.arguments[k])
    )


def calls_equal(pred: ToolCall, gold: ToolCall) -> bool:
    """Same name and exactly the same arguments (typed); ids and responses are ignored."""
    return pred.name == gold.name and values_equal(pred.arguments, gold.arguments)


def match_calls(pred: Sequence[ToolCall], gold: Sequence[ToolCall]) -> list[tuple[int, int]]:
    """One-to-one (pred index, gold index) pairs of same-name calls: most pairs, then most
    equal arguments; sorted by pred index."""
    total = 1 + sum(len(g.arguments) for g in gold)
    weights = [
        [total + equal_arguments(p, g) if p.name == g.name else None for g in gold] for p in pred
    ]
    return max_weight_matching(weights)


def max_weight_matching(weights: Sequence[Sequence[float | None]]) -> list[tuple[int, int]]:
    """Maximum-weight one-to-one assignment (None = not allowed) of rows to columns.

    Exact (dynamic programming over subsets of the smaller side) up to 12 on that side, which
    covers every real answer; beyond that a greedy by weight, documented as approximate.
    """
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if rows == 0 or cols == 0:
        return []
    if cols > rows:
        flipped = [[weights[r][c] for r in range(rows)] for c in range(cols)]
        return sorted((r, c) for c, r in max_weight_matching(flipped))
    if cols > _EXACT_LIMIT:
        return _greedy(weights)
    return _subset_dp(weights, cols)


def _subset_dp(weights: Sequence[Sequence[float | None]], cols: int) -> list[tuple[int, int]]:
    """Exact assignment: state = set of used columns after each row."""
    best: dict[int, tuple[float, tuple[tuple[int, int], ...]]] = {0: (0.0, ())}
    for r, row in enumerate(weights):
        nxt = dict(best)
        for mask, (score, pairs) in best.items():
            for c in range(cols):
                w = row[c]
                if w is None or mask >> c & 1:
                    continue
                key, cand = mask | 1 << c, score + w
                if key not in nxt or cand > nxt[key][0]:
                    nxt[key] = (cand, (*pairs, (r, c)))
        best = nxt
    _, pairs = max(best.values(), key=_by_score)
    return sorted(pairs)


def _by_score(item: tuple[float, tuple[tuple[int, int], ...]]) -> float:
    return item[0]


def _greedy(weights: Sequence[Sequence[float | None]]) -> list[tuple[int, int]]:
    cells = [(w, r, c) for r, row in enumerate(weights) for c, w in enumerate(row) if w is not None]
    used_r: set[int] = set()
    used_c: set[int] = set()
    pairs = []
    for _, r, c in sorted(cells, key=lambda t: (-t[0], t[1], t[2])):
        if r not in used_r and c not in used_c:
            used_r.add(r)
            used_c.add(c)
            pairs.append((r, c))
    return sorted(pairs)


def prf(correct: float, predicted: float, gold: float) -> tuple[float, float, float]:
    """Precision, recall, F1 (0.0 where a denominator is 0)."""
    p = correct / predicted if predicted else 0.0
    r = correct / gold if gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f
