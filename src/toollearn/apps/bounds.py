"""Check the direction of a program's bound calls against the goal's wording.

The tuned apps model writes most failing programs with a bound the wrong way round: "under
$900,000" as `set_min_price(900000)`, "$1,000 to $2,000 a month" as `set_max_price(1000)`
alone (`results/apps-errors/criteria_errors.md`). This check reads what the goal says about
each number, with English cue words fixed in advance (not tuned on any test goal), and fixes
the program where it contradicts them:

- a number the goal bounds from above ("under", "at most", "no more than", "up to", "max
  price", "... or less") or below ("at least", "over", "no less than", "nothing cheaper
  than", "minimum", "1200+", "... or more") that the program passes to the other side's
  setter (`set_min_*` for an upper bound) moves to the counterpart setter (`set_max_*`), when
  the app has one and the program does not call it already;
- a range ("$1,000 to $2,000", "$150-$300", "between X and Y", "from X to Y") whose ends the
  program passes to a min/max pair of setters gets the low end on the min setter and the high
  end on the max setter: a setter it left out is added after the one it wrote, ends passed
  the other way round (`set_min_price(2000)`, `set_max_price(1000)`) trade setters.

Only calls with a bare number whose value the goal states once with a cue are touched;
everything else is left as written. Each change is returned with its reason, so a run records
what the check did beside the model's own program (`unchecked_output`).

Two more label-free checks, the triggers for asking the model again (`apps.generator`):
`missing_numbers`, the numbers the goal states (both ends of a range) that the program does not
pass anywhere (`results/apps-bounds/coverage.md`), and `repeated_numbers`, the numbers it
passes to more setters than the goal states them ("floor 15" as `set_floor_number(15)` and
`set_min_square_feet(15)`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from toollearn.apps.base import App
from toollearn.core.errors import FormatError
from toollearn.formats.answers.programs import Statement, clean_program, parse_program

__all__ = [
    "Mention",
    "check_bounds",
    "goal_mentions",
    "missing_numbers",
    "repeated_numbers",
    "setter_side",
]

_NUMBER = re.compile(r"(?<![\w.])\$?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\+)?")
# Cue phrases, longest (negated) forms first so "no more than" is not read as "more than".
_UPPER = (
    r"no more than|not more than|nothing (?:more|higher|above|over) than|no (?:larger|bigger|"
    r"higher|greater|longer|pricier) than|not (?:over|above|exceeding)|at most|up to|under|"
    r"below|less than|fewer than|cheaper than|lower than|smaller than|within|maximum(?: of)?|"
    r"max(?:imum)?|cap(?:ped at)?|budget of|tops"
)
_LOWER = (
    r"no less than|not less than|no (?:smaller|cheaper|lower|shorter|fewer) than|nothing "
    r"(?:cheaper|smaller|less|lower) than|at least|more than|over|above|greater than|higher "
    r"than|larger than|bigger than|minimum(?: of)?|min|starting (?:at|from)|upwards of|from"
)
_CUE_BEFORE = re.compile(rf"\b(?:(?P<max>{_UPPER})|(?P<min>{_LOWER}))\b")
# After the number, past its unit only: "25 minutes or less", "30 minutes max", "500 or more".
_CUE_AFTER = re.compile(
    r"\s*(?:minutes?|mins?|square feet|sq\.? ?ft|feet|dollars?|each|a night|per night|nightly|"
    r"a month|per month|monthly)?\s*(?:(?P<max>or (?:less|fewer|under|below|cheaper)|max(?:imum)?|"
    r"at most|tops)|(?P<min>or (?:more|above|over|higher)|minimum|at least|and up))\b"
)
# Words that may stand between a cue and its number: "a maximum price of $900,000".
_FILLER = re.compile(r"(?:\s+(?:a|an|the|of|price|priced|cost|costs|costing|rent|budget))*\s*$")
_RANGE_JOIN = re.compile(r"\s*(to|-|–|and)\s*\$?")
_PHRASE_END = re.compile(r"[,;:()!?]|\.(?!\d)")
_DOLLARS = re.compile(r"\s*(?:dollars?|usd)\b")
_LITERAL = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")  # a number literal in a program


@dataclass(frozen=True)
class Mention:
    """A number the goal states: its value, the side it bounds ("min", "max" or None), the cue
    that says so, whether it is an amount of money ("$"), and for a range end the other end."""

    value: float
    side: str | None
    cue: str
    money: bool = False
    other: float | None = None


def _value(match: re.Match[str]) -> float:
    return float(match.group(1).replace(",", "") + (match.group(2) or ""))


def _money(text: str, match: re.Match[str]) -> bool:
    """An amount of money: "$900,000", "900000 dollars"."""
    return match.group(0).startswith("$") or bool(_DOLLARS.match(text, match.end()))


def _range_end(text: str, m: re.Match[str], nxt: re.Match[str] | None, words: str) -> bool:
    """Whether `m` opens a range that `nxt` closes: "X to Y", "X-Y", "between X and Y",
    with X < Y."""
    if nxt is None:
        return False
    join = _RANGE_JOIN.fullmatch(text[m.end() : nxt.start(1)])
    if join is None or (join.group(1) == "and" and not words.endswith("between")):
        return False
    return _value(m) < _value(nxt)


def _cue(words: str, after: str) -> tuple[str | None, str]:
    """(side, cue) from the words before a number (a cue followed only by filler words) or,
    failing that, the words after it (past its unit)."""
    cues = [c for c in _CUE_BEFORE.finditer(words) if _FILLER.fullmatch(words[c.end() :])]
    if cues:
        return ("max" if cues[-1].group("max") else "min"), cues[-1].group(0) + " "
    cue = _CUE_AFTER.match(after)
    if cue is None:
        return None, ""
    return ("max" if cue.group("max") else "min"), cue.group(0)


def goal_mentions(goal: str) -> list[Mention]:
    """Every number in the goal with the side its wording bounds (see the module doc)."""
    text = goal.lower()
    matches = list(_NUMBER.finditer(text))
    out: list[Mention] = []
    skip = False
    for i, m in enumerate(matches):
        if skip:  # the high end of a range, read with its low end
            skip = False
            continue
        start = matches[i - 1].end() if i else 0
        before = _PHRASE_END.split(text[start : m.start()])[-1]
        words = " ".join(before.replace("$", " ").split()[-4:])
        nxt = matches[i + 1] if i + 1 < len(matches) else None
        if _range_end(text, m, nxt, words):
            phrase, low, high = text[m.start() : nxt.end()], _value(m), _value(nxt)
            money = _money(text, m) or _money(text, nxt)  # "1,000 to 2,000 dollars"
            out.append(Mention(low, "min", phrase, money, high))
            out.append(Mention(high, "max", phrase, money, low))
            skip = True
        elif m.group(3):  # "1200+ square feet"
            out.append(Mention(_value(m), "min", m.group(0), _money(text, m)))
        else:
            after = _PHRASE_END.split(text[m.end() : nxt.start() if nxt else len(text)])[0]
            side, cue = _cue(words, after)
            shown = (cue + m.group(0) if cue.endswith(" ") else m.group(0) + cue) if side else ""
            out.append(Mention(_value(m), side, shown, _money(text, m)))
    return out


def setter_side(fn: str) -> tuple[str, str] | None:
    """("min" | "max", the counterpart's name) for a bound setter, else None."""
    parts = fn.split("_")
    for side, other in (("min", "max"), ("max", "min")):
        if side in parts:
            return side, "_".join(other if p == side else p for p in parts)
    return None


def _number(st: Statement) -> float | None:
    if st.target or len(st.args) != 1 or st.kwargs or st.args[0].kind != "const":
        return None
    data = st.args[0].data
    if isinstance(data, bool) or not isinstance(data, int | float):
        return None
    return float(data)


def _literal(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


def _mention(mentions: list[Mention], fn: str, value: float) -> Mention | None:
    """The goal's word on a setter's number: the mentions of that value of the setter's kind
    (money for a `*price*` setter, else not), when they all bound the same side; a range end
    only when it is the value's one mention of that kind."""
    same = [m for m in mentions if m.value == value and m.money == ("price" in fn.split("_"))]
    sides = {m.side for m in same}
    if not same or len(sides) != 1 or None in sides:
        return None
    if len(same) > 1 and any(m.other is not None for m in same):
        return None
    return same[0]


def check_bounds(program: str, goal: str, app: type[App]) -> tuple[str, list[dict[str, str]]]:
    """The program with its bound calls turned to the side the goal states, and the changes
    (`{"from", "to", "reason"}`); a program that does not parse comes back unchanged."""
    code = clean_program(program)
    try:
        statements = parse_program(code, app.api_names(), app.helpers)
    except FormatError:
        return program, []
    names = set(app.api_names())
    mentions = goal_mentions(goal)
    lines = code.split("\n")
    called = Counter(st.fn for st in statements if not st.target)
    changes: list[dict[str, str]] = []
    added: dict[int, list[str]] = {}
    done: set[int] = set()  # statements already turned (a reversed range turns two)

    def turn(st: Statement, target: str, value: float, reason: str) -> None:
        lines[st.line - 1] = lines[st.line - 1].replace(f"{st.fn}(", f"{target}(", 1)
        called[st.fn] -= 1
        called[target] += 1
        done.add(st.line)
        to = f"{target}({_literal(value)})"
        changes.append({"from": f"{st.fn}({_literal(value)})", "to": to, "reason": reason})

    for st in statements:
        side, value = (None if st.target else setter_side(st.fn)), _number(st)
        if side is None or value is None or st.line in done:
            continue
        own, counterpart = side
        mention = _mention(mentions, st.fn, value)
        if mention is None or counterpart not in names:
            continue
        target = st.fn if mention.side == own else counterpart
        if target != st.fn:
            pair = [o for o in statements if o.fn == counterpart and o.line != st.line]
            reversed_range = (
                mention.other is not None
                and len(pair) == called[counterpart] == 1
                and _number(pair[0]) == mention.other
            )
            if called[counterpart] and not reversed_range:
                continue
            if reversed_range:  # "$1,000 to $2,000" as min 2000, max 1000: both setters turn
                turn(pair[0], st.fn, mention.other, mention.cue)
            turn(st, target, value, mention.cue)
        other = counterpart if target == st.fn else st.fn
        if mention.other is not None and not called[other]:
            call = f"{other}({_literal(mention.other)})"
            added.setdefault(st.line - 1, []).append(f"API.{call}")
            called[other] += 1
            changes.append({"from": "", "to": call, "reason": mention.cue})
    for index in sorted(added, reverse=True):
        lines[index + 1 : index + 1] = added[index]
    return ("\n".join(lines) if changes else program), changes


def missing_numbers(goal: str, program: str) -> list[float]:
    """The numbers the goal states (`goal_mentions`, both ends of a range), in order and once
    each, that are not among the program's number literals: "with 3 bedrooms" left out."""
    used = {float(x) for x in _LITERAL.findall(program)}
    stated = [v for m in goal_mentions(goal) for v in (m.value, m.other) if v is not None]
    return [v for i, v in enumerate(stated) if v not in used and v not in stated[:i]]


def repeated_numbers(goal: str, program: str, app: type[App]) -> list[float]:
    """The numbers the program passes to more calls (a call with one bare number) than the goal
    states them (a number it does not state at all included), in order; none for a program
    that does not parse."""
    try:
        statements = parse_program(clean_program(program), app.api_names(), app.helpers)
    except FormatError:
        return []
    used = Counter(v for st in statements if (v := _number(st)) is not None)
    stated = Counter(m.value for m in goal_mentions(goal))
    return [v for v, n in used.items() if n > stated[v]]
