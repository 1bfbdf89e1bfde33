"""Where the benchmark scripts put their figures: NAME.json (full) and NAME.md (the table)."""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def write_results(out: str | Path, name: str, result: dict, table: str) -> None:
    """Write OUT/NAME.json and OUT/NAME.md, and print the table."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / f"{name}.md").write_text(table)
    print(table)
