"""Every turn of the imported dialogue records through the one checker, counted by reason.

    python benchmarks/import_check.py      # writes benchmarks/results/import-check.{json,md}

The train and dev files of each import in `recipes/data/imports` (SLURP: dev only, its train
file did not arrive); reasons are grouped without the tool and parameter names in the table
(the JSON keeps them).
"""

from __future__ import annotations

import re
from collections import Counter

from _results import RESULTS, write_results

from toollearn.datagen.imports.turns import IMPORTS, check_import


def _group(reason: str) -> str:
    reason = re.sub(r"^(grounding|schema|range|format): \S+ (is|lacks|has)", r"\1: a value \2",
                    reason)  # fmt: skip
    return re.sub(r"'[^']*'", "a token", reason) if reason.startswith("placeholder") else reason


def main() -> None:
    result, lines = {}, ["| import | turn | checked | passed | rejected, top reasons |",
                         "|---|---|---:|---:|---|"]  # fmt: skip
    for src in ("sgd", "taskmaster4", "slurp"):
        for split in ("train", "dev"):
            path = IMPORTS / src / f"{split}.jsonl.gz"
            if not path.is_file():
                continue
            found = check_import(path)
            result[f"{src}/{split}"] = found
            for sub, d in found.items():
                grouped = Counter()
                for reason, n in d["rejected"].items():
                    grouped[_group(reason)] += n
                top = "; ".join(f"{k}: {v}" for k, v in grouped.most_common(3)) or "-"
                lines.append(f"| {src}/{split} | {sub} | {d['checked']} | {d['passed']} | {top} |")
    write_results(RESULTS, "import-check", result, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
