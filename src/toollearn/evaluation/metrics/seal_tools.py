"""Seal-Tools metrics: the authors' scorer (`official`, quirk for quirk) and a `strict` one.

`official` reproduces `calculate_score_ToolLearning` and the "ToolLearning" output parser of the
released evaluation code (fairyshine/Seal-Tools, LLM_Evaluation/src/llm_tools/evaluation/):
  - parsing: every ' becomes ", newlines are dropped, the first `[{"api"` (whitespace allowed
    between the tokens) up to its matching `]` is cut out, it must contain the substrings
    api, parameters and responses, then json.loads; anything else is a format failure;
  - gold: eval of the target string then a json round trip (here: ast.literal_eval, same value);
  - a predicted dict with an "api" key counts as predicted, is correct if any gold call has that
    name and is compared with the FIRST such gold call (gold calls are never consumed);
  - gold tool and parameter counts are added even when the output did not parse;
  - a parameter is correct if the matched gold call has the key and str(pred) == str(gold).
Scored on the gold targets themselves this gives Format ACC 99.71 / 99.57 / 99.54 (dev /
test_in_domain / test_out_domain): apostrophes in values break the quote replacement.
Where the original would crash (a list item that is a str or list containing "api", a number),
the item is simply not counted as a prediction.

`strict` parses JSON or Python literals (formats.answers.seal_tools.parse_calls), matches
predicted to gold calls one-to-one and compares values by type (metrics.matching); the gold
targets score 100 on every split.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.core.types import Example, Ref, ToolCall, link_refs
from toollearn.evaluation.metrics.matching import calls_equal, match_calls, prf, values_equal
from toollearn.formats.answers.seal_tools import call_from_seal, calls_to_seal, parse_calls

_OFFICIAL_START = re.compile(r'\[\s*\{\s*"api"', re.DOTALL)
_RESPONSE_MENTION = re.compile(r"API_call_\d+")

Gold = Sequence[dict[str, Any]] | Sequence[ToolCall]


# ---------------------------------------------------------------- official (authors' code)


def official_parse(text: str) -> list[Any] | None:
    """The authors' output parser ("ToolLearning" case); None is their -1 (format failure)."""
    text = text.replace("'", '"').replace("\n", "")
    found = _OFFICIAL_START.search(text)
    if found is None:
        return None
    start = found.start()
    end = _official_bracket(text, start)
    snippet = text[start : end + 1]  # end == -1 gives "" as in the original
    if "api" not in snippet or "parameters" not in snippet or "responses" not in snippet:
        return None
    try:
        return json.loads(snippet)
    except ValueError:
        return None


def _official_bracket(text: str, start: int) -> int:
    """The original's bracket matcher: counts [ and ] only, ignoring quotes; -1 if unclosed."""
    counter = -1
    for i in range(start + 1, len(text)):
        if text[i] == "[":
            counter -= 1
        elif text[i] == "]":
            counter += 1
        if counter == 0:
            return i
    return -1


def official_gold(gold: Example | str) -> list[dict[str, Any]]:
    """The gold answer as the authors read it: the target literal (an Example's
    `metadata["target"]`, or the string itself) after a json round trip; an Example without a
    target gives its gold calls as Seal-Tools dicts."""
    if isinstance(gold, Example):
        target = gold.metadata.get("target")
        if not isinstance(target, str):
            return calls_to_seal(gold.calls)
        gold = target
    return json.loads(json.dumps(ast.literal_eval(gold)))


def _gold_dicts(gold: Gold) -> list[dict[str, Any]]:
    items = list(gold)
    if items and isinstance(items[0], ToolCall):
        return calls_to_seal(items)  # type: ignore[arg-type]
    return items  # type: ignore[return-value]


def _official_instance(pred: list[Any] | None, gold: list[dict[str, Any]]) -> list[int]:
    """[parsed, tool correct, tool predicted, tool gold, param correct, predicted, gold]."""
    c = [0, 0, 0, len(gold), 0, 0, sum(len(g["parameters"]) for g in gold)]
    if pred is None:
        return c
    c[0] = 1
    for item in pred:
        if not isinstance(item, dict) or "api" not in item:
            continue
        c[2] += 1
        params = item.get("parameters")
        has_params = isinstance(params, dict)
        if has_params:
            c[5] += len(params)
        match = next((g for g in gold if g["api"] == item["api"]), None)
        if match is None:
            continue
        c[1] += 1
        if has_params:
            c[4] += sum(
                1
                for k, v in params.items()
                if k in match["parameters"] and str(v) == str(match["parameters"][k])
            )
    return c


def official_counts(outputs: Sequence[str], golds: Sequence[Gold]) -> list[list[int]]:
    """Per instance, the authors' counts: [parsed, tool correct, tool predicted, tool gold,
    param correct, param predicted, param gold] (the micro scores are ratios of their sums)."""
    _check_lengths(outputs, golds)
    return [_official_instance(official_parse(text or ""), _gold_dicts(gold))
            for text, gold in zip(outputs, golds)]  # fmt: skip


def official_scores(outputs: Sequence[str], golds: Sequence[Gold]) -> dict[str, Any]:
    """Format ACC, Tool P/R/F1, Param P/R/F1 (fractions, micro-averaged) as the authors score."""
    return _summary(len(outputs), _sums(official_counts(outputs, golds)))


def _sums(rows: Sequence[Sequence[int]]) -> list[int]:
    return [sum(col) for col in zip(*rows)] if rows else [0] * 7


def _summary(n: int, t: Sequence[int], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    tool = prf(t[1], t[2], t[3])
    param = prf(t[4], t[5], t[6])
    out: dict[str, Any] = {"n": n, "format_acc": t[0] / n if n else 0.0}
    out.update(zip(("tool_p", "tool_r", "tool_f1"), tool))
    out.update(zip(("param_p", "param_r", "param_f1"), param))
    out.update(extra or {})
    names = ("parsed", "tool_correct", "tool_pred", "tool_gold")
    names += ("param_correct", "param_pred", "param_gold")
    out["counts"] = dict(zip(names, t))
    return out


def _check_lengths(outputs: Sequence[Any], golds: Sequence[Any]) -> None:
    if len(outputs) != len(golds):
        raise ValueError(f"{len(outputs)} outputs but {len(golds)} gold answers")


# ---------------------------------------------------------------- strict


def gold_calls(gold: Gold) -> list[ToolCall]:
    """Gold answer as linked ToolCalls (from Seal-Tools dicts or ToolCalls)."""
    items = list(gold)
    if items and isinstance(items[0], ToolCall):
        return link_refs(items)  # type: ignore[arg-type]
    calls = [call_from_seal(d) for d in items]
    if any(c is None for c in calls):
        raise ValueError(f"gold answer is not a list of Seal-Tools calls: {items!r}")
    return link_refs(calls)  # type: ignore[arg-type]


def strict_parse(text: str) -> list[ToolCall] | None:
    """The strict parser: JSON or Python literal, first list of call dicts; None on failure."""
    try:
        return parse_calls(text or "")
    except FormatError:
        return None


def _strict_instance(pred: list[ToolCall] | None, gold: list[ToolCall]) -> tuple[list[int], bool]:
    counts = [0, 0, 0, len(gold), 0, 0, sum(len(g.arguments) for g in gold)]
    if pred is None:
        return counts, False
    pairs = match_calls(pred, gold)
    counts[0], counts[1], counts[2] = 1, len(pairs), len(pred)
    counts[5] = sum(len(p.arguments) for p in pred)
    for i, j in pairs:
        gargs = gold[j].arguments
        counts[4] += sum(
            1 for k, v in pred[i].arguments.items() if k in gargs and values_equal(v, gargs[k])
        )
    exact = len(pred) == len(gold) == len(pairs) and all(
        calls_equal(pred[i], gold[j]) for i, j in pairs
    )
    return counts, exact


def strict_counts(outputs: Sequence[str], golds: Sequence[Gold]) -> list[list[int]]:
    """Per instance, the strict scorer's counts (as `official_counts`) and an eighth: 1 if the
    answer equals gold as a set of calls."""
    _check_lengths(outputs, golds)
    rows = []
    for text, gold in zip(outputs, golds):
        counts, exact = _strict_instance(strict_parse(text), gold_calls(gold))
        rows.append([*counts, int(exact)])
    return rows


def strict_scores(outputs: Sequence[str], golds: Sequence[Gold]) -> dict[str, Any]:
    """Format ACC, Tool and Param P/R/F1 with one-to-one matching and typed values, plus
    exact_acc (instances whose answer equals gold as a set of calls)."""
    rows = strict_counts(outputs, golds)
    n, exact = len(rows), sum(r[7] for r in rows)
    return _summary(n, _sums([r[:7] for r in rows]), {"exact_acc": exact / n if n else 0.0})


# ---------------------------------------------------------------- breakdowns


def is_nested(gold: Gold) -> bool:
    """True if any gold argument refers to an earlier call's output: a `Ref`, or a string
    containing "API_call_k" (dev-difficult-207 writes "API_call_0 response"); this gives the
    dataset's counts of nested instances, 28 / 30 / 27."""
    return any(_mentions_response(c.arguments) for c in gold_calls(gold))


def _mentions_response(value: Any) -> bool:
    if isinstance(value, Ref):
        return True
    if isinstance(value, str):
        return _RESPONSE_MENTION.search(value) is not None
    if isinstance(value, list | tuple):
        return any(_mentions_response(v) for v in value)
    if isinstance(value, dict):
        return any(_mentions_response(v) for v in value.values())
    return False


def difficulty_from_id(example_id: str) -> str:
    """The difficulty ("easy" / "difficult") in a Seal-Tools id, as the authors split; else ""."""
    if "easy" in example_id:
        return "easy"
    return "difficult" if "difficult" in example_id else ""


Scorer = Callable[[Sequence[str], Sequence[Gold]], dict[str, Any]]


def scores_by_group(
    scorer: Scorer,
    outputs: Sequence[str],
    golds: Sequence[Gold],
    difficulties: Sequence[str],
) -> dict[str, dict[str, Any]]:
    """The scorer on all instances and on the easy / difficult / nested subsets (each present
    only when non-empty)."""
    _check_lengths(outputs, golds)
    groups: dict[str, list[int]] = {"all": list(range(len(outputs)))}
    for i, (gold, level) in enumerate(zip(golds, difficulties)):
        if level:
            groups.setdefault(level, []).append(i)
        if is_nested(gold):
            groups.setdefault("nested", []).append(i)
    order = ["all", "easy", "difficult", "nested"]
    names = [g for g in order if g in groups] + sorted(set(groups) - set(order))
    return {
        name: scorer([outputs[i] for i in groups[name]], [golds[i] for i in groups[name]])
        for name in names
    }
