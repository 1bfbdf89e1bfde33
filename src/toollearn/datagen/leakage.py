"""Keeping test data out of training data: default exclusions and the leakage report.

`Exclusions` names what no generated sample may contain: tools (never a gold call, never a
candidate) and queries (held-out test and validation queries). The defaults keep every test
honest (`default_exclusions`):
- Seal-Tools: every test and dev query; every tool that `test_out_domain` calls but neither
  `test_in_domain` nor dev calls (444), and every tool of a sub-field found only in
  `test_out_domain` (221 sub-fields), so the out-of-domain split stays out of domain;
- ToolDEER: the gold tools of `test.json`'s Call samples (the 77 unseen tools), and every
  `test.json` and `valid.json` query (which `tool.json`'s examples repeat verbatim);
- the alpha-UMi trajectory test: the tools of a few Seal-Tools sub-fields no Seal-Tools test
  or dev instance uses (`trajectory_test_subfields`), kept out of every generator's training
  data so that test is on unseen tools.
`leakage_report` checks a dataset against them: exact and near-duplicate queries (word-trigram
Jaccard >= 0.7 after normalising case, punctuation and spaces) and excluded tools used.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.core.samples import TrainingSample
from toollearn.core.types import Tool

NEAR = 0.7
_WORD = re.compile(r"[a-z0-9]+")


def normalise(text: str) -> str:
    """Lower case, words only, single spaces."""
    return " ".join(_WORD.findall(text.lower()))


def trigrams(text: str) -> frozenset[tuple[str, ...]]:
    words = normalise(text).split()
    if len(words) < 3:
        return frozenset([tuple(words)]) if words else frozenset()
    return frozenset(tuple(words[i : i + 3]) for i in range(len(words) - 2))


@dataclass
class Exclusions:
    """Tools and queries kept out of training data, each set with the reason it exists."""

    tools: set[str] = field(default_factory=set)
    queries: list[str] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    held_out_subfields: set[str] = field(default_factory=set)  # the trajectory test's

    def add_tools(self, names: Iterable[str], reason: str) -> None:
        names = set(names)
        self.tools |= names
        self.reasons[f"tools: {reason}"] = f"{len(names)} tools"

    def add_queries(self, queries: Iterable[str], reason: str) -> None:
        queries = list(queries)
        self.queries += queries
        self.reasons[f"queries: {reason}"] = f"{len(queries)} queries"

    def merge(self, other: Exclusions) -> Exclusions:
        merged = Exclusions(set(self.tools), list(self.queries), dict(self.reasons),
                            set(self.held_out_subfields))  # fmt: skip
        merged.tools |= other.tools
        merged.queries += other.queries
        merged.reasons.update(other.reasons)
        merged.held_out_subfields |= other.held_out_subfields
        return merged


def seal_exclusions(root: str | Path) -> Exclusions:
    """Seal-Tools test and dev queries; tools and sub-fields only `test_out_domain` uses."""
    from toollearn.data.seal_tools import load_split, load_tools

    splits = {s: load_split(root, s) for s in ("dev", "test_in_domain", "test_out_domain")}
    ex = Exclusions()
    ex.add_queries([e.query for exs in splits.values() for e in exs],
                   "Seal-Tools dev, test_in_domain and test_out_domain")  # fmt: skip
    called = {s: {c.name for e in exs for c in e.calls} for s, exs in splits.items()}
    seen = called["dev"] | called["test_in_domain"]
    out_only = called["test_out_domain"] - seen
    ex.add_tools(out_only, "called by Seal-Tools test_out_domain only")
    pool = load_tools(root)
    field_of = {t.name: t.category for t in pool}
    out_fields = {field_of.get(n, "") for n in called["test_out_domain"]}
    seen_fields = {field_of.get(n, "") for n in seen}
    only = {f for f in out_fields - seen_fields if f}
    ex.add_tools({t.name for t in pool if t.category in only},
                 f"in the {len(only)} sub-fields only Seal-Tools test_out_domain uses")  # fmt: skip
    held = trajectory_test_subfields(pool, ex.tools, seen_fields | out_fields)
    reason = f"in the {len(held)} sub-fields held out for the alpha-UMi trajectory test"
    ex.add_tools({t.name for t in pool if t.category in held}, reason)
    ex.held_out_subfields = held
    return ex


def trajectory_test_subfields(
    pool: Sequence[Tool], banned: set[str], seen: set[str], share: float = 0.5
) -> set[str]:
    """Sub-fields held out for the trajectory test: every 1/share-th (in name order) of those
    with at least 2 usable tools that no Seal-Tools test or dev instance calls (`seen`), so
    holding them out costs the Seal-Tools tests nothing."""
    usable: dict[str, int] = {}
    for t in pool:
        if t.name not in banned and t.category and t.category not in seen:
            usable[t.category] = usable.get(t.category, 0) + 1
    eligible = sorted(c for c, n in usable.items() if n >= 2)
    return set(eligible[:: max(1, round(1 / share))])


def deer_exclusions(root: str | Path) -> Exclusions:
    """ToolDEER's unseen test tools and its test and valid queries."""
    from toollearn.data.tooldeer import load_split

    test, valid = load_split(root, "test"), load_split(root, "valid")
    ex = Exclusions()
    ex.add_tools({e.calls[0].name for e in test if e.has_suitable_tool and e.calls},
                 "ToolDEER test.json Call gold tools (the unseen tools)")  # fmt: skip
    ex.add_queries([e.query for e in test + valid], "ToolDEER test.json and valid.json")
    return ex


def written_exclusions() -> Exclusions:
    """Every user turn of the hand-written evaluation sets (`evaluation/sets`, both splits):
    they ship with the package, so they are held out with or without a data root."""
    import json

    sets = Path(__file__).resolve().parents[1] / "evaluation" / "sets"  # data, not an import
    ex = Exclusions()
    for name in sorted(p.name for p in sets.iterdir() if (p / "tools.json").is_file()):
        queries = []
        for split in ("dev", "test"):
            for line in (sets / name / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
                if line.strip():
                    d = json.loads(line)
                    msgs = d.get("messages") or [{"role": "user", "content": d.get("query")}]
                    queries += [m["content"] for m in msgs if m.get("role") == "user"
                                and isinstance(m.get("content"), str)]  # fmt: skip
        ex.add_queries(list(dict.fromkeys(queries)), f"the hand-written {name} set (dev, test)")
    return ex


def default_exclusions(root: str | Path | None) -> Exclusions:
    """Both datasets' exclusions (their test and validation data, without a data root none:
    nothing to compare with) and the hand-written evaluation sets' requests."""
    written = written_exclusions()
    if root is None:
        return written
    return seal_exclusions(root).merge(deer_exclusions(root)).merge(written)


class QueryIndex:
    """Held-out queries for exact and near-duplicate lookups."""

    def __init__(self, queries: Sequence[str]):
        self.queries = list(queries)
        self.exact = {normalise(q): i for i, q in enumerate(self.queries)}
        self.grams = [trigrams(q) for q in self.queries]
        self.postings: dict[tuple[str, ...], list[int]] = {}
        for i, grams in enumerate(self.grams):
            for g in grams:
                self.postings.setdefault(g, []).append(i)

    def match(self, query: str, near: float = NEAR) -> tuple[str, int] | None:
        """("exact" | "near", index of the held-out query) or None."""
        if not self.queries:
            return None
        key = normalise(query)
        if key in self.exact:
            return "exact", self.exact[key]
        grams = trigrams(query)
        seen: dict[int, int] = {}
        for g in grams:
            for i in self.postings.get(g, ()):
                seen[i] = seen.get(i, 0) + 1
        for i, shared in sorted(seen.items(), key=lambda x: -x[1]):
            union = len(grams) + len(self.grams[i]) - shared
            if union and shared / union >= near:
                return "near", i
        return None


def sample_queries(sample: TrainingSample) -> list[str]:
    """The natural-language requests in a sample: `metadata["queries"]` (or "query") as the
    generator recorded them, else its user turns."""
    meta = sample.metadata
    if meta.get("queries"):
        return list(meta["queries"])
    if meta.get("query"):
        return [meta["query"]]
    return [m.content for m in sample.messages if m.role == "user"]


def sample_tools(sample: TrainingSample) -> set[str]:
    """Every tool a sample shows or calls (aliases and masked names resolved to the original
    names the generator recorded in `metadata["tools"]`)."""
    names = {t.metadata.get("alias_of", t.name) for t in sample.tools}
    return names | set(sample.metadata.get("tools") or ())


def leakage_report(
    samples: Sequence[TrainingSample], exclusions: Exclusions, examples: int = 5
) -> dict[str, Any]:
    """Queries shared with (or near-copies of) held-out ones, and excluded tools used."""
    index = QueryIndex(exclusions.queries)
    exact, near, hits = 0, 0, []
    bad_tools: dict[str, int] = {}
    for s in samples:
        for q in sample_queries(s):
            found = index.match(q)
            if found:
                exact += found[0] == "exact"
                near += found[0] == "near"
                if len(hits) < examples:
                    hits.append({"sample": s.source, "query": q, found[0]: index.queries[found[1]]})
        for name in sample_tools(s) & exclusions.tools:
            bad_tools[name] = bad_tools.get(name, 0) + 1
    return {
        "clean": not (exact or near or bad_tools),
        "samples": len(samples),
        "held_out": exclusions.reasons,
        "exact_query_matches": exact,
        "near_duplicate_queries": near,
        "near_threshold": NEAR,
        "excluded_tools_used": dict(sorted(bad_tools.items())),
        "examples": hits,
    }
