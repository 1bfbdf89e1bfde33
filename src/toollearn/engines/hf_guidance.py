"""llguidance as a transformers logits processor: one grammar matcher per sequence."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toollearn.core.errors import EngineError

if TYPE_CHECKING:
    from toollearn.decoding.constraint import Constraint

_FORMATS = {"gbnf": "gbnf", "json_schema": "json_schema", "regex": "regex"}


def compile_grammar(constraint: Constraint) -> str:
    """The llguidance grammar for a Constraint (GBNF converted to Lark by llguidance)."""
    from llguidance import grammar_from

    try:
        return grammar_from(_FORMATS[constraint.kind], constraint.grammar)  # type: ignore[arg-type]
    except (KeyError, ValueError) as exc:
        raise EngineError(
            f"llguidance cannot use this {constraint.kind} constraint: {exc}"
        ) from exc


class GuidanceProcessor:
    """Masks every token the grammar rejects, for each sequence of the batch."""

    def __init__(self, lltok: Any, constraint: Constraint, batch: int):
        import llguidance
        import llguidance.torch as lt

        grammar = compile_grammar(constraint)
        self.matchers = [llguidance.LLMatcher(lltok, grammar) for _ in range(batch)]
        if self.matchers[0].is_error():
            raise EngineError(f"llguidance rejected the grammar: {self.matchers[0].get_error()}")
        self.bitmask = lt.allocate_token_bitmask(batch, lltok.vocab_size)
        self._lt = lt
        self._started = False

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self._started:
            for i, m in enumerate(self.matchers):
                if not m.is_stopped():
                    m.consume_token(int(input_ids[i, -1]))
        self._started = True
        for i, m in enumerate(self.matchers):
            self._lt.fill_next_token_bitmask(m, self.bitmask, i)
        self._lt.apply_token_bitmask_inplace(scores, self.bitmask.to(scores.device))
        return scores
