"""Write into this run's records the BM25 candidates each query was shown (`candidates`), so
it rescores the same on every machine.

The run (made before runs recorded their candidates) is rescored by retrieving the top 5 again.
On 17 of its 1,354 queries two tools tie at the 5th place, and which one made the cut was
`numpy.argpartition`'s choice, which differs between processors (this machine's AMD Zen 4 and
the one that made the run disagree). `retrieval.base.top_k` now takes the lower index. On 16
of those queries neither tied tool is named by the answer or the gold, so no score depends on
which was shown, and the lower index is recorded. On one, test_out_domain-difficult-154, the
constrained answer calls the tied `downloadFromCloud`, and a constrained answer can only name a
candidate: that tool was shown and is recorded in place of its tie `uploadToCloud`.

    python results/seal-bm25-v3-all/record_candidates.py      (rewrites predictions.jsonl)
    toollearn score --run results/seal-bm25-v3-all --check --data-root ../shared/data
"""

from __future__ import annotations

import json
from pathlib import Path

from toollearn.data.registry import load_tool_pool
from toollearn.evaluation.metrics.seal_tools import official_parse
from toollearn.evaluation.runners.seal_tools import load_prompts
from toollearn.retrieval import ToolRetriever

RUN = Path(__file__).parent
ROOT = "../shared/data"


def shown(hits: list, called: set[str], k: int = 5) -> tuple[list[str], str]:
    """The k candidates, with a tool tied at the cut that the constrained answer called swapped
    in for the lowest-ranked tool of its tie; and how the cut was decided."""
    names = [h.item.name for h in hits[:k]]
    if len(hits) <= k or hits[k - 1].score != hits[k].score:
        return names, "no tie"
    cut = hits[k - 1].score
    tied_out = [h.item.name for h in hits[k:] if h.score == cut and h.item.name in called]
    if not tied_out:
        return names, "tie, no score depends on it"
    tied_in = [n for h, n in zip(hits[:k], names) if h.score == cut and n not in called]
    for out in tied_out:
        names[names.index(tied_in.pop())] = out
    return names, "tie, decided by the constrained answer"


def main() -> None:
    lines = (RUN / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    split = json.loads((RUN / "config.json").read_text())["split"]
    examples = {e.id: e for e in load_prompts(split, ROOT, False)}
    retriever = ToolRetriever(load_tool_pool("seal-tools", ROOT), "bm25")
    hits = retriever.search_batch([examples[r["id"]].query for r in records], 12)
    counts: dict[str, int] = {}
    for record, found in zip(records, hits):
        parsed = official_parse(record["output"] or "") or []
        called = {d["api"] for d in parsed if isinstance(d, dict) and isinstance(d.get("api"), str)}
        record["candidates"], how = shown(found, called)
        counts[how] = counts.get(how, 0) + 1
        if how.endswith("answer"):
            print(record["id"], record["candidates"])
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    (RUN / "predictions.jsonl").write_text(text, encoding="utf-8")
    print(counts)


if __name__ == "__main__":
    main()
