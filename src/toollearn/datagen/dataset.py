"""Writing a generated dataset: TRL-ready JSONL, stats.json and the leakage report.

`data.jsonl` holds one sample per line, in generation order: TRL's conversational
prompt/completion fields (`prompt`: the messages, `completion`: the assistant turn) plus `tools`,
and toollearn's own fields (`spans`: the parts of the completion the model writes, the only ones
with loss; `task`, `role`, `source`, `kind`). `stats.json` counts samples by kind, measures
tokens per sample under the model's own tokenizer and chat template, counts rejections by
reason, and records the generator's config, seed and the data file's sha256. `leakage.json` is
`datagen.leakage`'s report. The same seed writes the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.core.samples import TrainingSample


@dataclass
class Generated:
    """What a generator returns: the samples, rejected candidates by reason, its config."""

    samples: list[TrainingSample] = field(default_factory=list)
    rejections: Counter = field(default_factory=Counter)
    config: dict[str, Any] = field(default_factory=dict)

    def reject(self, reason: str) -> None:
        self.rejections[reason] += 1


def sample_record(sample: TrainingSample) -> dict[str, Any]:
    """One JSONL line: TRL's prompt/completion (+ tools) and toollearn's loss spans."""
    return {
        "prompt": [m.to_dict() for m in sample.messages],
        "completion": [{"role": "assistant", "content": sample.target}],
        "tools": [t.to_dict() for t in sample.tools],
        "spans": [list(s) for s in sample.spans],
        "task": sample.task,
        "role": sample.role,
        "source": sample.source,
        "kind": sample.metadata.get("kind", ""),
        "metadata": sample.metadata,
    }


def sample_from_record(record: dict[str, Any]) -> TrainingSample:
    """The TrainingSample of a `data.jsonl` line."""
    return TrainingSample.from_dict(
        {
            "messages": record["prompt"],
            "target": record["completion"][0]["content"],
            "spans": record.get("spans") or (),
            "tools": record.get("tools") or (),
            "task": record.get("task", ""),
            "role": record.get("role", ""),
            "source": record.get("source", ""),
            "metadata": record.get("metadata") or {},
        }
    )


def read_dataset(path: str | Path) -> list[TrainingSample]:
    """The samples of a `data.jsonl` (or of the folder holding one)."""
    from toollearn.data.jsonl import read_jsonl

    p = Path(path)
    p = p / "data.jsonl" if p.is_dir() else p
    return [sample_from_record(rec) for _, rec in read_jsonl(p)]


class TokenCounter:
    """Tokens of a sample as the model reads it: the chat-templated prompt of its first span
    plus the target, with the embedded model's tokenizer (llama.cpp, vocabulary only)."""

    def __init__(self, model_path: str | Path | None = None):
        from toollearn.engines.llama import embedded_model_path, quiet_openmp
        from toollearn.formats.chat import ChatTemplate

        quiet_openmp()
        import llama_cpp

        path = Path(model_path) if model_path else embedded_model_path()
        self.vocab = llama_cpp.Llama(str(path), vocab_only=True, verbose=False)
        self.template = ChatTemplate.from_gguf(path)

    def __call__(self, sample: TrainingSample) -> int:
        text = self.template.render(list(sample.messages)) + sample.target
        return len(self.vocab.tokenize(text.encode("utf-8"), special=True))


def token_stats(counts: Sequence[int]) -> dict[str, float | int]:
    """Mean, p50, p95 and max of token counts."""
    if not counts:
        return {"mean": 0, "p50": 0, "p95": 0, "max": 0}
    ordered = sorted(counts)

    def pct(q: float) -> int:
        return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]

    return {"mean": round(sum(ordered) / len(ordered), 1), "p50": pct(0.5), "p95": pct(0.95),
            "max": ordered[-1]}  # fmt: skip


def write_dataset(
    out_dir: str | Path,
    samples: Iterable[TrainingSample],
    *,
    config: dict[str, Any],
    rejections: Counter | dict[str, int] | None = None,
    leakage: dict[str, Any] | None = None,
    count_tokens: Any = None,
) -> dict[str, Any]:
    """Write data.jsonl, stats.json and leakage.json into `out_dir`; returns the stats."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    samples = list(samples)
    lines = [json.dumps(sample_record(s), ensure_ascii=False, sort_keys=True) for s in samples]
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    (out / "data.jsonl").write_bytes(data)
    kinds = Counter(s.metadata.get("kind", "") or s.task for s in samples)
    stats: dict[str, Any] = {
        "n": len(samples),
        "by_kind": dict(sorted(kinds.items())),
        "by_task": dict(sorted(Counter(s.task for s in samples).items())),
        "rejected": dict(sorted(Counter(rejections or {}).items())),
        "config": config,
        "data_sha256": hashlib.sha256(data).hexdigest(),
    }
    if count_tokens is not None:
        per_kind: dict[str, list[int]] = {}
        for s in samples:
            per_kind.setdefault(s.metadata.get("kind", "") or s.task, []).append(count_tokens(s))
        stats["tokens"] = token_stats([n for ns in per_kind.values() for n in ns])
        stats["tokens_by_kind"] = {k: token_stats(v) for k, v in sorted(per_kind.items())}
    (out / "stats.json").write_text(json.dumps(stats, indent=2, ensure_ascii=False) + "\n")
    if leakage is not None:
        (out / "leakage.json").write_text(json.dumps(leakage, indent=2, ensure_ascii=False) + "\n")
    (out / "samples.md").write_text(preview(samples), encoding="utf-8")
    return stats


def preview(samples: Sequence[TrainingSample], per_kind: int = 5, seed: int = 0) -> str:
    """Markdown: `per_kind` random samples of each kind, the request and the target (the loss
    spans marked), shortened."""
    import random

    by_kind: dict[str, list[TrainingSample]] = {}
    for s in samples:
        by_kind.setdefault(s.metadata.get("kind", "") or s.task, []).append(s)
    lines = ["# Random samples per kind", ""]
    for kind, group in sorted(by_kind.items()):
        lines += [f"## {kind} ({len(group)} samples)", ""]
        for s in random.Random(f"{seed}:{kind}").sample(group, min(per_kind, len(group))):
            query = s.metadata.get("query") or " / ".join(s.metadata.get("queries") or [])
            query = query or s.messages[-1].content
            lines += [f"- `{s.source}`: {_clip(query, 300)}", "", "  ```"]
            lines += ["  " + _clip(piece, 400).replace("\n", "\n  ") for piece in s.span_texts()]
            lines += ["  ```", ""]
    return "\n".join(lines)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def datasets_table(root: str | Path) -> str:
    """Markdown: every dataset folder under `root` (holding stats.json): samples by kind,
    tokens mean / p95, rejections, leakage, generation time."""
    lines = ["| dataset | kind | samples | tokens mean | tokens p95 | rejected | leakage | "
             "seconds |", "|---|---|---:|---:|---:|---:|---|---:|"]  # fmt: skip
    for stats_path in sorted(Path(root).glob("*/stats.json")):
        stats = json.loads(stats_path.read_text())
        leak_path = stats_path.with_name("leakage.json")
        leak = json.loads(leak_path.read_text()) if leak_path.is_file() else {}
        clean = "clean" if leak.get("clean") else "NOT clean" if leak else "-"
        tokens = stats.get("tokens_by_kind", {})
        for i, (kind, n) in enumerate(stats["by_kind"].items()):
            t = tokens.get(kind, {})
            first = i == 0
            lines.append(
                f"| {stats_path.parent.name if first else ''} | {kind} | {n} | "
                f"{t.get('mean', '-')} | {t.get('p95', '-')} | "
                f"{sum(stats['rejected'].values()) if first else ''} | {clean if first else ''} | "
                f"{stats['config'].get('seconds', '-') if first else ''} |"
            )
    return "\n".join(lines) + "\n"
