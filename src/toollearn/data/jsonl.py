"""JSON Lines and JSON file helpers that fail loudly with file:line on bad input."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield (1-based line number, object) for each non-blank line; DataError on a bad line."""
    p = Path(path)
    if not p.is_file():
        raise DataError("file not found", str(p))
    with p.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"invalid JSON: {exc.msg} (column {exc.colno})", str(p), lineno
                ) from None
            if not isinstance(obj, dict):
                raise DataError(f"expected a JSON object, got {type(obj).__name__}", str(p), lineno)
            yield lineno, obj


def read_json_list(path: str | Path) -> list[Any]:
    """Read a file holding one JSON list; DataError naming the file (and line) otherwise."""
    p = Path(path)
    if not p.is_file():
        raise DataError("file not found", str(p))
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(
            f"invalid JSON: {exc.msg} (column {exc.colno})", str(p), exc.lineno
        ) from None
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text: {exc}", str(p)) from None
    if not isinstance(data, list):
        raise DataError(f"expected a JSON list, got {type(data).__name__}", str(p))
    return data


def read_records(path: str | Path) -> list[tuple[int, Any]]:
    """(position, record) pairs from a JSON list file or a JSONL file (by content, not name).

    Positions are 1-based lines for JSONL and 0-based indices for a JSON list."""
    p = Path(path)
    if not p.is_file():
        raise DataError("file not found", str(p))
    head = p.read_text(encoding="utf-8", errors="replace").lstrip()[:1]
    if head == "[":
        return list(enumerate(read_json_list(p)))
    return list(read_jsonl(p))


def write_jsonl(path: str | Path, records: Iterable[dict]) -> int:
    """Write records as JSON Lines (UTF-8, one object per line); returns the count."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with p.open("w", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            n += 1
    return n


def append_jsonl(path: str | Path, record: dict) -> None:
    """Append one record as a JSON line and flush (for resumable runs)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        fh.flush()
