"""DEER Call/NoCall calibration: held-out cases, threshold choice, and the training exclusion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toollearn.agents.call_gate import ModelGate, SimilarityGate, make_gate
from toollearn.core.errors import DataError
from toollearn.core.types import Example, Tool, ToolCall
from toollearn.datagen.samples import deer_sample
from toollearn.evaluation import calibration as cal
from toollearn.formats.answers import deer

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
WEATHER = Tool("get_weather", "Weather of a city", CITY)


def sample(query: str, call: bool):
    ex = Example(id=query, query=query, tools=(WEATHER,), needs_tool=True, has_suitable_tool=call,
                 calls=(ToolCall("get_weather", {"city": "Oslo"}),) if call else ())  # fmt: skip
    s = deer_sample(ex)[0]
    s.metadata.update({"kind": "call" if call else "nocall", "query": query})
    return s


def scored(*pairs):
    return [{"nocall_margin": m, "call": c} for m, c in pairs]


def test_decision_cases_keep_the_turn_up_to_the_decision_and_leave_out_trained_queries():
    samples = [sample("weather in Oslo?", True), sample("tell a joke", False),
               sample("rain in Bergen?", True)]  # fmt: skip
    cases, counts = cal.decision_cases(samples, {"rain in Bergen?"}, n=10)
    assert counts == {"decision_samples": 3, "excluded_trained_query": 1, "held_out": 2}
    by_query = {c["query"]: c for c in cases}
    assert set(by_query) == {"weather in Oslo?", "tell a joke"}
    assert by_query["tell a joke"]["call"] is False
    assert by_query["weather in Oslo?"]["prefix"] == deer.SEARCH_SPAN + deer.pool_text([WEATHER])


def test_threshold_accuracy_and_auc():
    rows = scored((-3, True), (-1, True), (0.5, False), (2, False), (1, True))
    t = cal.best_threshold(rows)
    assert t == -0.25 and cal.accuracy(rows, t) == pytest.approx(0.8)  # tie with 1.5: nearer 0
    assert cal.accuracy(rows, 0.0) == pytest.approx(0.8)
    assert cal.roc_auc(rows) == pytest.approx(5 / 6)
    assert cal.roc_auc(scored((0, True))) is None
    perfect = scored((-2, True), (3, False))
    assert cal.accuracy(perfect, cal.best_threshold(perfect)) == 1.0
    with pytest.raises(DataError):
        cal.best_threshold([])


def test_sure_threshold_is_the_highest_margin_with_enough_calls_below():
    rows = scored((-3, True), (-2, True), (-1.5, False), (-1, True), (-0.5, True), (0, False))
    assert cal.sure_threshold(rows, 1.0) == -2
    assert cal.sure_threshold(rows, 0.75) == -0.5  # 4 of 5 at or below -0.5
    assert cal.sure_threshold(rows, 0.5) == 0  # 4 of 6
    assert cal.sure_threshold(scored((-1, False), (0, True)), 0.9) is None
    tied = scored((-1, True), (-1, False), (0, True))
    assert cal.sure_threshold(tied, 0.6) == 0  # -1 counts both of its cases: 1 of 2


def test_scored_cases_read_the_engine_margin():
    from toollearn.engines import ScriptedEngine

    def logprobs(prompt, cont):
        joke = "joke" in prompt[0].content
        return (-0.1 if joke else -4.0) if cont == f" {deer.NOCALL}" else -1.0

    engine = ScriptedEngine([], logprobs=logprobs)
    cases, _ = cal.decision_cases([sample("weather?", True), sample("a joke", False)], set(), 5)
    rows = {r["query"]: r for r in cal.score_cases(ModelGate(engine), cases)}
    assert rows["a joke"]["pool"] == ["get_weather"] and "prefix" not in rows["a joke"]
    assert rows["a joke"]["nocall_margin"] == pytest.approx(0.9)
    assert rows["weather?"]["nocall_margin"] == pytest.approx(-3.0)
    assert engine.requests == []  # scored, never generated


def test_similarity_gate_reads_the_query_against_the_pool_with_minilm():
    gate = make_gate("similarity")
    assert isinstance(gate, SimilarityGate) and "MiniLM" in gate.describe()["encoder"]
    fits = gate.score("What is the weather like in Oslo today?", [WEATHER], [])
    unrelated = gate.score("Write a short poem about my cat.", [WEATHER], [])
    assert fits["closest_tool"] == "get_weather"
    assert fits["nocall_margin"] < unrelated["nocall_margin"]
    assert gate.score("anything", [], [])["nocall_margin"] == float("inf")
    with pytest.raises(ValueError, match="unknown call gate"):
        make_gate("oracle")


def nosearch(query: str):
    s = sample(query, False)
    s.metadata["kind"] = "nosearch"
    return s


def test_search_cases_label_tool_requests_and_general_queries():
    samples = [sample("weather in Oslo?", True), sample("rain in Bergen?", False),
               nosearch("tell a joke"), nosearch("tell a joke"), nosearch("a poem")]  # fmt: skip
    cases, counts = cal.search_cases(samples, {"a poem"})
    assert counts == {"decision_samples": 5, "excluded_trained_query": 1, "repeated_query": 1,
                      "held_out": 3}  # fmt: skip
    assert {c["query"]: c["search"] for c in cases} == {
        "weather in Oslo?": True, "rain in Bergen?": True, "tell a joke": False}  # fmt: skip
    rows = [{"nosearch_margin": m, "search": s} for m, s in ((-2, True), (-1, True), (3, False))]
    t = cal.best_threshold(rows, cal.SEARCH_KEYS)
    assert cal.accuracy(rows, t, cal.SEARCH_KEYS) == 1.0 and -1 < t < 3
    assert cal.roc_auc(rows, cal.SEARCH_KEYS) == 1.0


REQUESTS = ["What is the weather in Oslo today?", "Book a table for two in Rome tonight.",
            "Convert 100 dollars to euros.", "Find flights from Paris to Berlin tomorrow.",
            "Get the latest news about electric cars.", "Show Apple's stock price."]  # fmt: skip
GENERAL = ["Write a poem about the sea.", "Explain photosynthesis to a child.",
           "What are the pros and cons of working from home?", "Tell me a story about a fox.",
           "Why is the sky blue?", "Give me advice on learning to paint."]  # fmt: skip


def test_search_classifier_fits_saves_and_scores_with_minilm(tmp_path):
    from toollearn.agents.search_gate import (
        ClassifierSearchGate,
        LibrarySearchGate,
        fit_search_classifier,
        make_search_gate,
    )

    path = tmp_path / "gate.npz"
    meta = fit_search_classifier(REQUESTS + GENERAL, [True] * 6 + [False] * 6, path,
                                 {"data": "inline"})  # fmt: skip
    assert meta["fitted_on"] == {"queries": 12, "search": 6, "no_search": 6}
    gate = make_search_gate(f"classifier:{path}")
    assert isinstance(gate, ClassifierSearchGate) and gate.describe()["classifier_sha256"]
    request = gate.score("What will the weather be in Madrid tomorrow?")
    general = gate.score("Write a short poem about autumn leaves.")
    assert request["nosearch_margin"] < general["nosearch_margin"]
    library = make_search_gate("similarity", [WEATHER])
    assert isinstance(library, LibrarySearchGate) and library.describe()["library_tools"] == 1
    assert library.score("Weather in Oslo?")["closest_tool"] == "get_weather"
    with pytest.raises(DataError, match="both"):
        fit_search_classifier(REQUESTS, [True] * 6, tmp_path / "x.npz", {})
    (tmp_path / "bad.npz").write_bytes(b"not numpy")
    with pytest.raises(DataError, match="not a search-gate classifier"):
        ClassifierSearchGate(tmp_path / "bad.npz")
    with pytest.raises(DataError, match="library"):
        make_search_gate("similarity", [])
    with pytest.raises(ValueError, match="unknown search gate"):
        make_search_gate("classifier")


def test_search_classifier_with_the_length_feature(tmp_path):
    import numpy as np

    from toollearn.agents.search_gate import ClassifierSearchGate, fit_search_classifier, log_words

    long_general = [
        q + " Discuss the history, the main arguments on each side, and give three "
        "examples from different countries in a structured essay."
        for q in GENERAL
    ]
    queries, labels = REQUESTS + long_general, [True] * 6 + [False] * 6
    meta = fit_search_classifier(queries, labels, tmp_path / "len.npz", {}, length=True)
    logs = log_words(queries)
    assert meta["length"] == {"mean": float(logs.mean()), "std": float(logs.std())}
    gate = ClassifierSearchGate(tmp_path / "len.npz")
    assert gate.coef.shape == (385,) and gate.describe()["length_feature"] is True
    # the length column is standardised with the fitting queries' statistics
    column = (log_words(["a b c"]) - meta["length"]["mean"]) / meta["length"]["std"]
    expected = np.hstack([gate.encoder.encode(["a b c"])[0], column]) @ gate.coef + gate.bias
    assert gate.score("a b c")["search_logit"] == round(float(expected), 4)
    short = gate.score("What is the weather in Madrid tomorrow?")["nosearch_margin"]
    long = gate.score(long_general[0].replace("poem", "song"))["nosearch_margin"]
    assert short < long
    fit_search_classifier(queries, labels, tmp_path / "plain.npz", {})  # no length: as before
    plain = ClassifierSearchGate(tmp_path / "plain.npz")
    assert plain.coef.shape == (384,) and "length_feature" not in plain.describe()


def test_trained_queries_recompute_the_run_mixture_and_check_hashes(tmp_path):
    from toollearn.datagen.dataset import write_dataset
    from toollearn.training.data import file_sha256

    data = tmp_path / "deer"
    write_dataset(data, [sample(f"q{i}", i % 2 == 0) for i in range(10)], config={})
    run = {"config": {"datasets": {str(data): 1}, "samples": 4, "eval_samples": 1, "seed": 3},
           "datasets": {str(data): {"sha256": file_sha256(data / "data.jsonl")}}}  # fmt: skip
    (tmp_path / "train.json").write_text(json.dumps(run))
    drawn = cal.trained_queries(tmp_path / "train.json")
    assert len(drawn) == 4 and drawn <= {f"q{i}" for i in range(10)}
    from toollearn.training.data import load_mixture

    mix = load_mixture({str(data): 1}, 4, 1, 3)
    assert drawn == {s.metadata["query"] for s in [*mix.train, *mix.eval]}
    assert cal.trained_queries(tmp_path / "train.json", [str(data)]) == drawn
    with pytest.raises(DataError, match="trained on no dataset"):
        cal.trained_queries(tmp_path / "train.json", ["elsewhere"])
    run["datasets"][str(data)]["sha256"] = "0" * 64
    (tmp_path / "train.json").write_text(json.dumps(run))
    with pytest.raises(DataError, match="not the file the run trained on"):
        cal.trained_queries(tmp_path / "train.json")


@pytest.mark.model
def test_calibrate_then_run_with_the_threshold_on_the_real_model(tmp_path, capsys):
    pytest.importorskip("llama_cpp")
    from toollearn.cli.main import main
    from toollearn.datagen.dataset import write_dataset
    from toollearn.training.data import file_sha256

    data = tmp_path / "deer"
    queries = ["What is the weather in Oslo?", "Tell me a joke about cats.",
               "Will it rain in Bergen tomorrow?", "Write a haiku about spring."]  # fmt: skip
    write_dataset(data, [sample(q, i % 2 == 0) for i, q in enumerate(queries)], config={})
    run = {"config": {"datasets": {str(data): 1}, "samples": 1, "eval_samples": 0, "seed": 0},
           "datasets": {str(data): {"sha256": file_sha256(data / "data.jsonl")}}}  # fmt: skip
    (tmp_path / "train.json").write_text(json.dumps(run))
    out = tmp_path / "cal"
    argv = ["eval", "deer-calibrate", "--data", str(data), "--train-run",
            str(tmp_path / "train.json"), "--engine", "llama", "--threads", "1",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    summary = json.loads((out / "calibration.json").read_text())
    assert summary["cases"] == 3 and summary["trained_queries_excluded"] == 1
    margins = [json.loads(line) for line in (out / "margins.jsonl").read_text().splitlines()]
    assert all(m["logprob_call"] < 0 and m["logprob_nocall"] < 0 for m in margins)
    assert summary["accuracy_at_threshold"] >= summary["accuracy_at_0"]

    threshold = summary["threshold"]
    run_dir = tmp_path / "run"
    assert main(["eval", "deer", "--sample", "--skip-search", "--limit", "2", "--engine", "llama",
                 "--threads", "1", "--call-threshold", str(threshold),
                 "--out", str(run_dir)]) == 0  # fmt: skip
    assert f"threshold {threshold:g}" in capsys.readouterr().out
    lines = (run_dir / "predictions.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    for rec in records:
        decision = [s for s in rec["trace"]["steps"] if s["kind"] == "decision"][-1]
        assert decision["data"]["call_threshold"] == threshold
        if decision["data"]["nocall_margin"] > threshold:  # declined without a call
            assert decision["data"]["has_suitable_tool"] is False


def test_eval_deer_with_a_fitted_search_gate_on_the_real_model(tmp_path, capsys):
    pytest.importorskip("llama_cpp")
    from toollearn.agents.search_gate import fit_search_classifier
    from toollearn.cli.main import main

    path = tmp_path / "gate.npz"
    fit_search_classifier(REQUESTS + GENERAL, [True] * 6 + [False] * 6, path, {})
    run_dir = tmp_path / "run"
    argv = ["eval", "deer", "--sample", "--split", "valid", "--limit", "3", "--engine", "llama",
            "--threads", "1", "--search-threshold", "0", "--search-gate", f"classifier:{path}",
            "--out", str(run_dir)]  # fmt: skip
    assert main(argv) == 0
    assert "search gate, threshold 0" in capsys.readouterr().out
    records = [json.loads(x) for x in (run_dir / "predictions.jsonl").read_text().splitlines()]
    assert len(records) == 3
    for rec in records:
        search = next(s for s in rec["trace"]["steps"] if s["kind"] == "decision")
        assert search["data"]["needs_tool"] == (search["data"]["nosearch_margin"] <= 0)
        assert rec["trace"]["meta"]["search_threshold"] == 0
    scores = json.loads((run_dir / "scores.json").read_text())
    assert scores["config"]["search_gate"] == f"classifier:{path}"
    assert main([*argv[:-6], "--search-threshold", "0", "--out", str(tmp_path / "x")]) == 1
    assert "go together" in capsys.readouterr().err
    assert main([*argv[:-2], "--skip-search", "--out", str(tmp_path / "y")]) == 1
    assert "--skip-search forces" in capsys.readouterr().err


def test_gated_agent_uses_the_shipped_call_gate_and_its_answer_engine():
    from toollearn.agents import DecisionAgent
    from toollearn.engines import ScriptedEngine
    from toollearn.models import deer_gates

    gates = deer_gates()
    assert gates["search"] is None and gates["call"]["gate_tool"] is True
    assert gates["search_classifier"]["calibration"]["roc_auc"] > 0.9  # kept, not on by default
    kind, _, path = gates["call"]["gate"].partition(":")  # the shipped LoRA'd MiniLM
    assert kind == "similarity" and Path(path).name == "deer-call-gate"
    assert (Path(path) / "adapter_model.safetensors").stat().st_size < 2_000_000
    other = Tool("get_joke", "A random joke", {"type": "object", "properties": {}})
    call = " get_weather(city='Rome') #APIResponse#"
    engine = ScriptedEngine([deer.SEARCH_SPAN, deer.SEARCH_SPAN, call])
    answerer = ScriptedEngine(["Waves roll in under a silver moon."])
    agent = DecisionAgent.gated(engine, answer_engine=answerer)
    poem = agent.run("Write a short poem about the sea.", [WEATHER, other])
    assert poem.meta["outcome"] == "no_call" and poem.answer.startswith("Waves")
    assert len(engine.requests) == 1 and poem.meta["gate"] == "similarity"  # search only
    assert "LoRA adapter (sha256" in agent.config()["encoder"]
    rome = agent.run("What is the weather in Rome today?", [other, WEATHER])
    decided = rome.decisions()
    assert decided["needs_tool"] is True and decided["tool"] == "get_weather"
    assert rome.calls[0].arguments == {"city": "Rome"}
    grammar = engine.requests[2]["constraint"].grammar
    assert "get_weather" in grammar and "get_joke" not in grammar  # the gate's closest tool

    # the shipped optional search classifier decides Search: an evolved instruction gets none
    engine = ScriptedEngine([])
    agent = DecisionAgent.gated(engine, answer_engine=ScriptedEngine(["An essay."]),
                                search_classifier=True)  # fmt: skip
    essay = agent.run(
        "Write a persuasive essay of at least five paragraphs on whether cities should ban cars "
        "from their historic centres, weighing the effects on local shops, air quality, tourism "
        "and residents' daily lives, and end with a recommendation for a mid-sized town.",
        [WEATHER, other],
    )
    assert essay.meta["outcome"] == "no_search" and essay.answer == "An essay."
    assert not engine.requests and agent.config()["search_gate"] == "classifier"


def test_eval_deer_shipped_gates_fill_the_flags_and_refuse_others(tmp_path, capsys):
    from toollearn.cli.main import main
    from toollearn.models import deer_gates

    base = ["eval", "deer", "--sample", "--engine", "scripted", "--limit", "2", "--gates",
            "shipped"]  # fmt: skip
    assert main([*base, "--call-threshold", "0", "--out", str(tmp_path / "x")]) == 1
    assert "drop the others" in capsys.readouterr().err
    assert main([*base, "--out", str(tmp_path / "run")]) == 0
    config = json.loads((tmp_path / "run" / "scores.json").read_text())["config"]
    assert config["gates"] == "shipped" and config["gate_tool"] is True
    assert config["call_gate"].endswith("deer-call-gate") and "search_gate" not in config
    plus = ["--gates", "shipped+search", "--out", str(tmp_path / "plus")]
    assert main([*base[:-2], *plus]) == 0
    config = json.loads((tmp_path / "plus" / "scores.json").read_text())["config"]
    assert config["search_gate"].endswith("deer-search-gate.npz")
    assert config["search_threshold"] == deer_gates()["search_classifier"]["threshold"]


def test_retriever_queries_recompute_the_pairs_a_retriever_trained_on(tmp_path):
    from dataclasses import replace

    from toollearn.datagen.dataset import write_dataset
    from toollearn.engines.provenance import file_record

    joke = Tool("get_joke", "A random joke", {"type": "object", "properties": {}})
    samples = []
    for query in ["weather in Oslo?", "rain in Bergen?", "snow in Tromso?"]:
        s = replace(sample(query, True), tools=(WEATHER, joke))
        s.metadata["gold"] = "get_weather"
        samples.append(s)
    write_dataset(tmp_path / "d", samples, config={})
    data = tmp_path / "d" / "data.jsonl"
    info = {"config": {"datasets": {str(tmp_path / "d"): 2}, "seed": 0},
            "datasets": [{"data": file_record(data)}]}  # fmt: skip
    (tmp_path / "train.json").write_text(json.dumps(info))
    drawn = cal.retriever_queries(tmp_path / "train.json")
    assert len(drawn) == 2 and drawn < {"weather in Oslo?", "rain in Bergen?", "snow in Tromso?"}
    data.write_text(data.read_text() + "\n")
    with pytest.raises(DataError, match="not the file the retriever trained on"):
        cal.retriever_queries(tmp_path / "train.json")


def test_eval_deer_gate_decides_by_the_gates_alone(tmp_path, capsys):
    from toollearn.cli.main import main

    out = tmp_path / "gates"
    argv = ["eval", "deer-gate", "--sample", "--split", "test", "--call-gate", "similarity",
            "--call-threshold", "-0.3", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    assert "gates only: similarity -0.3, its tool" in capsys.readouterr().out
    records = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert records
    for rec in records:
        gate = rec["gates"]["call"]
        if gate["nocall_margin"] > -0.3:
            assert rec["call"] is None and rec["output"].endswith(deer.NO_CALL_SPAN)
        else:
            assert rec["call"]["name"] == gate["closest_tool"]
    scores = json.loads((out / "scores.json").read_text())
    assert scores["config"]["gates_only"] is True and scores["scores"]["n"] == len(records)
    stats = scores["gate_stats"]
    assert (
        0 <= stats["call_gate_roc_auc"] <= 1
        and stats["closest_tool_right"] <= stats["call_queries"]
    )
    assert main([*argv[:-2], "--call-gate", "model", "--out", str(tmp_path / "m")]) == 1
    assert "names its tool" in capsys.readouterr().err


def test_gate_stats_find_the_threshold_with_the_most_right_decisions():
    from toollearn.evaluation.runners.deer_gates import gate_stats

    joke = Tool("get_joke", "A random joke", {"type": "object", "properties": {}})

    def case(i: int, call: bool, margin: float, closest: str) -> tuple[Example, dict]:
        ex = Example(f"q{i}", f"query {i}", (WEATHER, joke), needs_tool=True,
                     has_suitable_tool=call,
                     calls=(ToolCall("get_weather", {}),) if call else ())  # fmt: skip
        rec = {"id": ex.id, "gates": {"call": {"nocall_margin": margin, "closest_tool": closest}}}
        return ex, rec

    cases = [case(0, True, -0.9, "get_weather"), case(1, True, -0.8, "get_weather"),
             case(2, True, -0.7, "get_joke"),  # wrong tool: wrong at any threshold
             case(3, False, -0.6, "get_joke"), case(4, False, -0.5, "get_weather"),
             case(5, False, -0.4, "get_joke"), case(6, False, -0.3, "get_joke")]  # fmt: skip
    examples, records = [c[0] for c in cases], [c[1] for c in cases]
    no_search = Example("q7", "hello", (), needs_tool=False)
    stats = gate_stats(records, [*examples, no_search])
    assert stats["call_queries"] == 3 and stats["closest_tool_right"] == 2
    best = stats["best_threshold"]  # call up to -0.8: 2 calls + 4 declines right of 7
    assert best["n"] == 7 and best["P_DC"] == round(100 * 6 / 7, 2)
    assert -0.8 < best["threshold"] < -0.6
    assert gate_stats([], examples)["best_threshold"] is None


def test_the_shipped_sure_call_threshold_is_recomputed_from_valid(shared_data):
    """deer-gates.json's sure-call threshold is results/agent-sure-call/choose.py's choice on
    the committed valid margins, and that folder's choice.json."""
    import importlib.util
    from pathlib import Path

    from toollearn.models import deer_gates

    root = Path(__file__).resolve().parents[2]
    path = root / "results" / "agent-sure-call" / "choose.py"
    spec = importlib.util.spec_from_file_location("choose_sure_call", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.RUN = root / module.RUN  # the script runs from the repository root
    choice = module.choose(str(shared_data))
    committed = json.loads((path.parent / "choice.json").read_text())
    assert choice["sure_call_threshold"] == committed["sure_call_threshold"]
    assert choice["sure_call_threshold"] == deer_gates()["call"]["sure_call_threshold"]
    assert choice["call_queries_at_or_below"] / choice["at_or_below"] >= 0.98
