"""Plain-text tables for every CLI: aligned columns, numbers right-aligned, None shown as "-"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Column = str | tuple[str, str]  # a key, or (key, header)


def format_value(value: Any, floatfmt: str = ".2f") -> str:
    """One cell: floats with `floatfmt`, None as "-", bools as yes/no, the rest via str."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format(value, floatfmt)
    return str(value)


def format_table(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[Column], floatfmt: str = ".2f"
) -> str:
    """Rows of dicts as an aligned text table; a missing key prints as "-"."""
    keys = [c if isinstance(c, str) else c[0] for c in columns]
    headers = [c if isinstance(c, str) else c[1] for c in columns]
    cells = [[format_value(row.get(k), floatfmt) for k in keys] for row in rows]
    numeric = [
        all(_is_number(row.get(k)) or row.get(k) is None for row in rows) and bool(rows)
        for k in keys
    ]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)]
        return "  ".join(parts).rstrip()

    out = [line(headers), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells]
    return "\n".join(out)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def metric_table(
    results: Mapping[str, Mapping[str, Any]],
    metrics: Sequence[Column],
    label: str = "subset",
    percent: bool = True,
) -> str:
    """One row per named result (e.g. all / easy / difficult), one column per metric; rates
    (floats) are shown as percentages when `percent`."""
    rows = []
    for name, scores in results.items():
        row: dict[str, Any] = {label: name}
        for col in metrics:
            key = col if isinstance(col, str) else col[0]
            value = scores.get(key)
            row[key] = value * 100 if percent and isinstance(value, float) else value
        rows.append(row)
    return format_table(rows, [label, *metrics])
