"""Natural ToolDEER queries as call samples in the tool-calls and Seal-Tools formats: single,
multi and parallel instances, the agents' exact prompts, honesty checks and reproducibility."""

from __future__ import annotations

import json
import random
import shutil

import pytest

from toollearn.agents import MultiCallAgent, ToolCallsAgent
from toollearn.data.registry import sample_root
from toollearn.datagen.dataset import write_dataset
from toollearn.datagen.leakage import QueryIndex, deer_exclusions, leakage_report, sample_tools
from toollearn.datagen.natural import (
    CONNECTIVES,
    Decapitaliser,
    generate_natural,
    join_queries,
)
from toollearn.engines import ScriptedEngine
from toollearn.engines.llama import embedded_model_path
from toollearn.formats.answers import seal_tools, tool_calls
from toollearn.formats.chat import ChatTemplate

SAMPLE = sample_root() / "tooldeer"


@pytest.fixture(scope="module")
def sample_run():
    return generate_natural(SAMPLE, n_multi=20, n_parallel=10)


def test_every_kind_in_every_format(sample_run):
    config = sample_run.config
    assert config["by_task"] == {"seal-tools": config["by_task"]["tool-calls"],
                                 "tool-calls": config["by_task"]["tool-calls"]}  # fmt: skip
    assert config["by_kind"]["multi"] == 40 and config["by_kind"]["parallel"] == 20
    for s in sample_run.samples:
        kind, meta = s.metadata["kind"], s.metadata
        assert len(s.tools) == 5 and meta["tools"] == [t.name for t in s.tools]
        assert set(meta["gold"]) <= set(meta["tools"])
        assert all("examples" not in t.metadata for t in s.tools)
        calls = (tool_calls.parse(s.target).calls if s.task == "tool-calls"
                 else seal_tools.parse_calls(s.target))  # fmt: skip
        assert [c.name for c in calls] == meta["gold"]
        if kind == "single":
            assert meta["query"] in s.messages[-1].content and len(calls) == 1
        else:
            assert 2 <= len(meta["queries"]) <= 3
            assert len(meta["connectives"]) == len(meta["queries"]) - 1
        if kind == "parallel":
            assert len(set(meta["gold"])) == 1
        if kind == "multi":
            assert len(set(meta["gold"])) == len(meta["gold"])
        if s.task == "seal-tools":  # ids numbered across the list, one per call (no fields)
            ids = [r for c in calls for r in c.responses]
            assert ids == [f"API_call_{i}" for i in range(len(calls))]


def test_prompts_are_what_the_agents_send(sample_run):
    template = ChatTemplate.from_gguf(embedded_model_path())
    picked = {}
    for s in sample_run.samples:
        picked.setdefault((s.task, s.metadata["kind"]), s)
    assert len(picked) == 6
    for (task, _), s in picked.items():
        engine = ScriptedEngine([s.target, "[]"])
        agent = (ToolCallsAgent(engine) if task == "tool-calls"
                 else MultiCallAgent(engine, execute=False))  # fmt: skip
        query = s.metadata.get("query") or _user_query(s)
        trace = agent.run(query, list(s.tools))
        assert engine.prompts[0] == s.prompts()[0]
        assert template.render(engine.prompts[0]) == template.render(s.prompts()[0])
        assert [c.name for c in trace.calls] == s.metadata["gold"]


def _user_query(sample) -> str:
    """The joined request the sample shows (the user turn, or Seal-Tools' task_instruction)."""
    text = sample.messages[-1].content
    if sample.task == "seal-tools":
        return text.split('task_instruction = "', 1)[1].rsplit('"\nOutput:', 1)[0]
    return text


def test_joins_use_many_connectives_and_keep_names_capitalised():
    decap = Decapitaliser(["Please find a hotel.", "I can find it.", "What is it? and what",
                           "Show it to NASA and Tesla.", "We show what Tesla does."])  # fmt: skip
    assert decap("What is the time?") == "what is the time?"
    assert decap("I'd like tea.") == "I'd like tea." and decap("NASA launches.") == "NASA launches."
    assert decap("Tesla cars are fast.") == "Tesla cars are fast."
    assert len(CONNECTIVES) >= 8
    used = set()
    for i in range(200):
        text, names = join_queries(["Find a red car", "What is its price?"], random.Random(i),
                                   decap)  # fmt: skip
        used.update(names)
        assert text.startswith(("Find", "First, find")) and "what is its price?" in text
    assert len(used) >= 6  # a question second limits the choice to the sentence-level ones
    text, names = join_queries(["Find a car.", "Show a map.", "Find shops."], random.Random(0),
                               decap)  # fmt: skip
    assert names[-1] == "finally" and text.endswith("Finally, find shops.")
    assert decap("Zorblax is here.") == "Zorblax is here."  # unknown: may be a name, kept


def test_crafted_bad_instances_are_rejected_and_counted(tmp_path):
    root = tmp_path / "tooldeer"
    shutil.copytree(SAMPLE, root)
    records = json.loads((root / "tool.json").read_text())
    held = QueryIndex(deer_exclusions(SAMPLE).queries)
    free = [e for r in records if r["api_name"] == "TickTick" for e in r["example"]
            if not held.match(e["query"])]  # fmt: skip
    free[0]["call"] = "tick_tick(**{'a': 1})"
    (root / "tool.json").write_text(json.dumps(records))
    ex = deer_exclusions(root)
    longest = max(free[2:], key=lambda e: len(e["query"]))["query"]
    ex.add_queries([free[1]["query"], longest.rstrip(".?!") + " now"], "crafted")
    ex.add_tools({"BubbleGoods"}, "crafted unseen tool")
    base = generate_natural(root, n_multi=10, n_parallel=5)
    got = generate_natural(root, n_multi=10, n_parallel=5, exclusions=ex)
    assert base.rejections["call: not a literal Python call"] >= 1
    extra = got.rejections.copy()
    extra.subtract(base.rejections)
    assert extra["query: held-out test/valid query (exact)"] == 1 - 1  # BubbleGoods' one
    assert extra["query: held-out test/valid query (near)"] == 1
    assert extra["tool: held-out (unseen test tool)"] == 1
    assert all("BubbleGoods" not in sample_tools(s) for s in got.samples)
    assert leakage_report(got.samples, ex)["clean"]


def test_same_seed_same_bytes_other_seed_differs(tmp_path):
    data = []
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        got = generate_natural(SAMPLE, seed=seed, n_multi=10, n_parallel=5)
        write_dataset(tmp_path / name, got.samples, config=got.config, rejections=got.rejections)
        data.append((tmp_path / name / "data.jsonl").read_bytes())
    assert data[0] == data[1] and data[0] != data[2]


def test_declines_show_a_query_among_tools_that_are_not_its_own():
    from toollearn.datagen.mixture import DECLINES

    got = generate_natural(SAMPLE, n_multi=0, n_parallel=0, n_none=12)
    none = [s for s in got.samples if s.metadata["kind"] == "none"]
    assert len(none) == 12 and got.config["by_kind"]["none"] == 12
    singles = {s.metadata["query"]: s.metadata["gold"][0] for s in got.samples
               if s.metadata["kind"] == "single"}  # fmt: skip
    for s in none:
        assert s.task == "tool-calls" and len(s.tools) == 5 and s.metadata["gold"] == []
        assert singles[s.metadata["query"]] not in {t.name for t in s.tools}
        answer = tool_calls.parse(s.target)
        assert answer.declined and answer.text in DECLINES
    assert generate_natural(SAMPLE, n_multi=0, n_parallel=0).config["by_kind"].get("none") is None


@pytest.mark.shared
def test_real_data_is_clean(deer_dir):
    got = generate_natural(deer_dir, n_multi=300, n_parallel=150, n_none=300)
    assert got.config["tools_train"] == 900 and 7000 < got.config["examples_used"] < 8650
    report = leakage_report(got.samples, deer_exclusions(deer_dir))
    assert report["clean"], report
    assert got.rejections["tool: held-out (unseen test tool)"] == 77


@pytest.mark.model
def test_targets_are_what_the_grammars_admit(sample_run, admits):
    from toollearn.decoding import seal_calls_constraint, tool_calls_constraint

    picked = sample_run.samples[::3]
    tool = [s for s in picked if s.task == "tool-calls"]
    seal = [s for s in picked if s.task == "seal-tools"]
    assert all(admits(tool_calls_constraint(list(s.tools)).grammar, s.target) for s in tool)
    admitted = sum(admits(seal_calls_constraint(list(s.tools)).grammar, s.target) for s in seal)
    assert admitted >= 0.8 * len(seal)  # that grammar leaves out ' [ ] and escapes in strings
