"""SambaNova ToolBench's API selection complexity score (paper Appendix D).

For a test program t and a demonstration e (each the list of API functions it calls, repeats
counted separately), p(t|e) = (1/2)^|e| * (1/|D|)^|t \\ e|: every call of e is kept or dropped
with probability 1/2 and every call of t that e does not cover (multiset difference) is drawn
from the |D| API functions. d(t, e) = -log p(t|e); the score is the mean over tests of the
minimum over demonstrations of d.

Log base: 2. The paper does not state it, but its alignment-data scores (Table 10) are 1.0 for
The Cat API and 1.1 for Open Weather, single-call tasks whose training data covers (nearly) every
API option: a covered single call costs exactly log(2), which is 1.0 only in base 2 (0.69 in
base e, 0.30 in base 10; base 10 also cannot reach Open Weather's 2.2 in Table 4 with |D| = 37,
whose maximum is log10(2 * 37) = 1.87). The paper's WebShop 0.0 is a stated special case
("0 by definition"); the formula itself gives at least log(2) per demonstration call.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from toollearn.core.errors import DataError


def api_distance(test: Sequence[str], demo: Sequence[str], n_apis: int, base: float = 2.0) -> float:
    """d(t, e) = |e| log(2) + |t \\ e| log(|D|), in the given log base."""
    uncovered = sum((Counter(test) - Counter(demo)).values())
    return (len(demo) * math.log(2) + uncovered * math.log(n_apis)) / math.log(base)


def api_complexity(
    tests: Sequence[Sequence[str]],
    demos: Sequence[Sequence[str]],
    n_apis: int,
    base: float = 2.0,
) -> float:
    """Mean over tests of the distance to the nearest demonstration (higher = harder)."""
    if not tests:
        raise DataError("api_complexity needs at least one test program")
    if not demos:
        raise DataError("api_complexity needs at least one demonstration program")
    if n_apis < 1:
        raise DataError(f"n_apis must be >= 1, got {n_apis}")
    total = sum(min(api_distance(t, e, n_apis, base) for e in demos) for t in tests)
    return total / len(tests)
