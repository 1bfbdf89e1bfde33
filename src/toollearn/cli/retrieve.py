"""`toollearn retrieve build|query` (persisted tool indexes) and `toollearn eval retrieval`."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

METHODS = ("bm25", "dense", "hybrid")


def _pool_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--pool",
        required=True,
        help="seal-tools | tooldeer (under --data-root), sample/seal-tools | sample/tooldeer "
        "(bundled), or a .json/.jsonl file of toollearn Tool dicts",
    )
    p.add_argument("--data-root", default=None, help="data folder (default $TOOLLEARN_DATA)")
    p.add_argument("--method", choices=METHODS, default="hybrid")
    p.add_argument(
        "--ann",
        choices=("exact", "ivf"),
        default="exact",
        help="dense search: exact numpy (default) or faiss IVF for very large pools",
    )
    p.add_argument(
        "--index-dir",
        default=None,
        help="index root (default $TOOLLEARN_INDEX_DIR "
        "or ~/.cache/toollearn/indexes); the index is <root>/<pool>-<method>",
    )
    p.add_argument(
        "--fields",
        default=None,
        help="indexed tool fields, comma list of name, "
        "description, param_names, param_descriptions, category, examples",
    )


def register(sub: Any) -> None:
    """Add `toollearn retrieve build` and `toollearn retrieve query`."""
    p = sub.add_parser("retrieve", help="build a tool index or query it")
    rsub = p.add_subparsers(dest="retrieve_command", metavar="ACTION")
    p.set_defaults(func=lambda _a: p.print_help() or 2)
    b = rsub.add_parser("build", help="build (or refresh) the persisted index of a tool pool")
    _pool_args(b)
    b.add_argument("--rebuild", action="store_true", help="rebuild even if the index matches")
    b.set_defaults(func=run_build)
    q = rsub.add_parser("query", help="the top-k tools of a pool for a query")
    q.add_argument("query", help="the user request to retrieve tools for")
    _pool_args(q)
    q.add_argument("-k", type=int, default=5)
    q.add_argument(
        "--strict", action="store_true", help="fail instead of building a missing or stale index"
    )
    q.add_argument("--json", action="store_true", help="JSON lines instead of a table")
    q.set_defaults(func=run_query)
    t = rsub.add_parser(
        "train",
        help="fine-tune the embedded MiniLM on generated (query, tool) pairs",
        description="Fine-tune all-MiniLM-L6-v2 as a tool retriever (in-batch negatives plus one "
        "similar candidate as a hard negative) on pairs drawn from `toollearn datagen` datasets; "
        "evaluate it with `toollearn eval retrieval --trained OUT/model`.",
    )
    t.add_argument(
        "--data",
        nargs="+",
        required=True,
        metavar="DIR[:N]",
        help="generated dataset folders, each with the pairs to draw (default all)",
    )
    t.add_argument("--out", default="runs/retriever-minilm", help="run folder")
    t.add_argument("--epochs", type=float, default=1.0)
    t.add_argument("--batch-size", type=int, default=32)
    t.add_argument("--lr", type=float, default=5e-5)
    t.add_argument("--max-seq-length", type=int, default=128)
    t.add_argument("--no-hard-negatives", action="store_true")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=None)
    t.add_argument("--lora", type=int, default=0, metavar="R",
                   help="train a LoRA adapter of rank R (alpha 2R) instead of every weight: "
                   "OUT/model holds only the adapter (about 1.4 MB at R 16)")  # fmt: skip
    t.add_argument("--decision-samples", type=int, default=0, metavar="N",
                   help="also train for DEER's Call/NoCall threshold: N Call/NoCall samples of "
                   "each (datagen deer) dataset give labelled (query, pool tool) pairs for a "
                   "CoSENT loss beside the ranking loss")  # fmt: skip
    t.set_defaults(func=run_train)

    r = rsub.add_parser(
        "train-reranker",
        help="fine-tune the embedded MiniLM as a cross-encoder on DEER decision branches",
        description="Fine-tune all-MiniLM-L6-v2 as a cross-encoder (query and tool read "
        "together, one logit: does the tool do what the query asks) on the (query, pool tool) "
        "pairs of `toollearn datagen deer` samples: the gold tool of a Call sample is positive, "
        "every other pool tool negative. Gate DEER's Call/NoCall with it: `--call-gate "
        "rerank:OUT/model`.",
    )
    r.add_argument("--data", nargs="+", required=True, metavar="DIR[:N]",
                   help="datagen deer folders, samples drawn from each (default all)")  # fmt: skip
    r.add_argument("--out", default="runs/reranker-minilm", help="run folder")
    r.add_argument("--epochs", type=float, default=1.0)
    r.add_argument("--batch-size", type=int, default=32)
    r.add_argument("--lr", type=float, default=5e-5)
    r.add_argument("--max-seq-length", type=int, default=128)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--threads", type=int, default=None)
    r.set_defaults(func=run_train_reranker)


def _load_pool(spec: str, root: str | None) -> tuple[str, list]:
    """(pool name for the index folder, tools)."""
    from toollearn.core.errors import DataError
    from toollearn.core.types import Tool

    path = Path(spec)
    if path.suffix in (".json", ".jsonl"):
        if not path.is_file():
            raise DataError("no such tool file", str(path))
        text = path.read_text()
        try:
            if path.suffix == ".json":
                records = json.loads(text)
            else:
                records = [json.loads(line) for line in text.splitlines() if line.strip()]
            return path.stem, [Tool.from_dict(d) for d in records]
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
            raise DataError(f"not a list of Tool dicts: {exc}", str(path)) from exc
    from toollearn.data.registry import load_tool_pool

    return spec.replace("/", "-"), load_tool_pool(spec, root)


def _open(args: argparse.Namespace, **kw: Any) -> Any:
    from toollearn.core.errors import RetrievalError
    from toollearn.retrieval import IndexFields, ToolRetriever, index_path

    name, tools = _load_pool(args.pool, args.data_root)
    fields = IndexFields.parse(args.fields) if args.fields else IndexFields()
    suffix = (
        ""
        if fields == IndexFields()
        else "-" + "+".join(k for k, v in fields.to_dict().items() if v)
    )
    if args.ann != "exact":
        if args.method != "dense":
            raise RetrievalError("--ann ivf applies to --method dense only")
        kw["ann"], suffix = args.ann, suffix + "-ivf"
    where = index_path(name + suffix, args.method, args.index_dir)
    return ToolRetriever(tools, args.method, fields=fields, index_dir=where, **kw), where


def run_build(args: argparse.Namespace) -> int:
    from toollearn.retrieval import read_manifest

    retriever, where = _open(args, rebuild=args.rebuild)
    m = read_manifest(where)
    state = "up to date, reloaded" if retriever.loaded else f"built in {m['build_seconds']} s"
    print(
        f"{args.method} index of {m['n_items']} tools at {where} ({state}; "
        f"hash {m['content_hash'][:12]})"
    )
    return 0


def run_query(args: argparse.Namespace) -> int:
    from toollearn.evaluation.report import format_table

    retriever, _ = _open(args, strict=args.strict)
    hits = retriever.search(args.query, args.k)
    if args.json:
        for h in hits:
            print(
                json.dumps(
                    {
                        "rank": h.rank,
                        "score": h.score,
                        "name": h.item.name,
                        "description": h.item.description,
                    },
                    ensure_ascii=False,
                )
            )
        return 0
    rows = [
        {
            "rank": h.rank,
            "score": round(h.score, 4),
            "tool": h.item.name,
            "description": h.item.description[:70],
        }
        for h in hits
    ]
    print(format_table(rows, ["rank", "score", "tool", "description"], floatfmt=".4f"))
    return 0


def register_eval(eval_sub: Any) -> None:
    """Add `toollearn eval retrieval`."""
    p = eval_sub.add_parser(
        "retrieval",
        help="tool retrieval Recall@k / nDCG@10 / all-gold-in-top-5 on Seal-Tools or ToolDEER",
        description="Rank the full tool pool for every test query with each method and write "
        "OUT/scores.json and OUT/rankings.jsonl.",
    )
    p.add_argument("--dataset", choices=("seal-tools", "tooldeer"), required=True)
    p.add_argument("--data-root", default=None, help="data folder (default $TOOLLEARN_DATA)")
    p.add_argument("--methods", default="bm25,dense,hybrid", help="comma list of methods")
    p.add_argument("--index-dir", default=None, help="index root (default cache folder)")
    p.add_argument("--fields", default=None, help="indexed tool fields (see retrieve build)")
    p.add_argument("--out", default=None, help="run folder (default runs/retrieval-<dataset>)")
    p.add_argument("--trained", default=None, metavar="MODEL_DIR",
                   help="a fine-tuned MiniLM (`toollearn retrieve train`) for the methods "
                   "dense-trained and hybrid-trained (added to --methods when given)")  # fmt: skip
    p.set_defaults(func=run_eval)


COLUMNS = [
    ("set", "set"),
    ("method", "method"),
    ("pool", "pool"),
    ("queries", "queries"),
    ("R@1", "R@1"),
    ("R@5", "R@5"),
    ("R@10", "R@10"),
    ("nDCG@10", "nDCG@10"),
    ("AllGold@5", "AllGold@5"),
]


def run_eval(args: argparse.Namespace) -> int:
    from toollearn.core.errors import DataError
    from toollearn.evaluation.report import format_table
    from toollearn.evaluation.runners.retrieval import run_retrieval
    from toollearn.retrieval import IndexFields

    root = args.data_root or os.environ.get("TOOLLEARN_DATA")
    if not root:
        raise DataError("no data root: pass --data-root DIR or set $TOOLLEARN_DATA")
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if args.trained:
        methods += [m for m in ("dense-trained", "hybrid-trained") if m not in methods]
    fields = IndexFields.parse(args.fields) if args.fields else IndexFields()
    out = Path(args.out or f"runs/retrieval-{args.dataset}")
    rows, path = run_retrieval(args.dataset, root, methods, out, args.index_dir, fields,
                               args.trained)  # fmt: skip
    print(format_table(rows, COLUMNS))
    print(f"\nwrote {path} and {out / 'predictions.jsonl'} (rankings)")
    return 0


def _dataset_counts(specs: list[str]) -> dict[str, int]:
    """`DIR` or `DIR:N` arguments -> {DIR: N} (0: all)."""
    from toollearn.core.errors import DataError

    datasets: dict[str, int] = {}
    for spec in specs:
        path, _, n = spec.partition(":")
        try:
            datasets[path] = int(n) if n else 0
        except ValueError:
            raise DataError(f"--data takes DIR or DIR:N, not {spec!r}") from None
    return datasets


def run_train(args: argparse.Namespace) -> int:
    from toollearn.retrieval.train import RetrieverConfig, train_retriever

    config = RetrieverConfig(
        output_dir=args.out, datasets=_dataset_counts(args.data), epochs=args.epochs,
        batch_size=args.batch_size, learning_rate=args.lr, max_seq_length=args.max_seq_length,
        hard_negatives=not args.no_hard_negatives, seed=args.seed, threads=args.threads,
        lora_r=args.lora, decision_samples=args.decision_samples,
    )  # fmt: skip
    run = train_retriever(config)
    info = json.loads((run / "train.json").read_text())
    print(f"trained on {info['pairs']} pairs in {info['wall_seconds']} s, loss "
          f"{info['loss_first_last']}; model: {run / 'model'}")  # fmt: skip
    return 0


def run_train_reranker(args: argparse.Namespace) -> int:
    from toollearn.retrieval.reranker import RerankerConfig, train_reranker

    config = RerankerConfig(
        output_dir=args.out, datasets=_dataset_counts(args.data), epochs=args.epochs,
        batch_size=args.batch_size, learning_rate=args.lr, max_seq_length=args.max_seq_length,
        seed=args.seed, threads=args.threads,
    )  # fmt: skip
    run = train_reranker(config)
    info = json.loads((run / "train.json").read_text())
    print(f"trained on {info['pairs']} pairs ({info['samples']} samples) in "
          f"{info['wall_seconds']} s, loss {info['loss_first_last']}; "
          f"model: {run / 'model'}")  # fmt: skip
    return 0
