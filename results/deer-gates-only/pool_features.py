"""Does the shipped call gate decide Call/NoCall better from more than its best cosine?

The shipped gate (the embedded MiniLM with the `deer-call-gate` adapter) declines when the
query's best cosine to a pool tool is under one threshold. Here every pool tool's cosine is
computed, and a logistic regression over per-query features (fixed before any run: the gap to
the second tool, the distance from the pool's mean, the spread, the query's length, the share
of the query's words in the closest tool's text) is fitted on valid's queries that need a
search (seen tools), its threshold picked on valid, and the unseen-tool sets scored at it
(P_DC as `eval deer-gate` scores it: a Call query is right when it calls the gold tool). The
oracle column is the best threshold on each set itself, a bound to read, not a setting. The
second table counts what the shipped gate gets wrong at its threshold, and the last lists the
first of valid's NoCall queries it calls (valid is for reading; the test sets are not listed).

    python results/deer-gates-only/pool_features.py --data-root ../shared/data > pool_features.md
"""

from __future__ import annotations

import argparse
import re

import numpy as np
from sklearn.linear_model import LogisticRegression

from toollearn.agents.call_gate import shipped_call_gate
from toollearn.evaluation.runners.deer import load_deer
from toollearn.retrieval.text import tool_text


def pool_shape(sims: np.ndarray) -> list[float]:
    """The gap to the second tool, the mean and spread of the rest, the pool's size."""
    return [sims[0] - sims[1], sims[1:].mean(), sims.std(), len(sims)]


SPLITS = ("valid", "test", "tool_bench", "tool_corpus")
FEATURES = {  # name -> the features read off (sorted cosines, overlap of the closest, length)
    "best cosine (the shipped gate)": lambda s, ov, n: [s[0]],
    "+ gap to the second tool": lambda s, ov, n: [s[0], s[0] - s[1]],
    "+ distance from the pool's mean": lambda s, ov, n: [s[0], s[0] - s[1:].mean()],
    "+ gap, pool mean, spread, pool size": lambda s, ov, n: [s[0], *pool_shape(s)],
    "+ log query length": lambda s, ov, n: [s[0], np.log(n)],
    "+ word overlap with the closest tool": lambda s, ov, n: [s[0], ov],
}
STOP = set(  # words too common to tell tools apart
    re.findall(r"\w+", "a an the of to in for and or on with by is are be me my i you your what "
               "how can please get find show give from at this that it")
)  # fmt: skip


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP and len(w) > 2}


def pool_rows(split: str, gate, data_root: str | None) -> list[dict]:
    """Per query that needs a search: every pool cosine, the label, the closest tool's rightness."""
    rows = []
    for ex in load_deer(split, data_root):
        if not ex.needs_tool or not ex.tools:
            continue
        texts = [tool_text(t, gate.fields) for t in ex.tools]
        vecs = gate.encoder.encode([ex.query, *texts])
        sims = vecs[1:] @ vecs[0]
        best = int(sims.argmax())
        gold = ex.calls[0].name if ex.has_suitable_tool and ex.calls else None
        query = words(ex.query)
        rows.append({"sims": np.sort(sims)[::-1], "call": bool(ex.has_suitable_tool),
                     "query": ex.query, "closest": ex.tools[best],
                     "right": gold is not None and ex.tools[best].name == gold,
                     "overlap": len(query & words(texts[best])) / (len(query) or 1),
                     "length": len(ex.query.split())})  # fmt: skip
    return rows


def p_dc(prob: np.ndarray, rows: list[dict], threshold: float) -> float:
    calls = prob >= threshold
    right = [c and r["right"] if r["call"] else not c for c, r in zip(calls, rows, strict=True)]
    return 100 * sum(right) / len(rows)


def best_threshold(prob: np.ndarray, rows: list[dict]) -> float:
    return max(np.unique(prob), key=lambda t: p_dc(prob, rows, t))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-root", default=None)
    args = ap.parse_args()
    gate, threshold = shipped_call_gate(threads=2)
    rows = {s: pool_rows(s, gate, args.data_root) for s in SPLITS}
    print("# The shipped call gate: more features than its best cosine\n")
    print("`python results/deer-gates-only/pool_features.py --data-root ../shared/data` "
          "(about 90 s on 2 threads)\n")  # fmt: skip

    print("| features (fitted on valid) | valid P_DC | test | ToolBench | ToolCorpus | "
          "oracle test / ToolBench / ToolCorpus |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---|")
    for name, read in FEATURES.items():
        x = {s: np.array([read(r["sims"], r["overlap"], r["length"]) for r in rows[s]])
             for s in SPLITS}  # fmt: skip
        labels = [r["call"] for r in rows["valid"]]
        fit = LogisticRegression(C=10, max_iter=1000).fit(x["valid"], labels)
        prob = {s: fit.predict_proba(x[s])[:, 1] for s in SPLITS}
        t = best_threshold(prob["valid"], rows["valid"])
        at = " | ".join(f"{p_dc(prob[s], rows[s], t):.1f}" for s in SPLITS)
        oracle = " / ".join(
            f"{p_dc(prob[s], rows[s], best_threshold(prob[s], rows[s])):.1f}" for s in SPLITS[1:]
        )
        print(f"| {name} | {at} | {oracle} |")

    print(f"\nThe shipped gate at its threshold ({threshold}), queries that need a search:\n")
    print("| set | queries | Call | closest tool wrong | Call declined | NoCall | NoCall called |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for s in SPLITS:
        calls = [r for r in rows[s] if r["call"]]
        nocalls = [r for r in rows[s] if not r["call"]]
        wrong = sum(not r["right"] for r in calls)
        declined = sum(-r["sims"][0] > threshold for r in calls)
        called = sum(-r["sims"][0] <= threshold for r in nocalls)
        print(f"| {s} | {len(rows[s])} | {len(calls)} | {wrong} | {declined} | {len(nocalls)} "
              f"| {called} |")  # fmt: skip

    print("\nThe first 12 of valid's NoCall queries the shipped gate calls (the pool lacks the "
          "query's own tool, by DEER's label):\n")  # fmt: skip
    print("| cosine | query | closest pool tool: its description |\n|---:|---|---|")
    called = [r for r in rows["valid"] if not r["call"] and -r["sims"][0] <= threshold]
    for r in called[:12]:
        tool = r["closest"]
        text = f"{tool.name}: {(tool.description or '')[:110]}".replace("|", "/")
        print(f"| {r['sims'][0]:.3f} | {r['query'][:130].replace('|', '/')} | {text} |")


if __name__ == "__main__":
    main()
