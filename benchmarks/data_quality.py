"""How a person would read generated training data, before against after, in one run.

    python benchmarks/data_quality.py LABEL=DATA_DIR [LABEL=DATA_DIR ...] [--n 200]

Each DATA_DIR is a `toollearn datagen` output folder (its `data.jsonl`); `datagen.quality`
measures `--n` random samples of each (seed 0): the share the checker rejects (by reason), of
placeholder-like tokens, of values introduced by their parameter's name (template
boilerplate), values that break a stated type, enum, format or range (target 0), distinct
request openings and the mean request length.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from _results import RESULTS, write_results

from toollearn.datagen.quality import measure

COLUMNS = (("rejected_pct", "rejected %"), ("placeholder_pct", "placeholder %"),
           ("boilerplate_pct", "boilerplate %"), ("value_violations", "format/range breaks"),
           ("distinct_openings", "distinct openings"),
           ("mean_request_words", "mean words"))  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("runs", nargs="+", metavar="LABEL=DIR")
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--name", default="data-quality")
    args = p.parse_args()
    result = {}
    for run in args.runs:
        label, _, folder = run.partition("=")
        path = Path(folder) / "data.jsonl"
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        result[label] = {"data": str(folder), **measure(records, args.n)}
    lines = ["| data | " + " | ".join(t for _, t in COLUMNS) + " |",
             "|---|" + "---:|" * len(COLUMNS)]  # fmt: skip
    for label, m in result.items():
        lines.append(f"| {label} | " + " | ".join(str(m[k]) for k, _ in COLUMNS) + " |")
    lines.append("")
    for label, m in result.items():
        lines.append(f"- {label}, rejected by reason: {m['rejected_by_reason'] or 'none'}")
    write_results(RESULTS, args.name, result, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
