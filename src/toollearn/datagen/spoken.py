"""How people write a value, and whether a conversation states it.

`forms(value, kind)` lists ways a request may state a value (a date in words, a time on the
12-hour clock, a small number in words, "a week" for 7 nights, "euros" for EUR, "Japan" for
JP, ...); the request writer picks one. `grounded(value, text, kind)` is the checker's side:
whether `text` states `value` in any of those forms, or in the forms a dataset's own dialogues
use ("the 8th of March", "7 pm"), so one rule serves generated and imported samples alike.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from toollearn.core.words import literal_text

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                "seventeen", "eighteen", "nineteen", "twenty")  # fmt: skip
TENS = {20: "twenty", 30: "thirty", 40: "forty", 50: "fifty", 60: "sixty", 70: "seventy",
        80: "eighty", 90: "ninety"}  # fmt: skip
# numbers people say in words for a unit ("a week" of nights or days)
UNIT_WORDS = {
    "nights": {7: ["a week"], 14: ["two weeks", "a fortnight"], 1: ["one night", "a night"]},
    "days": {7: ["a week"], 14: ["two weeks", "a fortnight"], 1: ["a day", "one day"]},
    "minutes": {30: ["half an hour"], 60: ["an hour", "one hour"], 90: ["an hour and a half"],
                120: ["two hours"], 15: ["a quarter of an hour", "quarter of an hour"],
                45: ["three quarters of an hour"], 180: ["three hours"]},
    "people": {2: ["two of us", "a couple", "me and my partner"], 1: ["just me", "one person"]},
}  # fmt: skip
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


def number_words(n: int) -> str | None:
    """0..99 in words ("forty-two"); None for others."""
    if not 0 <= n < 100:
        return None
    if n <= 20:
        return NUMBER_WORDS[n]
    tens, unit = divmod(n, 10)
    return TENS[tens * 10] + (f"-{NUMBER_WORDS[unit]}" if unit else "")


def ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def date_forms(value: str) -> list[str]:
    """An ISO date as people write it ("May 3, 2026", "3 May 2026", "May 3rd, 2026", "the 3rd
    of May 2026", "Sunday, May 3, 2026"); [] where `value` is not an ISO date."""
    import datetime as dt

    m = _ISO_DATE.match(value)
    if not m:
        return []
    try:
        day = dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return []
    month, d, y = MONTHS[day.month - 1], day.day, day.year
    weekday = WEEKDAYS[day.weekday()]
    return [f"{month} {d}, {y}", f"{d} {month} {y}", f"{month} {ordinal(d)}, {y}",
            f"the {ordinal(d)} of {month} {y}", f"{weekday}, {month} {d}, {y}",
            f"{month[:3]} {d}, {y}", f"{d} {month[:3]} {y}", value]  # fmt: skip


def time_forms(value: str) -> list[str]:
    """An HH:MM time as people write it ("19:30", "7:30 pm", "half past seven in the
    evening"); [] where `value` is not HH:MM."""
    m = _TIME.match(value)
    if not m:
        return []
    h, mi = int(m.group(1)), int(m.group(2))
    half = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    part = "in the morning" if h < 12 else "in the afternoon" if h < 18 else "in the evening"
    out = [f"{h:02d}:{mi:02d}", f"{h12}:{mi:02d} {half}", f"{h12}:{mi:02d}{half}"]
    if mi == 0:
        out += [f"{h12} {half}", f"{h12}{half}", f"{h12} o'clock {part}"]
        if h == 12:
            out.append("noon")
    elif mi == 30:
        out.append(f"half past {number_words(h12)} {part}")
    elif mi == 15:
        out.append(f"quarter past {number_words(h12)} {part}")
    elif mi == 45:
        out.append(f"quarter to {number_words(h12 % 12 + 1)} {part}")
    return out


def count_forms(n: int, unit: str = "") -> list[str]:
    """A count with its unit as people write it ("3 nights", "three nights", "a week")."""
    out = []
    if unit:
        singular = unit[:-1] if unit.endswith("s") and n == 1 else unit
        out.append(f"{n} {singular}")
        words = number_words(n)
        if words and n <= 12:
            out.append(f"{words} {singular}")
        out += UNIT_WORDS.get(unit, {}).get(n, [])
    else:
        out.append(str(n))
        words = number_words(n)
        if words and n <= 12:
            out.append(words)
    return out


@cache
def _currencies() -> dict[str, list[str]]:
    """ISO currency code -> the names people use for it."""
    import pycountry

    common = {"EUR": ["euros", "euro", "€"], "USD": ["US dollars", "dollars", "bucks", "$"],
              "GBP": ["pounds", "British pounds", "pounds sterling", "£"],
              "JPY": ["yen", "Japanese yen", "¥"], "CHF": ["Swiss francs"],
              "CAD": ["Canadian dollars"], "AUD": ["Australian dollars"],
              "CNY": ["yuan", "renminbi"], "INR": ["rupees", "Indian rupees"],
              "MXN": ["Mexican pesos", "pesos"], "SEK": ["Swedish kronor"],
              "NOK": ["Norwegian kroner"], "DKK": ["Danish kroner"], "KRW": ["won"],
              "BRL": ["reais", "Brazilian reais"], "ZAR": ["rand"], "TRY": ["lira"],
              "THB": ["baht"], "PLN": ["zloty"], "SGD": ["Singapore dollars"],
              "NZD": ["New Zealand dollars"], "HKD": ["Hong Kong dollars"]}  # fmt: skip
    out = {}
    for c in pycountry.currencies:
        out[c.alpha_3] = [*common.get(c.alpha_3, []), c.name]
    return out


@cache
def _countries() -> dict[str, list[str]]:
    """ISO 3166 alpha-2 code -> names (common name, official name, alpha-3)."""
    import pycountry

    out = {}
    for c in pycountry.countries:
        names = [getattr(c, "common_name", None) or c.name, c.name, c.alpha_3]
        out[c.alpha_2] = list(dict.fromkeys(n for n in names if n))
    return out


@cache
def _languages() -> dict[str, list[str]]:
    """ISO 639-1 code -> the language's English name."""
    import pycountry

    return {lang.alpha_2: [lang.name] for lang in pycountry.languages
            if hasattr(lang, "alpha_2")}  # fmt: skip


def code_names(value: str, kind: str) -> list[str]:
    """The names of a currency, country or language code ("EUR" -> "euros", ...)."""
    table = {"currency": _currencies, "country-code": _countries, "language-code": _languages}
    get = table.get(kind)
    if get is None:
        return []
    return list(get().get(value.lower() if kind == "language-code" else value.upper(), []))


def forms(value: Any, kind: str = "", unit: str = "") -> list[str]:
    """Ways a request may state `value` (the first is how the call writes it)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return count_forms(value, unit) if unit else count_forms(value)
    if not isinstance(value, str):
        return [literal_text(value)]
    out = [value]
    out += date_forms(value) + time_forms(value)
    if kind in ("currency", "country-code", "language-code"):
        out += code_names(value, kind)
    demonym = _demonyms().get(value) if kind == "nationality" else None
    if demonym:
        out.append(demonym)
    return list(dict.fromkeys(out))


@cache
def _demonyms() -> dict[str, str]:
    """Country name -> what its people are called ("Canada" -> "Canadian")."""
    from toollearn.datagen.realistic import vocab

    return dict(vocab()["demonym"])


_SPACES = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _SPACES.sub(" ", text.casefold().replace("\u2019", "'")).strip()


def _number_grounded(n: float, text: str) -> bool:
    t = _norm(text)
    candidates = {literal_text(n), f"{n:,}" if float(n).is_integer() else ""}
    if float(n).is_integer():
        k = int(n)
        candidates |= {str(k), f"{k:,}"}
        words = number_words(k)
        if words:
            candidates.add(words)
        if k >= 1000 and k % 100 == 0:
            candidates.add(f"{k / 1000:g}k")
        for table in UNIT_WORDS.values():
            candidates |= {w.casefold() for w in table.get(k, [])}
        if k == 12:
            candidates.add("dozen")
        if k == 1:
            candidates |= {"a", "an", "single"}
        if k in (100, 1000):
            candidates |= {"a hundred", "one hundred"} if k == 100 else {"a thousand"}
    for c in filter(None, candidates):
        c = _norm(str(c))
        if re.search(rf"(?<![\w.]){re.escape(c)}(?![\w]|\.\d)", t):
            return True
    return False


def grounded(value: Any, text: str, kind: str = "") -> bool:
    """Whether `text` (the conversation so far) states `value` in some form (module doc).
    Booleans are always grounded (people say "unlock", not "false")."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int | float):
        return _number_grounded(value, text)
    if isinstance(value, list):
        return all(grounded(v, text, kind) for v in value)
    if isinstance(value, dict):
        return all(grounded(v, text, kind) for v in value.values())
    t = _norm(text)
    s = str(value)
    if not s.strip():
        return False
    options = forms(s, kind) + date_loose(s) + time_loose(s)
    options += [d for c, d in _demonyms().items() if c == s]
    for c in ("currency", "country-code", "language-code"):
        if len(s) in (2, 3) and s.isalpha():
            options += code_names(s, c)
    if re.fullmatch(r"-?\d+(?:\.\d+)?", s):
        return _number_grounded(float(s), text)
    return any(_norm(o) in t for o in options if o)


def date_loose(value: str) -> list[str]:
    """Looser date forms a dialogue uses ("March 8th", "8th of March", "the 8th")."""
    m = _ISO_DATE.match(value)
    if not m or not 1 <= int(m.group(2)) <= 12:
        return []
    month, d = MONTHS[int(m.group(2)) - 1], int(m.group(3))
    out = [f"{month} {d}", f"{month} {ordinal(d)}", f"{ordinal(d)} of {month}",
           f"{d} {month}", f"{month[:3]} {d}"]  # fmt: skip
    if d <= len(ORDINAL_WORDS):
        word = ORDINAL_WORDS[d - 1]
        out += [f"{word} of {month}", f"{month} {word}"]
    return out


ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                 "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth",
                 "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
                 "twentieth", "twenty-first", "twenty-second", "twenty-third", "twenty-fourth",
                 "twenty-fifth", "twenty-sixth", "twenty-seventh", "twenty-eighth",
                 "twenty-ninth", "thirtieth", "thirty-first")  # fmt: skip


def time_loose(value: str) -> list[str]:
    """Looser times ("7 pm", "7pm", "7:30 in the evening")."""
    m = _TIME.match(value)
    if not m:
        return []
    h, mi = int(m.group(1)), int(m.group(2))
    h12, half = h % 12 or 12, "am" if h < 12 else "pm"
    out = [f"{h12}:{mi:02d} {half}", f"{h12}:{mi:02d}{half}", f"{h12}.{mi:02d} {half}"]
    if mi == 0:
        out += [f"{h12} {half}", f"{h12}{half}", f"{h12} o'clock"]
    return out
