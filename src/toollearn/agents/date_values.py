"""Dates a query writes in words, written as ISO 8601 in the calls' arguments.

Seal-Tools' answers write a date parameter as 2013-11-25 even when the query says "November 25,
2013" (dev: 133 ISO values, 101 of them not in the query; 3 values in words, each for a
parameter whose description shows a date in words, e.g. "(e.g., January 1st, 2022)"). The
tuned model copies the words, and `--copy-strings` even makes it. `iso_dates` rewrites an
argument that is exactly a date with a month name, a day and a year ("November 25, 2013",
"Nov 25th 2013", "25 November 2013") as YYYY-MM-DD, unless the parameter's description spells
a date in words. A date without a year is left alone: the year would be a guess.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from typing import Any

from toollearn.core.types import Tool

_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],  # fmt: skip
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>[A-Za-z]{3,9})\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_FORMS = [
    re.compile(rf"^{_MONTH}\s+{_DAY},?\s+{_YEAR}$", re.I),  # November 25, 2013
    re.compile(rf"^{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}$", re.I),  # 25 November 2013
]
_WORD_DATE_EXAMPLE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}", re.I
)


def iso_date(value: str) -> str | None:
    """YYYY-MM-DD for a value that is exactly a date in words with a year; else None."""
    text = value.strip().rstrip(".")
    for form in _FORMS:
        m = form.match(text)
        if m and m["month"].lower() in _MONTHS:
            try:
                day = datetime.date(int(m["year"]), _MONTHS[m["month"].lower()], int(m["day"]))
            except ValueError:  # February 30th: not a date
                return None
            return day.isoformat()
    return None


def wants_words(tool: Tool | None, param: str) -> bool:
    """Whether the parameter's description writes a date in words (then words are kept)."""
    if tool is None:
        return False
    spec = tool.properties.get(param) or {}
    return bool(_WORD_DATE_EXAMPLE.search(str(spec.get("description") or "")))


def iso_dates(
    calls: Sequence[Any], tools: Sequence[Tool]
) -> tuple[list[Any], list[dict[str, str]]]:
    """Seal-Tools calls ({"api", "parameters", ...}) with word dates made ISO, and the changes."""
    by_name = {t.name: t for t in tools}
    out, changes = [], []
    for call in calls:
        params = call.get("parameters") if isinstance(call, dict) else None
        if not isinstance(params, dict):
            out.append(call)
            continue
        tool = by_name.get(str(call.get("api")))
        new = dict(params)
        for name, value in params.items():
            iso = iso_date(value) if isinstance(value, str) else None
            if iso and not wants_words(tool, name):
                new[name] = iso
                changes.append({"api": str(call.get("api")), "parameter": name,
                                "from": value, "to": iso})  # fmt: skip
        out.append({**call, "parameters": new})
    return out, changes
