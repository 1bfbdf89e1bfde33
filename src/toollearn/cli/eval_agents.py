"""`toollearn eval deer`, `eval deer-calibrate`, `eval stepwise` and `eval episodes`: the agent
benchmarks."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from toollearn.agents.clause_plan import MODES as PLAN_MODES
from toollearn.cli.common import (
    add_data_args,
    add_engine_args,
    add_plan_tuning_args,
    add_role_args,
    add_run_args,
    llama_flags,
    load_engine_from_args,
    load_engines,
    role_specs,
)
from toollearn.models import DEER_ENGINE, UMI_ENGINE


def register_eval(eval_sub: Any) -> None:
    """Add `toollearn eval deer`, `eval stepwise` and `eval episodes`."""
    from toollearn.agents.decision import PROMPTING
    from toollearn.agents.plan_gate import RULES as PLAN_GATE_RULES
    from toollearn.evaluation.runners.deer import SPLITS
    from toollearn.evaluation.runners.stepwise import MODES

    p = eval_sub.add_parser(
        "deer",
        help="ToolDEER decision-aware evaluation (P_NoSearch/P_Search/P_DS, P_NoCall/P_Call/P_DC)",
        description="Run the DEER agent (search decision, call decision over the example's "
        "5-tool pool, then the call) on a ToolDEER split or baseline file; appends "
        "OUT/predictions.jsonl (resumable) and writes OUT/scores.json.",
    )
    p.add_argument("--split", choices=SPLITS, default="test")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--constrained",
        dest="constrained",
        action="store_true",
        default=True,
        help="decisions as grammar-constrained choices, typed call (default)",
    )
    mode.add_argument("--free", dest="constrained", action="store_false",
                      help="unconstrained generation, parsed leniently")  # fmt: skip
    p.add_argument("--skip-search", action="store_true",
                   help="assume every query needs a tool (forced, recorded) to score "
                   "Decision-Call alone")  # fmt: skip
    p.add_argument("--prompting", choices=PROMPTING, default="released",
                   help="released: ToolDEER's own format (#Begin#/#SearchAPI#/#CallAPI#, "
                   "what a model trained on DEER data writes); zero-shot: three questions of "
                   "our own")  # fmt: skip
    p.add_argument("--call-threshold", type=float, default=None, metavar="MARGIN",
                   help="decide Call/NoCall by the gate's NoCall margin (--call-gate): "
                   "decline above MARGIN (pick it with `eval deer-calibrate`; default: the "
                   "model's greedy branch)")  # fmt: skip
    p.add_argument("--call-gate", default="model", metavar="GATE",
                   help="what gives the margin with --call-threshold: model (its branch "
                   "log-probabilities), similarity (the query's best cosine to a pool tool, "
                   "embedded MiniLM), similarity:MODEL_DIR (a fine-tuned one) or "
                   "rerank:MODEL_DIR (a cross-encoder, `retrieve train-reranker`)")  # fmt: skip
    p.add_argument("--gate-tool", action="store_true",
                   help="with a similarity or rerank gate: call the pool tool closest to the "
                   "query (the model writes its arguments)")  # fmt: skip
    p.add_argument("--search-threshold", type=float, default=None, metavar="MARGIN",
                   help="decide Search/NoSearch by the search gate's NoSearch margin "
                   "(--search-gate): answer without a search above MARGIN (pick it with "
                   "`eval deer-calibrate --decision search`; default: the model's greedy "
                   "branch)")  # fmt: skip
    p.add_argument("--search-gate", default=None, metavar="GATE",
                   help="with --search-threshold: classifier:FILE (a classifier `eval "
                   "deer-calibrate --decision search` fitted), similarity or "
                   "similarity:MODEL_DIR (the query's best cosine to any tool of ToolDEER's "
                   "tool.json)")  # fmt: skip
    p.add_argument("--gates", choices=("shipped", "shipped+search"), default=None,
                   help="shipped: the gates toollearn ships (`toollearn.models.deer_gates()`, "
                   "what `run --agent deer` uses: the call gate and its tool; a search gate "
                   "only if the settings name one), in place of the gate flags above; "
                   "shipped+search: the same with the shipped optional search classifier "
                   "(query embedding + length) and its threshold")  # fmt: skip
    add_data_args(p, "tooldeer/")
    add_engine_args(p, default=DEER_ENGINE)  # DEER's own adapter
    add_run_args(p)
    p.set_defaults(func=run_deer_cli)

    c = eval_sub.add_parser(
        "deer-calibrate",
        help="choose DEER's Call/NoCall threshold on held-out generated training examples",
        description="Score a gate's NoCall margin (the model's log p(' #NoCallAPI#') - log "
        "p(' #CallAPI#') after the pool, or minus the query's best similarity to a pool tool) "
        "on DEER decision branches of a generated dataset (`datagen deer`: training tools and "
        "queries only) whose queries the training run never drew, and pick the threshold that "
        "decides them best (for `eval deer --call-threshold`). Writes OUT/margins.jsonl and "
        "OUT/calibration.json.",
    )
    c.add_argument("--data", required=True, help="a `datagen deer` folder or data.jsonl")
    c.add_argument("--train-run", required=True, metavar="TRAIN_JSON",
                   help="the training run's train.json: the samples it drew are left out "
                   "(its datasets must be the files it trained on)")  # fmt: skip
    c.add_argument("--train-datasets", nargs="+", default=None, metavar="DIR",
                   help="the run's datasets whose queries could coincide with these cases "
                   "(default: all of them)")  # fmt: skip
    c.add_argument("--exclude-retriever", default=None, metavar="TRAIN_JSON",
                   help="a `retrieve train` or `retrieve train-reranker` run whose model the "
                   "gate uses: the queries it trained on are left out too")  # fmt: skip
    c.add_argument("-n", type=int, default=400, help="cases to score (default 400)")
    c.add_argument("--decision", choices=("call", "search"), default="call",
                   help="call: Call/NoCall after the pool (default); search: Search/NoSearch, "
                   "the branches' tool requests against their general queries")  # fmt: skip
    c.add_argument("--call-gate", default="model", metavar="GATE",
                   help="model, similarity, similarity:MODEL_DIR or rerank:MODEL_DIR (see "
                   "eval deer)")  # fmt: skip
    c.add_argument("--search-gate", default="classifier", metavar="GATE",
                   help="with --decision search: classifier (fitted here on the held-out "
                   "cases not scored, saved as OUT/search_gate.npz), similarity or "
                   "similarity:MODEL_DIR (best cosine to any tool of the data)")  # fmt: skip
    c.add_argument("--fit-n", type=int, default=None,
                   help="with the classifier: fit on at most this many cases (default: all "
                   "held-out cases not scored)")  # fmt: skip
    c.add_argument("--length-feature", action="store_true",
                   help="with the classifier: the query's length (log word count) is a "
                   "feature beside its MiniLM embedding")  # fmt: skip
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--out", required=True, help="folder for margins.jsonl and calibration.json")
    add_engine_args(c, default=DEER_ENGINE)  # DEER's own adapter
    c.set_defaults(func=run_deer_calibrate_cli)

    g = eval_sub.add_parser(
        "deer-gate",
        help="DEER's decisions made by the gates alone (no model): P_DS, P_NoCall/P_Call/P_DC",
        description="Decide each example of a ToolDEER split as a gated DecisionAgent with "
        "--gate-tool does (the call gate's NoCall margin against its threshold, else its "
        "closest pool tool; with a search gate, Search/NoSearch first, else search forced), "
        "without running the model: the tool is called without arguments, so P_* are exact "
        "and Call_strict means nothing. Writes OUT/predictions.jsonl and OUT/scores.json.",
    )
    g.add_argument("--split", choices=SPLITS, default="test")
    g.add_argument("--call-gate", required=True, metavar="GATE",
                   help="similarity, similarity:MODEL_DIR or rerank:MODEL_DIR")  # fmt: skip
    g.add_argument("--call-threshold", type=float, required=True, metavar="MARGIN")
    g.add_argument(
        "--search-gate",
        default=None,
        metavar="GATE",
        help="classifier:FILE, similarity or similarity:MODEL_DIR (as eval deer)",
    )
    g.add_argument("--search-threshold", type=float, default=None, metavar="MARGIN")
    g.add_argument("--threads", type=int, default=1)
    add_data_args(g, "tooldeer/")
    add_run_args(g)
    g.set_defaults(func=run_deer_gate_cli)

    s = eval_sub.add_parser(
        "stepwise",
        help="alpha-UMi static step-level evaluation on a trajectory file",
        description="Teacher-forced, greedy step-level evaluation (Plan ACC, Act EM, "
        "Hallucination, Arg F1, Rouge-L) on trajectories in alpha-UMi's released format. "
        "Without --file, the shipped demo trajectories (16, built on executable tools) are used.",
    )
    s.add_argument("--file", default=None, help="trajectory JSON (alpha-UMi format)")
    s.add_argument("--mode", choices=MODES, default="multi-role")
    add_role_args(s)
    s.add_argument("--max-tokens", type=int, default=None,
                   help="one generation limit for every role (default: planner 128, caller 96, "
                   "summarizer 128, single 160)")  # fmt: skip
    s.add_argument("--free", action="store_true",
                   help="no grammars (default: the planner's role choice and the caller's "
                   "action are constrained, as in the agents)")  # fmt: skip
    s.add_argument("--context", type=int, default=4096,
                   help="context size in tokens; longer histories are cut from the left, "
                   "keeping the instructions, tools, task and latest turns "
                   "(default 4096)")  # fmt: skip
    s.add_argument("--roles", default="planner,caller,summarizer",
                   help="multi-role: the roles asked, comma-separated (the planner always; "
                   "`planner` alone measures Plan ACC, the other metrics are then "
                   "None)")  # fmt: skip
    s.add_argument("--stop-scores", action="store_true",
                   help="record the planner's log p(conclusion thought) on every step, for "
                   "choosing a --stop-threshold on held-out steps")  # fmt: skip
    s.add_argument("--stop-threshold", type=float, default=None, metavar="LOGPROB",
                   help="the stop gate: the planner concludes only when its log p(conclusion "
                   "thought) is above LOGPROB (else calls); implies --stop-scores")  # fmt: skip
    s.add_argument("--plan-gate", choices=PLAN_GATE_RULES, default=None,
                   help="the planner's role choice re-decided by the query's call plan "
                   "(agents.plan_gate): veto (no end while a planned call is due), follow "
                   "(a call exactly while one is due), plan (the plan alone); scored beside "
                   "greedy. Steps already recorded are rescored without a model")  # fmt: skip
    add_plan_tuning_args(s)
    add_engine_args(s, default=UMI_ENGINE)  # alpha-UMi's role adapters
    add_run_args(s)
    s.set_defaults(func=run_stepwise_cli)

    e = eval_sub.add_parser(
        "episodes",
        help="alpha-UMi end to end: an agent runs each trajectory's query itself",
        description="The multi-role agent (or, with --agent tool-calls, the general agent "
        "`toollearn run` starts) runs each trajectory's query on its own (no gold "
        "history), its tools simulated (seeded, made-up outputs). An episode succeeds "
        "when it ends as the gold one (concluded or gave up) after calling the gold tools in "
        "the gold order. Without --file, the shipped demo trajectories.",
    )
    e.add_argument("--file", default=None, help="trajectory JSON (alpha-UMi format)")
    e.add_argument("--agent", choices=("multi-role", "tool-calls"), default="multi-role",
                   help="multi-role: alpha-UMi's planner/caller/summarizer (the role "
                   "options); tool-calls: the general agent on --engine (default the default "
                   "preset's model), behind the shipped call gate as in `toollearn run` (its "
                   "closing reply is its conclusion; it cannot give up)")  # fmt: skip
    e.add_argument("--no-gates", action="store_true",
                   help="tool-calls: the model alone, no call gate")  # fmt: skip
    e.add_argument("--no-sure-call", action="store_true",
                   help="tool-calls: the call gate only declines; the model decides every "
                   "query it passes (default: at or below the gate's sure-call threshold the "
                   "first turn must call)")  # fmt: skip
    e.add_argument("--ask-again-on-repeat", action="store_true",
                   help="tool-calls: a call list that repeats a call made before is generated "
                   "again without the repeated tools")  # fmt: skip
    e.add_argument("--plan", choices=PLAN_MODES,
                   help="tool-calls: follow a call plan read off the query's requests "
                   "(agents.clause_plan): one call a turn, only the due tool (due; due-reply: "
                   "then the reply) or no later planned tool first (order); or all planned "
                   "calls in one turn (batch)")  # fmt: skip
    e.add_argument("--plan-gate", choices=PLAN_GATE_RULES, default=None,
                   help="multi-role: the query's call plan re-decides the planner's role by "
                   "this rule (as in `eval stepwise`; agents.plan_gate), and while a planned "
                   "tool is due the caller may call only it")  # fmt: skip
    add_plan_tuning_args(e)
    add_role_args(e)
    e.add_argument("--free", action="store_true",
                   help="no grammars (default: the planner's role choice and the caller's "
                   "action are constrained, as in `eval stepwise`)")  # fmt: skip
    e.add_argument("--max-steps", type=int, default=None,
                   help="planner turns (tool-calls: model turns) per episode (default "
                   "8)")  # fmt: skip
    e.add_argument("--stop-threshold", type=float, default=None, metavar="LOGPROB",
                   help="the planner's stop gate, as in `eval stepwise`")  # fmt: skip
    add_engine_args(e, default=UMI_ENGINE)  # alpha-UMi's roles; tool-calls: `run`'s model
    add_run_args(e)
    e.set_defaults(func=run_episodes_cli)


def run_deer_cli(args: argparse.Namespace) -> int:
    """Load the split and engine, predict what is missing, score, print the table."""
    from toollearn.agents.decision import DecisionAgent
    from toollearn.core.errors import ToollearnError
    from toollearn.evaluation.report import format_table
    from toollearn.evaluation.runners import deer
    from toollearn.evaluation.runners.base import RunWriter, parse_shard, take_shard, with_shard

    if args.gates:
        shipped_gate_args(args)
    if args.call_threshold is None and args.gate_tool:
        raise ToollearnError("--gate-tool needs --call-threshold and --call-gate similarity")
    if args.gate_tool and not args.call_gate.startswith(("similarity", "rerank")):
        raise ToollearnError(
            "--gate-tool needs a similarity gate (--call-gate similarity[:DIR] or rerank:DIR)"
        )
    if (args.search_threshold is None) != (args.search_gate is None):
        raise ToollearnError("--search-threshold and --search-gate go together")
    if args.search_threshold is not None and args.skip_search:
        raise ToollearnError("--search-threshold decides the search that --skip-search forces")
    examples = deer.load_deer(args.split, args.data_root, sample=args.sample)
    if args.limit is not None:
        examples = examples[: args.limit]
    shard = parse_shard(args.shard)
    examples = take_shard(examples, shard)
    config = {"benchmark": "deer", "split": args.split, "sample": args.sample,
              "limit": args.limit, "engine": args.engine, "constrained": args.constrained,
              "seed": args.seed, "agent": "deer", "answer": False,
              "skip_search": args.skip_search}  # fmt: skip
    if args.call_threshold is not None:  # older runs had no such option
        config["call_threshold"], config["call_gate"] = args.call_threshold, args.call_gate
        if args.gate_tool:
            config["gate_tool"] = True
    if args.search_threshold is not None:
        config["search_threshold"], config["search_gate"] = args.search_threshold, args.search_gate
    if args.gates:
        config["gates"] = args.gates
    if args.prompting != "zero-shot":  # the runs made before the released format were zero-shot
        config["prompting"] = args.prompting
    writer = RunWriter(Path(args.out), with_shard(config, shard))
    engine = load_engine_from_args(args)
    writer.record_engine(engine)
    gate = None
    if args.call_threshold is not None:
        from toollearn.agents.call_gate import make_gate

        gate = make_gate(args.call_gate, engine)
    search_gate = None
    if args.search_threshold is not None:
        from toollearn.agents.search_gate import make_search_gate

        library = [] if args.search_gate.startswith("classifier") else deer_library(args)
        search_gate = make_search_gate(args.search_gate, library)
    agent = DecisionAgent(engine, constrained=args.constrained, answer=False, seed=args.seed,
                          decide_search=not args.skip_search, prompting=args.prompting,
                          call_threshold=args.call_threshold, call_gate=gate,
                          gate_tool=args.gate_tool, search_threshold=args.search_threshold,
                          search_gate=search_gate)  # fmt: skip
    t0 = time.perf_counter()
    records = deer.run_deer(agent, examples, writer)
    scores = deer.score_records(records, examples)
    path = writer.write_scores(scores, {"wall_seconds_predict": round(time.perf_counter() - t0, 1)})
    label = f"{args.engine} ({args.prompting}, {'constrained' if args.constrained else 'free'}"
    if args.call_threshold is not None:
        label += f", {args.call_gate} gate, threshold {args.call_threshold:g}"
        label += ", its tool" if args.gate_tool else ""
    if args.search_threshold is not None:
        label += f", {args.search_gate} search gate, threshold {args.search_threshold:g}"
    label += ", search forced)" if args.skip_search else ")"
    print(format_table(deer.summary_rows(scores, args.split, label), deer.COLUMNS, ".1f"))
    print(f"errors: {scores['errors']}; {scores['run']}", file=sys.stderr)
    print(f"scores: {path}", file=sys.stderr)
    return 0


def shipped_gate_args(args: argparse.Namespace) -> None:
    """Fill the gate flags from the shipped settings (an error if any was given too)."""
    from toollearn.core.errors import ToollearnError
    from toollearn.models import deer_gates

    given = [args.call_threshold, args.search_threshold, args.search_gate]
    if any(v is not None for v in given) or args.gate_tool or args.call_gate != "model":
        raise ToollearnError("--gates shipped sets the call and search gates; drop the others")
    gates = deer_gates(search_classifier=args.gates == "shipped+search")
    search, call = gates.get("search"), gates["call"]
    if search:
        args.search_threshold = search["threshold"]
        args.search_gate = f"{search['gate']}:{search['path']}"
    args.call_threshold, args.call_gate = call["threshold"], call["gate"]
    args.gate_tool = call["gate_tool"]


def deer_library(args: argparse.Namespace) -> list:
    """The agent's tool library: ToolDEER's tool.json (the bundled sample's with --sample)."""
    from toollearn.data.registry import load_tool_pool

    return load_tool_pool(("sample/" if args.sample else "") + "tooldeer", args.data_root)


def run_deer_gate_cli(args: argparse.Namespace) -> int:
    """Decide every example with the gates alone, score, print the table."""
    from toollearn.agents.call_gate import make_gate
    from toollearn.agents.search_gate import make_search_gate
    from toollearn.core.errors import ToollearnError
    from toollearn.evaluation.report import format_table
    from toollearn.evaluation.runners import deer
    from toollearn.evaluation.runners.base import (
        RunWriter,
        parse_shard,
        progress,
        take_shard,
        with_shard,
    )
    from toollearn.evaluation.runners.deer_gates import gate_record, gate_stats

    if not args.call_gate.startswith(("similarity", "rerank")):
        raise ToollearnError(
            "eval deer-gate needs a call gate that names its tool (similarity or rerank)"
        )
    if (args.search_threshold is None) != (args.search_gate is None):
        raise ToollearnError("--search-threshold and --search-gate go together")
    examples = deer.load_deer(args.split, args.data_root, sample=args.sample)
    examples = take_shard(examples[: args.limit], parse_shard(args.shard))
    config = {"benchmark": "deer", "split": args.split, "sample": args.sample,
              "limit": args.limit, "gates_only": True, "call_gate": args.call_gate,
              "call_threshold": args.call_threshold, "gate_tool": True,
              "search_gate": args.search_gate, "search_threshold": args.search_threshold,
              "prompting": "released"}  # fmt: skip
    writer = RunWriter(Path(args.out), with_shard(config, parse_shard(args.shard)))
    call_gate = make_gate(args.call_gate, None, args.threads)
    search_gate = None
    if args.search_gate is not None:
        library = [] if args.search_gate.startswith("classifier") else deer_library(args)
        search_gate = make_search_gate(args.search_gate, library, args.threads)
    t0 = time.perf_counter()
    done = writer.done_ids()
    for ex in progress([e for e in examples if e.id not in done], desc="deer gates"):
        writer.append(gate_record(ex, call_gate, args.call_threshold, search_gate,
                                  args.search_threshold))  # fmt: skip
    wanted = {ex.id for ex in examples}
    records = [r for r in writer.records() if r["id"] in wanted]
    scores = deer.score_records(records, examples)
    stats = gate_stats(records, examples)
    path = writer.write_scores(scores, {"wall_seconds_predict": round(time.perf_counter() - t0, 1),
                                        "gate_stats": stats})  # fmt: skip
    label = f"gates only: {args.call_gate} {args.call_threshold:g}, its tool"
    if search_gate is not None:
        label += f"; search {args.search_gate} {args.search_threshold:g}"
    rows = deer.summary_rows(scores, args.split, label)
    rows[0]["Call_strict"] = None  # no arguments were written
    print(format_table(rows, deer.COLUMNS, ".1f"))
    print(f"call gate ROC AUC {stats['call_gate_roc_auc']}; closest tool right "
          f"{stats['closest_tool_right']} of {stats['call_queries']} Call queries")  # fmt: skip
    if best := stats["best_threshold"]:
        where = "pick it here" if args.split == "valid" else "an oracle on a test split"
        print(f"best threshold on this split {best['threshold']:g} (P_DC {best['P_DC']:.1f}; "
              f"{where})")  # fmt: skip
    print(f"scores: {path}", file=sys.stderr)
    return 0


def run_deer_calibrate_cli(args: argparse.Namespace) -> int:
    """Score held-out decision cases, pick the threshold, write the files, print a summary."""
    from toollearn.datagen.dataset import read_dataset
    from toollearn.engines.provenance import file_record
    from toollearn.evaluation import calibration as cal

    data = Path(args.data)
    data = data / "data.jsonl" if data.is_dir() else data
    exclude = cal.trained_queries(args.train_run, args.train_datasets)
    n_trained = len(exclude)
    if args.exclude_retriever:
        exclude |= cal.retriever_queries(args.exclude_retriever)
    samples = list(read_dataset(data))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    engine, extra = None, {}
    if args.decision == "search":
        keys = cal.SEARCH_KEYS
        gate, cases, counts, extra = _search_gate_for_calibration(args, samples, exclude, data)
        scored = cal.score_search_cases(gate, cases)
    else:
        from toollearn.agents.call_gate import make_gate

        keys = cal.CALL_KEYS
        cases, counts = cal.decision_cases(samples, exclude, args.n, args.seed)
        engine = load_engine_from_args(args) if args.call_gate == "model" else None
        gate = make_gate(args.call_gate, engine)
        scored = cal.score_cases(gate, cases)
    threshold = cal.best_threshold(scored, keys)
    with (out / "margins.jsonl").open("w", encoding="utf-8") as fh:
        for row in scored:
            fh.write(json.dumps(row) + "\n")
    summary = {
        "decision": args.decision,
        "threshold": round(threshold, 4),
        "accuracy_at_threshold": round(100 * cal.accuracy(scored, threshold, keys), 1),
        "accuracy_at_0": round(100 * cal.accuracy(scored, 0.0, keys), 1),
        "roc_auc": None if (auc := cal.roc_auc(scored, keys)) is None else round(auc, 4),
        "cases": len(scored), f"{keys[1]}_cases": sum(s[keys[1]] for s in scored),
        "counts": counts, "trained_queries_excluded": n_trained,
        "retriever_queries_excluded": len(exclude) - n_trained if args.exclude_retriever else 0,
        "retriever_run": args.exclude_retriever,
        "train_datasets_checked": args.train_datasets or "all",
        "data": file_record(data), "train_run": str(args.train_run), "seed": args.seed,
        **gate.describe(), **extra,
        "engine": engine.describe() if hasattr(engine, "describe") else None,
        "wall_seconds": round(time.perf_counter() - t0, 1),
    }  # fmt: skip
    (out / "calibration.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(
        f"threshold {summary['threshold']}: accuracy {summary['accuracy_at_threshold']}% "
        f"(at 0: {summary['accuracy_at_0']}%), ROC AUC {summary['roc_auc']}, "
        f"{len(scored)} held-out cases ({summary[f'{keys[1]}_cases']} {keys[1].title()})"
    )
    print(f"calibration: {out / 'calibration.json'}", file=sys.stderr)
    return 0


def _search_gate_for_calibration(
    args: argparse.Namespace, samples: list, exclude: set[str], data: Path
) -> tuple[Any, list[dict[str, Any]], dict[str, int], dict[str, Any]]:
    """(the search gate, the cases to score, counts, what to record): a classifier is fitted
    on the held-out cases that are not scored; a similarity gate reads the data's tools."""
    from toollearn.agents import search_gate as sg
    from toollearn.engines.provenance import file_record
    from toollearn.evaluation import calibration as cal

    cases, counts = cal.search_cases(samples, exclude, args.seed)
    scored_cases, rest = cases[: args.n], cases[args.n :]
    if args.search_gate == "classifier":
        fit = rest[: args.fit_n] if args.fit_n is not None else rest
        path = Path(args.out) / "search_gate.npz"
        meta = sg.fit_search_classifier(
            [c["query"] for c in fit], [c["search"] for c in fit], path,
            {"data": file_record(data), "seed": args.seed,
             "train_run_queries_excluded": str(args.train_run)}, length=args.length_feature,
        )  # fmt: skip
        return sg.ClassifierSearchGate(path), scored_cases, counts, {"fitted": meta}
    library = {t.name: t for s in samples if s.metadata.get("kind") in cal.KINDS for t in s.tools}
    gate = sg.make_search_gate(args.search_gate, list(library.values()))
    return gate, scored_cases, counts, {}


def run_stepwise_cli(args: argparse.Namespace) -> int:
    """Load trajectories and role engines, predict missing steps, score, print the table."""
    from toollearn.agents.oracle import DEMO_TRAJECTORIES
    from toollearn.data.trajectories import read_trajectories
    from toollearn.evaluation.report import format_table
    from toollearn.evaluation.runners import stepwise
    from toollearn.evaluation.runners.base import RunWriter, parse_shard, take_shard, with_shard

    file = Path(args.file) if args.file else DEMO_TRAJECTORIES
    trajectories = read_trajectories(stepwise.trajectory_file(file))
    cases, skipped = stepwise.step_cases(trajectories)
    if args.limit is not None:
        cases = cases[: args.limit]
    shard = parse_shard(args.shard)
    cases = take_shard(cases, shard)
    specs = role_specs(args, single=args.mode == "single")
    tokens = dict.fromkeys(stepwise.TOKENS, args.max_tokens) if args.max_tokens else {}
    limits = {**stepwise.TOKENS, **tokens}
    roles = tuple(r.strip() for r in args.roles.split(",") if r.strip())
    unknown = sorted(set(roles) - set(stepwise.ROLES))
    if unknown or "planner" not in roles:
        raise SystemExit(f"error: --roles takes planner plus caller/summarizer, not {unknown}")
    if args.mode != "multi-role":
        roles = stepwise.ROLES  # one model answers each step whole
    stop_scores = args.stop_scores or args.stop_threshold is not None
    opts = stepwise.StepwiseOptions(not args.free, args.context, tuple(limits.items()),
                                    roles, stop_scores)  # fmt: skip
    shown_file = "builtin:demo" if args.file is None else str(file)
    config = {"benchmark": "stepwise", "file": shown_file, "mode": args.mode,
              "limit": args.limit, "engines": specs, "seed": args.seed,
              "max_tokens": limits, "constrained": opts.constrained,
              "context": opts.context}  # fmt: skip
    if roles != stepwise.ROLES:  # keys only when set, so earlier runs resume as they are
        config["roles"] = list(roles)
    if stop_scores:
        config["stop_scores"] = True
    if args.stop_threshold is not None:
        config["stop_threshold"] = args.stop_threshold
    if args.plan_gate is None and (args.plan_margin is not None or args.plan_unfit_gap is not None):
        raise SystemExit("--plan-margin and --plan-unfit-gap are for a run with --plan-gate")
    if args.plan_gate is not None:
        config["plan_gate"] = stepwise.plan_gate_config(args.plan_gate, args.plan_margin,
                                                        args.plan_unfit_gap)  # fmt: skip
    writer = RunWriter(Path(args.out), with_shard(config, shard))
    engines: dict[str, Any] = {}
    if writer.done_ids() >= {c.id for c in cases}:
        print(f"all {len(cases)} steps recorded: scored without loading a model", file=sys.stderr)
    else:
        engines = load_engines(specs, args.threads, n_ctx=args.context, **llama_flags(args))
        writer.record_engine(engines)
    t0 = time.perf_counter()
    records = stepwise.run_stepwise(cases, engines, args.mode, writer, opts)
    plans = stepwise.plan_gate_plans(cases, config.get("plan_gate"))
    scores = stepwise.score_records(records, args.stop_threshold, roles, args.plan_gate, plans)
    scores["skipped_gold_steps"] = skipped
    path = writer.write_scores(scores, {"wall_seconds_predict": round(time.perf_counter() - t0, 1)})
    label = f"{args.mode}: {specs['planner']}"
    print(format_table(stepwise.summary_rows(scores, label), stepwise.COLUMNS))
    print(stepwise.plan_errors(scores))
    if "stop_gate" in scores:
        gate = scores["stop_gate"]
        print(
            f"stop gate at {gate['threshold']}: Plan ACC {100 * scores['plan_acc']:.2f} "
            f"(greedy {100 * gate['greedy_plan_acc']:.2f}; {gate['changed']} choices changed)"
        )
    if "plan_gate" in scores:
        gate = scores["plan_gate"]
        print(
            f"plan gate ({gate['rule']}): Plan ACC {100 * scores['plan_acc']:.2f} "
            f"(greedy {100 * gate['greedy_plan_acc']:.2f}; {gate['changed']} choices changed)"
        )
    print(f"scores: {path}", file=sys.stderr)
    return 0


def role_flags(args: argparse.Namespace) -> list[str]:
    """The role engine options given (--planner, --caller, --summarizer, --role-adapters)."""
    names = ("planner", "caller", "summarizer", "role_adapters")
    return [f"--{n.replace('_', '-')}" for n in names if getattr(args, n, None)]


def run_episodes_cli(args: argparse.Namespace) -> int:
    """Load trajectories and role engines, run the missing episodes, score, print the row."""
    from toollearn.agents.oracle import DEMO_TRAJECTORIES
    from toollearn.cli.run import default_engine
    from toollearn.data.trajectories import read_trajectories
    from toollearn.evaluation.report import format_table
    from toollearn.evaluation.runners import episodes, stepwise
    from toollearn.evaluation.runners.base import RunWriter, parse_shard, take_shard, with_shard

    file = Path(args.file) if args.file else DEMO_TRAJECTORIES
    trajectories = read_trajectories(stepwise.trajectory_file(file))
    if args.limit is not None:
        trajectories = trajectories[: args.limit]
    shard = parse_shard(args.shard)
    trajectories = take_shard(trajectories, shard)
    general = args.agent == "tool-calls"
    if general and (args.stop_threshold is not None or role_flags(args) or args.plan_gate):
        raise SystemExit(
            "--agent tool-calls runs --engine alone: no role engines, stop or plan gate"
        )
    if (args.no_gates or args.no_sure_call or args.ask_again_on_repeat or args.plan) and (
        not general
    ):
        raise SystemExit(
            "--no-gates, --no-sure-call, --ask-again-on-repeat and --plan are for --agent "
            "tool-calls"
        )
    if general and args.engine == UMI_ENGINE:  # the default: `toollearn run`'s model
        args.engine = default_engine("tool-calls")
    specs = {"agent": args.engine} if general else role_specs(args)
    opts = episodes.EpisodeOptions(not args.free, args.max_steps or episodes.MAX_STEPS, args.seed,
                                   args.stop_threshold, args.agent, not args.no_gates,
                                   not (args.no_gates or args.no_sure_call),
                                   args.ask_again_on_repeat, args.plan,
                                   args.plan_margin, args.plan_unfit_gap,
                                   args.plan_gate)  # fmt: skip
    tuned = args.plan_margin is not None or args.plan_unfit_gap is not None
    if tuned and not (args.plan or args.plan_gate):
        raise SystemExit("--plan-margin and --plan-unfit-gap are for a run with a plan")
    config = {"benchmark": "episodes", "file": "builtin:demo" if args.file is None else str(file),
              "limit": args.limit, "engines": specs, "seed": args.seed,
              "constrained": opts.constrained, "max_steps": opts.max_steps}  # fmt: skip
    if args.stop_threshold is not None:  # only when set, so earlier runs resume as they are
        config["stop_threshold"] = args.stop_threshold
    if args.plan_gate:
        config["plan_gate"] = args.plan_gate
        config.update(episodes.plan_settings(opts))
    if general:
        config.update(agent=args.agent, call_gate=opts.call_gate)
        if opts.sure_call:  # recorded when on: a run made before it does not resume under it
            config["sure_call"] = True
        if opts.ask_again_on_repeat:
            config["ask_again_on_repeat"] = True
        if opts.plan:
            config["plan"] = opts.plan
        config.update(episodes.plan_settings(opts))
    writer = RunWriter(Path(args.out), with_shard(config, shard))
    roles = load_engines(specs, args.threads, **llama_flags(args))
    writer.record_engine(roles)
    t0 = time.perf_counter()
    records = episodes.run_episodes(trajectories, roles, writer, opts)
    scores = episodes.score_records(records)
    path = writer.write_scores(scores, {"wall_seconds_predict": round(time.perf_counter() - t0, 1)})
    label = f"tool-calls: {args.engine}" if general else specs["planner"]
    print(format_table([episodes.summary_row(scores, label)], episodes.COLUMNS))
    print(f"scores: {path}", file=sys.stderr)
    return 0
