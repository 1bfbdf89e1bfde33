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

The functions live in `toollearn.apps.datasets` (re-exported here), below the evaluation layer,
so that data generation (`toollearn.datagen.apps`) can report the score of its training data.
"""

from __future__ import annotations

from toollearn.apps.datasets import api_complexity, api_distance

__all__ = ["api_complexity", "api_distance"]
