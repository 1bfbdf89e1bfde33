"""Reading and writing the converted record files (gzip-compressed JSON Lines)."""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

Record = dict[str, Any]


def seeded_subset(items: list[Any], limit: int | None, seed: int = 0) -> list[Any]:
    """At most ``limit`` items, a seeded random subset kept in order."""
    if limit is None or len(items) <= limit:
        return items
    keep = sorted(random.Random(seed).sample(range(len(items)), limit))
    return [items[i] for i in keep]


def write_jsonl_gz(path: Path, records: Iterable[Record]) -> int:
    """Write records as gzip-compressed JSON Lines (reproducible bytes); the bytes written."""
    text = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)
    data = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data)


def read_jsonl_gz(path: Path) -> list[Record]:
    """The records of a gzip-compressed JSON Lines file."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]
