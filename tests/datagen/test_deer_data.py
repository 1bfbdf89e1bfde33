"""DEER decision-branch data: the paper's recipe, every honesty check counted, the agent's exact
prompts, seeded reproducibility; and the offline general queries behind its NoSearch side."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from toollearn.agents import DecisionAgent
from toollearn.core.errors import EngineError
from toollearn.data.registry import sample_root
from toollearn.data.tooldeer import load_split, load_tools
from toollearn.datagen.dataset import Generated, write_dataset
from toollearn.datagen.deer import (
    answer_queries,
    generate_deer,
    search_samples,
    shown,
    usable_examples,
)
from toollearn.datagen.general_queries import (
    available,
    evolve,
    families,
    general_queries,
    looks_like_tool_request,
    phrasings,
)
from toollearn.datagen.leakage import (
    Exclusions,
    QueryIndex,
    deer_exclusions,
    leakage_report,
    sample_tools,
)
from toollearn.engines import ScriptedEngine
from toollearn.engines.llama import embedded_model_path
from toollearn.formats.answers import deer
from toollearn.formats.chat import ChatTemplate

SAMPLE = sample_root() / "tooldeer"


def fake_clusters(root, k: int = 6) -> dict[str, int]:
    return {t.name: i % k for i, t in enumerate(load_tools(root))}


def echo() -> ScriptedEngine:
    """Answers each bare query with a fixed sentence naming it."""
    return ScriptedEngine(lambda prompt: f"Here is my answer to: {prompt[-1].content}")


def run(root=SAMPLE, **kw):
    opts = {"clusters": fake_clusters(root), "n_nosearch": 12, "answer_engine": echo(), **kw}
    return generate_deer(root, **opts)


@pytest.fixture(scope="module")
def sample_run():
    return run()


def test_sample_run_has_every_branch_with_its_metadata(sample_run):
    kinds = {s.metadata["kind"] for s in sample_run.samples}
    assert kinds == {"call", "nocall", "nosearch", "nosearch-answer"}
    for s in sample_run.samples:
        assert {"kind", "query", "tools", "mode"} <= set(s.metadata)
        if s.metadata["kind"] in ("call", "nocall"):
            assert len(s.tools) == 5 and s.metadata["mode"] in ("random", "intra", "inter")
            assert s.metadata["tools"] == [t.name for t in s.tools]
            assert (s.metadata["gold"] in s.metadata["tools"]) == (s.metadata["kind"] == "call")
            assert all("examples" not in t.metadata for t in s.tools)  # they hold test queries
            assert s.span_texts()[0] == deer.SEARCH_SPAN  # the pool is context, not loss
            assert deer.POOL_HEAD not in "".join(s.span_texts())
    config = sample_run.config
    assert config["tools_train"] == 12 and config["by_kind"]["nosearch-answer"] == 12
    assert sample_run.rejections["tool: held-out (unseen test tool)"] == 42
    assert sample_run.rejections["query: held-out test/valid query (exact)"] > 0


def _crafted_root(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The sample with one training tool's examples made bad: a held-out query, one whose
    near-copy is held out, an unparseable call, a call with an unknown argument."""
    root = tmp_path / "tooldeer"
    shutil.copytree(SAMPLE, root)
    records = json.loads((root / "tool.json").read_text())
    held = QueryIndex(deer_exclusions(SAMPLE).queries)
    ex = [e for r in records if r["api_name"] == "qrCodes" for e in r["example"]]
    free = [e for e in ex if not held.match(e["query"])]
    free[2]["call"] = "qrCodes(text=undefined_variable)"
    free[3]["call"] = free[3]["call"][:-1] + ", colour='red')"
    (root / "tool.json").write_text(json.dumps(records))
    near = free[1]["query"].rstrip(".?") + " right away."
    return root, {"exact": free[0]["query"], "original": free[1]["query"], "near": near}


def test_crafted_bad_instances_are_rejected_and_counted(tmp_path):
    root, bad = _crafted_root(tmp_path)
    ex = deer_exclusions(root)
    ex.add_queries([bad["exact"], bad["near"]], "crafted")
    ex.add_tools({"magic"}, "crafted unseen tool")
    base = run(root, exclusions=deer_exclusions(root))
    got = run(root, exclusions=ex)
    extra = got.rejections.copy()
    extra.subtract(base.rejections)
    # magic's one held-out example now counts as an example of a held-out tool
    assert extra["query: held-out test/valid query (exact)"] == 1 - 1
    assert extra["query: held-out test/valid query (near)"] == 1
    assert extra["tool: held-out (unseen test tool)"] == 1
    assert extra["example: of a held-out tool"] == 10
    assert base.rejections["call: not a literal Python call"] == 1
    assert base.rejections["call: unknown argument"] == 1
    queries = {s.metadata["query"] for s in got.samples}
    assert not queries & {bad["exact"], bad["original"]}
    assert all("magic" not in sample_tools(s) for s in got.samples)
    assert leakage_report(got.samples, ex)["clean"]


def test_a_held_out_distractor_is_never_shown():
    ex = deer_exclusions(SAMPLE)
    tools = [t for t in load_tools(SAMPLE) if t.name not in ex.tools]
    examples = usable_examples(tools[:1], ex, Generated())
    leaked = Exclusions(set(ex.tools) | {tools[3].name}, list(ex.queries))
    out = Generated()
    pool = [shown(t) for t in tools[:6]]  # a NoCall pool takes all 5 others, the bad one too
    samples = search_samples(examples, pool, fake_clusters(SAMPLE), leaked, out, seed=0,
                             mix={"random": 1.0})  # fmt: skip
    assert out.rejections["pool: holds a held-out tool"] > 0
    assert samples and all(tools[3].name not in s.metadata["tools"] for s in samples)


def test_empty_and_failed_answers_are_rejected_and_the_cache_resumes(tmp_path):
    said = []

    def flaky(prompt):
        said.append(prompt[-1].content)
        return ["", "  \n"][len(said) - 1] if len(said) <= 2 else "A fine answer."

    cache = tmp_path / "answers.jsonl"
    got = run(answer_engine=ScriptedEngine(flaky), answers_cache=cache)
    assert got.rejections["answer: empty"] == 2
    assert got.config["by_kind"] == {**got.config["by_kind"], "nosearch": 12,
                                     "nosearch-answer": 10}  # fmt: skip
    assert len(cache.read_text().splitlines()) == 12
    again = run(answer_engine=ScriptedEngine([]), answers_cache=cache)  # nothing is re-asked
    assert [s.target for s in again.samples] == [s.target for s in got.samples]

    def broken(prompt):
        raise EngineError("server down")

    failed = answer_queries(["Why is the sky blue?"], ScriptedEngine(broken), tmp_path / "b.jsonl")
    assert failed["Why is the sky blue?"]["error"]
    assert not (tmp_path / "b.jsonl").exists() or not (tmp_path / "b.jsonl").read_text()
    out = run(answer_engine=ScriptedEngine(broken), n_nosearch=3)
    assert out.rejections["answer: engine failed"] == 3


def test_same_seed_same_bytes_other_seed_differs(tmp_path):
    paths = []
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        got = run(seed=seed)
        write_dataset(tmp_path / name, got.samples, config=got.config, rejections=got.rejections)
        paths.append((tmp_path / name / "data.jsonl").read_bytes())
    assert paths[0] == paths[1]
    assert paths[0] != paths[2]


def test_samples_are_exactly_what_the_agent_sends(sample_run):
    template = ChatTemplate.from_gguf(embedded_model_path())
    by_kind: dict[str, list] = {}
    for s in sample_run.samples:
        by_kind.setdefault(s.metadata["kind"], []).append(s)
    for s in by_kind["call"][:8] + by_kind["nocall"][:8]:
        engine = ScriptedEngine(s.span_texts())
        trace = DecisionAgent(engine, answer=False, execute=False).run(s.metadata["query"],
                                                                       list(s.tools))  # fmt: skip
        assert engine.prompts == s.prompts()
        for sent, wanted in zip(engine.prompts, s.prompts(), strict=True):
            assert template.render(sent) == template.render(wanted)
        gold = s.metadata["gold"] if s.metadata["kind"] == "call" else None
        assert trace.decisions()["tool"] == gold
        assert s.target.startswith(trace.meta["deer_text"])
    answers = {s.metadata["query"]: s for s in by_kind["nosearch-answer"]}
    for s in by_kind["nosearch"][:5]:
        chat = answers[s.metadata["query"]]
        engine = ScriptedEngine([*s.span_texts(), chat.target])
        trace = DecisionAgent(engine).run(s.metadata["query"])
        assert engine.prompts[0] == s.prompts()[0]
        assert engine.prompts[1] == list(chat.messages) == chat.prompts()[0]  # direct answer
        assert engine.requests[1]["max_tokens"] == 128 and engine.requests[1]["temperature"] == 0
        assert trace.answer == chat.target and chat.task == "chat"


def test_mix_is_configurable():
    only_intra = run(mix={"intra": 1.0}, n_nosearch=0)
    assert {s.metadata["mode"] for s in only_intra.samples} == {"intra"}
    assert only_intra.config["mix"] == {"intra": 1.0}


@pytest.fixture(scope="module")
def real_run(deer_dir):
    return run(deer_dir, clusters=fake_clusters(deer_dir, 30), n_nosearch=40)


@pytest.mark.shared
def test_real_data_follows_the_recipe_and_is_clean(real_run, deer_dir):
    search = [s for s in real_run.samples if s.metadata["kind"] in ("call", "nocall")]
    assert 7000 < len(search) < 8650  # 8,650 examples minus held-out and unusable ones
    calls = sum(s.metadata["kind"] == "call" for s in search)
    assert 0.58 < calls / len(search) < 0.62
    for mode, share in {"random": 0.4, "intra": 0.2, "inter": 0.4}.items():
        got = sum(s.metadata["mode"] == mode for s in search) / len(search)
        assert abs(got - share) < 0.03, (mode, got)
    assert real_run.config["tools_train"] == 900
    ex = deer_exclusions(deer_dir)
    report = leakage_report(real_run.samples, ex)
    assert report["clean"], report
    assert real_run.rejections["tool: held-out (unseen test tool)"] == 77
    assert real_run.rejections["query: held-out test/valid query (exact)"] >= 872 - 10


@pytest.mark.shared
def test_general_queries_are_many_varied_and_need_no_tool(deer_dir):
    assert len(phrasings()) >= 40 and available() >= 2000
    first = general_queries(2000, seed=0)
    assert len(set(first)) == 2000 and first == general_queries(2000, seed=0)
    assert first != general_queries(2000, seed=1)
    assert not [q for q in first if looks_like_tool_request(q)]
    for bad in ("What's the weather in Paris today?", "Book a table for two",
                "Search the database for orders", "Get the live price of gold"):  # fmt: skip
        assert looks_like_tool_request(bad)
    valid = [e.query for e in load_split(deer_dir, "valid")]
    index = QueryIndex(valid)
    assert not [q for q in first if index.match(q)]


@pytest.mark.shared
def test_evol_general_queries_grow_the_plain_ones_in_breadth_and_depth(deer_dir):
    assert available("evol") > available() + 3000 and len(phrasings("evol")) >= 90
    assert set(families()) < set(families("evol"))
    first = general_queries(2000, seed=0, style="evol")
    assert len(set(first)) == 2000 and first == general_queries(2000, seed=0, style="evol")
    assert not [q for q in first if looks_like_tool_request(q)]
    assert general_queries(50, seed=0) == general_queries(50, seed=0, style="plain")
    plain = set(q for qs in families("evol").values() for q in qs)
    evolved = [q for q in first if q not in plain]
    assert 0.7 < len(evolved) / len(first) < 0.9  # 0 operators on about a fifth

    def sentences(qs):  # queries of more than one sentence
        return sum(bool(re.search(r'[.?!"] [A-Z]', q)) for q in qs)

    assert sentences(first) > 2 * sentences(general_queries(2000, seed=0))
    index = QueryIndex([e.query for e in load_split(deer_dir, "valid")])
    assert not [q for q in first if index.match(q)]
    with pytest.raises(ValueError, match="unknown general-query style"):
        general_queries(5, style="wizard")


def test_evolve_applies_at_most_two_distinct_operators():
    import random

    rng = random.Random(0)
    grown = [evolve("Explain entropy.", rng) for _ in range(300)]
    assert "Explain entropy." in grown  # no operator
    assert all("Explain entropy." in g and "{" not in g for g in grown)
    assert max(g.count("Explain your reasoning step by step.") for g in grown) <= 1


def test_decisions_only_when_no_answers_are_asked_for():
    out = run(answers=False, answer_engine=None, general="evol")
    kinds = {s.metadata["kind"] for s in out.samples}
    assert "nosearch" in kinds and "nosearch-answer" not in kinds
    assert out.config["by_kind"]["nosearch"] == 12 and out.config["general_queries"] == "evol"
    assert not [r for r in out.rejections if r.startswith("answer")]


@pytest.mark.model
def test_every_span_is_what_the_grammar_admits(sample_run, admits):
    """Targets are written as constrained decoding writes them (calls fit their tools)."""
    from toollearn.decoding import deer_constraint

    for s in sample_run.samples:
        if s.task != "deer":
            continue
        for stage, text in zip(("search", "call"), s.span_texts()):
            assert admits(deer_constraint(s.tools, stage).grammar, text), (s.source, text)


def test_cut_off_answers_keep_their_complete_sentences():
    from toollearn.datagen.deer import complete_sentences

    assert complete_sentences("Hello there. This is cut") == "Hello there."
    assert complete_sentences("Use 3.5 cups. Then stir") == "Use 3.5 cups."
    assert complete_sentences("A list:\n1. One.\n2. Tw") == "A list:\n1. One."
    assert complete_sentences("no sentence end at all") == ""


def test_the_cli_reads_pool_weights_as_random_intra_inter():
    import argparse

    from toollearn.cli.datagen import pool_mix

    assert pool_mix("2:1:2") == {"random": 2.0, "intra": 1.0, "inter": 2.0}
    assert pool_mix("1:0:0") == {"random": 1.0}
    for bad in ("2:1", "a:b:c", "0:0:0", "-1:1:1"):
        with pytest.raises(argparse.ArgumentTypeError, match="R:I:X"):
            pool_mix(bad)
