"""Retrieval at scale: index build time, memory and p50/p95 query latency at 4K, 100K and 1M tools.

    .venv/bin/python benchmarks/retrieval.py --data-root ../shared/data            # 4K + 100K
    .venv/bin/python benchmarks/retrieval.py --data-root ../shared/data --sizes 1000000

Pools: the 4,076 real Seal-Tools tools, grown to N by copies of real tools (Seal-Tools +
ToolDEER) with varied names and descriptions (a Seal-Tools sub-field name appended). Queries:
real Seal-Tools test queries. Each (size, method) runs in its own process, so peak RSS is clean.

Methods: `bm25` (toollearn BM25Retriever on bm25s) vs `rank-bm25` (BM25Okapi, plain baseline);
`dense` (toollearn DenseRetriever: float32 matrix, argpartition top-k), `dense-f16` (float16
storage), `dense-ivf` (faiss IVF-Flat, nlist=sqrt(n), nprobe=16; its recall@10 against exact
search is reported) vs `numpy-naive` (matrix product + full argsort). Dense latency = MiniLM
query encoding (one query at a time, 1 torch thread) + search. Above the real pool size, tool
vectors are NOT embedded (MiniLM on 2 CPU cores is far too slow): they are real tool embeddings
plus Gaussian noise, renormalised; their build time adds the measured real embedding rate
extrapolated ("est.").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
METHODS = ("bm25", "rank-bm25", "dense", "dense-f16", "dense-ivf", "numpy-naive")
DENSE = ("dense", "dense-f16", "dense-ivf", "numpy-naive")


def rss_mb() -> float:
    """Current resident set size of this process in MB (Linux /proc)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def synth_pool(data_root: Path, n: int, seed: int = 0) -> tuple[list, list[int]]:
    """n tools: the real Seal-Tools pool, then varied copies of Seal-Tools + ToolDEER tools.
    Also returns, per tool, the index of the real Seal-Tools tool it copies (-1 for DEER)."""
    from dataclasses import replace

    from toollearn.data import seal_tools, tooldeer

    seal = seal_tools.load_tools(data_root)
    base = seal + tooldeer.load_tools(data_root)
    subs = [s for subs in seal_tools.load_fields(data_root).values() for s in subs]
    rng = random.Random(seed)
    tools, origin = list(seal[:n]), list(range(min(n, len(seal))))
    for i in range(len(tools), n):
        j = rng.randrange(len(base))
        sub = rng.choice(subs)
        word = "".join(w.title() for w in sub.split()[:2] if w.isalnum()) or "Alt"
        tools.append(
            replace(
                base[j],
                name=f"{base[j].name}{word}{i}",
                description=f"{base[j].description} ({sub})",
            )
        )
        origin.append(j if j < len(seal) else -1)
    return tools, origin


def real_vectors(data_root: Path, tools: list, origin: list[int]) -> tuple[np.ndarray, dict]:
    """Vectors for the pool: real MiniLM embeddings of the Seal-Tools pool (from the persisted
    index, embedded once), perturbed copies beyond it."""
    from toollearn.data import seal_tools
    from toollearn.retrieval import ToolRetriever, index_path

    seal = seal_tools.load_tools(data_root)
    start = time.perf_counter()
    r = ToolRetriever(seal, "dense", index_dir=index_path("seal-tools", "dense"))
    base = np.asarray(r.backend.vectors, dtype=np.float32)
    info = {"embedded_now": not r.loaded, "embed_seconds": time.perf_counter() - start}
    manifest = json.loads((index_path("seal-tools", "dense") / "manifest.json").read_text())
    info["embed_rate_per_s"] = len(seal) / manifest["build_seconds"]
    n = len(tools)
    out = np.empty((n, base.shape[1]), dtype=np.float32)
    rng = np.random.default_rng(0)
    for s in range(0, n, 65536):
        e = min(n, s + 65536)
        idx = np.array([o if o >= 0 else rng.integers(len(base)) for o in origin[s:e]])
        block = base[idx] + (
            rng.standard_normal((e - s, base.shape[1]))
            * 0.02
            * (np.arange(s, e) >= len(base))[:, None]
        ).astype(np.float32)
        out[s:e] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out, info


def latencies(fn, queries: list[str]) -> np.ndarray:
    times = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        times.append((time.perf_counter() - t) * 1000)
    return np.array(times)


def run_case(data_root: Path, n: int, method: str, n_queries: int) -> dict:
    """Build one index of n tools with one method and time single-query search."""
    from toollearn.data import seal_tools
    from toollearn.retrieval import tool_text
    from toollearn.retrieval.text import tokenize

    tools, origin = synth_pool(data_root, n)
    texts = [tool_text(t) for t in tools]
    queries = [e.query for e in seal_tools.load_split(data_root, "test_in_domain")]
    slow = method == "rank-bm25" and n > 10000
    queries = queries[: (10 if n > 200000 else 30) if slow else n_queries]
    res = {"size": n, "method": method, "queries": len(queries)}
    if method in DENSE:
        return res | dense_case(data_root, tools, texts, origin, method, queries)
    before = rss_mb()
    start = time.perf_counter()
    if method == "bm25":
        from toollearn.retrieval import BM25Retriever

        r = BM25Retriever(tools, texts)
        search = lambda q: r.search(q, 10)  # noqa: E731
    else:
        from rank_bm25 import BM25Okapi

        bm = BM25Okapi([tokenize(t) for t in texts])
        search = lambda q: np.argsort(-bm.get_scores(tokenize(q)))[:10]  # noqa: E731
    res["build_s"] = time.perf_counter() - start
    res["index_mb"] = res["rss_delta_mb"] = rss_mb() - before
    if method == "bm25":  # the sparse score matrix itself (RSS also keeps freed token lists)
        arrays = [v for v in r._model.scores.values() if isinstance(v, np.ndarray)]
        res["index_mb"] = sum(a.nbytes for a in arrays) / 2**20
    lat = latencies(search, queries)
    return res | {"p50_ms": float(np.percentile(lat, 50)), "p95_ms": float(np.percentile(lat, 95))}


def dense_case(data_root, tools, texts, origin, method, queries) -> dict:
    import faiss

    from toollearn.retrieval import DenseRetriever, MiniLMEncoder
    from toollearn.retrieval.base import top_k

    faiss.omp_set_num_threads(1)
    enc = MiniLMEncoder(threads=1)
    enc.encode(["warm up"])
    vectors, info = real_vectors(data_root, tools, origin)
    qv = enc.encode(queries)
    exact = [top_k(vectors @ q, 10)[0] for q in qv] if method == "dense-ivf" else None
    before = rss_mb()
    start = time.perf_counter()
    dtype = "float16" if method == "dense-f16" else "float32"
    ann = "ivf" if method == "dense-ivf" else "exact"
    r = DenseRetriever(tools, texts, encoder=enc, vectors=vectors, dtype=dtype, ann=ann)
    res = {
        "build_s": time.perf_counter() - start,
        "rss_delta_mb": rss_mb() - before,
        "index_mb": (r.ivf.nbytes if r.ivf else r.vectors.nbytes) / 2**20,
        "embed_est_s": len(tools) / info["embed_rate_per_s"],
    }
    del vectors
    enc_ms = latencies(lambda q: enc.encode([q]), queries)
    if method == "numpy-naive":
        search = lambda i: np.argsort(-(r.vectors @ qv[i]))[:10]  # noqa: E731
    elif method == "dense-ivf":
        search = lambda i: r.ivf.search(qv[i : i + 1], 10)  # noqa: E731
    else:
        search = lambda i: top_k(r.scores(qv[i : i + 1])[:, 0], 10)  # noqa: E731
    search_ms = latencies(search, list(range(len(queries))))
    if exact is not None:
        got = [r.ivf.search(qv[i : i + 1], 10)[0][0] for i in range(len(queries))]
        overlap = [len(set(a.tolist()) & set(b.tolist())) / 10 for a, b in zip(exact, got)]
        res["recall_vs_exact"] = float(np.mean(overlap))
    total = enc_ms + search_ms
    return res | {
        "p50_ms": float(np.percentile(total, 50)),
        "p95_ms": float(np.percentile(total, 95)),
        "search_p50_ms": float(np.percentile(search_ms, 50)),
        "search_p95_ms": float(np.percentile(search_ms, 95)),
        "encode_p50_ms": float(np.percentile(enc_ms, 50)),
    }


NOTE = """# Retrieval at scale (benchmarks/retrieval.py)

Shared 2-core VM, load average 5-7 from other jobs during the runs: latencies are pessimistic and
noisy. p50/p95 = one query at a time, top-10; dense includes MiniLM query encoding (1 thread).
index MB: dense = the vector array / faiss lists; bm25 = bm25s' sparse score matrix;
rank-bm25 = RSS growth while building. Peak RSS includes data loading (and the 1M-tool pool in
Python objects) and, for dense, the MiniLM model. Above 4,076 tools dense vectors are perturbed
copies of real MiniLM embeddings (not embedded) and "embed ... (est.)" extrapolates the measured
rate of the 4,076-tool run (22 texts/s, itself measured under contention). 1M dense-f16 skipped
(at 100K it is 6x slower than float32). rank-bm25 at >=100K: 30 / 10 queries (seconds each).

"""


def table(rows: list[dict]) -> str:
    head = (
        "| tools | method | build s | index MB | peak RSS MB | p50 ms | p95 ms | search p50 ms"
        " | recall@10 vs exact | queries |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    lines = [head]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['size']:,} | {r['method']} | failed: {r['error'][:60]} ||||||||")
            continue
        build = f"{r['build_s']:.1f}"
        if "embed_est_s" in r:
            how = "measured" if r["size"] <= 4076 else "est."
            build += f" + embed {r['embed_est_s']:.0f} ({how})"
        rec = f"{r['recall_vs_exact']:.3f}" if "recall_vs_exact" in r else ""
        lines.append(
            f"| {r['size']:,} | {r['method']} | {build} | {r['index_mb']:.1f} | {r['peak_mb']:.0f}"
            f" | {r['p50_ms']:.2f} | {r['p95_ms']:.2f} | {r.get('search_p50_ms', r['p50_ms']):.2f}"
            f" | {rec} | {r['queries']} |"
        )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-root", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--sizes", default="4076,100000")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--out", default=str(RESULTS / "retrieval.json"))
    ap.add_argument("--case", nargs=2, metavar=("SIZE", "METHOD"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        res = run_case(Path(args.data_root), int(args.case[0]), args.case[1], args.queries)
        print(json.dumps(res | {"peak_mb": peak_mb()}))
        return 0
    out = Path(args.out)
    old = json.loads(out.read_text())["rows"] if out.exists() else []
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        for m in args.methods.split(","):
            cmd = [
                sys.executable,
                __file__,
                "--data-root",
                args.data_root,
                "--queries",
                str(args.queries),
                "--case",
                str(n),
                m,
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode:
                row = {"size": n, "method": m, "error": proc.stderr.strip().splitlines()[-1]}
            else:
                row = json.loads(proc.stdout.strip().splitlines()[-1])
            print(json.dumps(row), flush=True)
            rows.append(row)
    keep = [
        r for r in old if (r["size"], r["method"]) not in {(x["size"], x["method"]) for x in rows}
    ]
    rows = sorted(keep + rows, key=lambda r: (r["size"], METHODS.index(r["method"])))
    meta = {
        "cpus": os.cpu_count(),
        "loadavg": os.getloadavg(),
        "platform": platform.platform(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    out.with_suffix(".md").write_text(NOTE + table(rows) + "\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
