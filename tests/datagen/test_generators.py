"""The Seal-Tools, mixture and alpha-UMi generators: their checks reject bad instances, a seed
reproduces a dataset byte for byte, and every sample's prompt is what the agent sends."""

from __future__ import annotations

import json
import random

import pytest

from toollearn.agents import MultiCallAgent, ToolCallsAgent
from toollearn.core.types import Message, Tool, ToolCall
from toollearn.datagen.dataset import read_dataset, write_dataset
from toollearn.datagen.leakage import Exclusions, leakage_report
from toollearn.datagen.mixture import generate_mixture
from toollearn.datagen.seal import check_instance, generate_seal
from toollearn.engines import ScriptedEngine
from toollearn.formats.answers import tool_calls
from toollearn.formats.convert import read_tools

WEATHER = Tool(
    "getWeather", "Retrieves the weather of a city",
    {"type": "object", "properties": {
        "city": {"type": "string", "description": "The city (e.g., Paris, Rome)"},
        "days": {"type": "integer", "description": "Days ahead (e.g., 1, 3)"}},
     "required": ["city"]},
    {"temperature": {"type": "number", "description": "degrees"},
     "city": {"type": "string", "description": "the city"}},
    category="Weather/Forecast",
)  # fmt: skip
ADVICE = Tool(
    "getClothingAdvice", "Advises what to wear in a city",
    {"type": "object", "properties": {
        "city": {"type": "string", "description": "The city (e.g., Oslo)"}},
     "required": ["city"]},
    {"advice": {"type": "string", "description": "what to wear"}},
    category="Weather/Forecast",
)  # fmt: skip
HOME = "examples/home_tools.json"


def test_every_instance_check_rejects_a_crafted_bad_instance():
    tools = {t.name: t for t in (WEATHER, ADVICE)}
    ok = [
        ToolCall("getWeather", {"city": "Paris", "days": 3}, responses=("API_call_0", "API_call_1"))
    ]
    assert check_instance("Weather in Paris for 3 days?", ok, tools) == ""
    missing = [ToolCall("getWeather", {"days": 3}, responses=("API_call_0",))]
    assert check_instance("Weather for 3 days?", missing, tools) == "invalid call: missing_argument"
    typed = [ToolCall("getWeather", {"city": "Paris", "days": "soon"}, responses=("API_call_0",))]
    assert check_instance("Weather in Paris soon", typed, tools) == "invalid call: invalid_argument"
    unknown = [ToolCall("getNews", {"city": "Paris"}, responses=("API_call_0",))]
    assert check_instance("News of Paris", unknown, tools) == "invalid call: unknown_tool"
    assert check_instance("Weather please", ok, tools) == "value not in query"
    two = ("API_call_1", "API_call_2")
    later = [ToolCall("getClothingAdvice", {"city": "API_call_1"}, responses=("API_call_0",)),
             ToolCall("getWeather", {"city": "Rome"}, responses=two)]  # fmt: skip
    assert check_instance("Rome weather, then advice", later, tools) == (
        "reference not to an earlier call"
    )
    first = ("API_call_0", "API_call_1")
    nested = [ToolCall("getWeather", {"city": "Rome"}, responses=first),
              ToolCall("getClothingAdvice", {"city": "API_call_1"},
                       responses=("API_call_2",))]  # fmt: skip
    assert check_instance("Weather in Rome, then advice for that city", nested, tools) == ""


def test_duplicate_and_held_out_queries_are_rejected():
    ping = Tool("ping", "Pings a host",
                {"type": "object", "properties": {"host": {"type": "string", "enum": ["db1"]}},
                 "required": ["host"]}, category="Net/Ping")  # fmt: skip
    gen = generate_seal([ping], 3, mix={"single": 1.0}, max_tries=3,
                        writer=lambda calls, tools, rng: "Ping db1.")  # fmt: skip
    assert len(gen.samples) == 1 and gen.rejections["duplicate or held-out query"] >= 2
    held = Exclusions(queries=["ping DB1"])  # compared after normalising case and punctuation
    gen = generate_seal([ping], 1, mix={"single": 1.0}, exclusions=held, max_tries=2,
                        writer=lambda calls, tools, rng: "Ping db1.")  # fmt: skip
    assert gen.samples == [] and gen.rejections["duplicate or held-out query"] == 2


def test_excluded_tools_never_appear():
    banned = Exclusions(tools={"getClothingAdvice"})
    gen = generate_seal([WEATHER, ADVICE], 20, seed=1, mix={"single": 1.0}, exclusions=banned)
    assert gen.samples and all("getClothingAdvice" not in s.target for s in gen.samples)
    assert leakage_report(gen.samples, banned)["clean"]


def test_leakage_report_finds_copies_near_copies_and_excluded_tools():
    gen = generate_seal([WEATHER, ADVICE], 5, seed=2, mix={"single": 1.0})
    first = gen.samples[0].metadata["query"]
    near = first.replace("Please ", "").rstrip(".?") + " please"
    held = Exclusions(tools={"getWeather"}, queries=[first, near, "something else entirely"])
    report = leakage_report(gen.samples, held)
    assert not report["clean"] and report["exact_query_matches"] >= 1
    assert report["excluded_tools_used"].get("getWeather", 0) >= 1


@pytest.mark.parametrize("kind", ["seal", "mixture"])
def test_a_seed_reproduces_the_dataset_byte_for_byte(tmp_path, kind):
    tools = read_tools(HOME, "auto")

    def make(seed: int, out):
        gen = (generate_seal([WEATHER, ADVICE, *tools], 40, seed=seed) if kind == "seal"
               else generate_mixture(tools, 40, seed=seed))  # fmt: skip
        write_dataset(out, gen.samples, config=gen.config, rejections=gen.rejections)
        return (out / "data.jsonl").read_bytes()

    assert make(0, tmp_path / "a") == make(0, tmp_path / "b")
    assert make(0, tmp_path / "a") != make(1, tmp_path / "c")
    assert len(read_dataset(tmp_path / "a")) >= 40


def test_seal_samples_are_what_the_multi_call_agent_sends():
    gen = generate_seal([WEATHER, ADVICE, *read_tools(HOME, "auto")], 30, seed=3)
    kinds = {s.metadata["kind"] for s in gen.samples}
    assert {"single", "multi"} <= kinds
    for s in gen.samples:
        engine = ScriptedEngine([s.target])
        shown = list(s.tools)
        trace = MultiCallAgent(engine, execute=False).run(s.metadata["query"], shown)
        assert engine.prompts[0] == list(s.messages)
        assert len(trace.calls) == s.target.count('"api"')


def test_mixture_samples_are_what_the_tool_calls_agent_sends():
    tools = read_tools(HOME, "auto")
    gen = generate_mixture(tools, 300, seed=4)
    kinds = {s.metadata["kind"] for s in gen.samples}
    assert kinds == {"one", "pick", "parallel", "multi", "nested", "answer", "none", "missing"}
    masked = [s for s in gen.samples if s.metadata["masked"]]
    assert 0.1 < len(masked) / len(gen.samples) < 0.35
    for s in gen.samples:
        listed = {t.name for t in s.tools}
        answer = tool_calls.parse(s.target)
        assert {c.name for c in answer.calls} <= listed  # masked names stay consistent
        for call in answer.calls:
            tool = next(t for t in s.tools if t.name == call.name)
            assert set(call.arguments) <= set(tool.properties)
        history = [m for m in s.messages[2:]]  # the turns after the query
        engine = ScriptedEngine([m.content for m in history if m.role == "assistant"]
                                + [s.target, "[]"])  # fmt: skip
        if any(m.role == "tool" for m in history):
            continue  # a second turn: its history holds a simulated result (checked below)
        ToolCallsAgent(engine, execute=False).run(s.metadata["query"], list(s.tools))
        assert engine.prompts[0] == list(s.messages)
    none = [s for s in gen.samples if s.metadata["kind"] == "none"]
    assert none and all(tool_calls.parse(s.target).declined for s in none)
    assert 0.07 < len(none) / len(gen.samples) < 0.2


def test_mixture_second_turns_continue_the_agents_conversation():
    tools = read_tools(HOME, "auto")
    gen = generate_mixture(tools, 200, seed=5)
    second = [s for s in gen.samples if any(m.role == "tool" for m in s.messages)]
    assert second
    for s in second:
        call_turn, result = s.messages[-2], s.messages[-1]
        assert call_turn.role == "assistant" and result.role == "tool"
        payload = json.loads(result.content)
        assert payload["name"] in {c.name for c in tool_calls.parse(call_turn.content).calls}
        expected = tool_calls.render_messages(s.metadata["query"], list(s.tools),
                                              list(s.messages[2:]))  # fmt: skip
        assert expected == list(s.messages)


def test_umi_role_samples_are_what_the_stepwise_runner_sends(shared_data):
    from toollearn.data.seal_tools import load_tools
    from toollearn.datagen.leakage import seal_exclusions
    from toollearn.datagen.umi import generate_trajectories, role_samples, step_count
    from toollearn.evaluation.runners import stepwise

    ex = seal_exclusions(shared_data)
    trajs, gen = generate_trajectories(load_tools(shared_data), 12, seed=6, exclusions=ex)
    assert len(trajs) >= 10 and step_count(trajs) >= 20
    assert not any(t.name in ex.tools for traj in trajs for t in traj.tools)
    samples = {(s.metadata["kind"], s.source.split("/", 1)[1]): s for s in role_samples(trajs)}
    cases, skipped = stepwise.step_cases(trajs)
    assert skipped == 0
    opts = stepwise.StepwiseOptions(constrained=False)
    for case in cases:
        planner = ScriptedEngine(lambda p: "x")
        roles = {"planner": planner, "caller": planner, "summarizer": planner}
        stepwise.predict_multi_role(case, {**roles, "planner": planner}, opts)
        assert planner.prompts[0] == list(samples[("umi-planner", case.id)].messages)


def test_teacher_query_writer_caches_and_self_instruct_checks(tmp_path):
    from toollearn.datagen.teacher import TeacherQueryWriter, self_instruct_tools

    cache = tmp_path / "queries.jsonl"
    engine = ScriptedEngine(["Could you check the weather in Paris?"])
    writer = TeacherQueryWriter(engine, cache)
    calls = [ToolCall("getWeather", {"city": "Paris"}, responses=("API_call_0",))]
    rng = random.Random(0)
    assert writer(calls, {"getWeather": WEATHER}, rng) == "Could you check the weather in Paris?"
    again = TeacherQueryWriter(ScriptedEngine([]), cache)  # would fail if asked
    assert again(calls, {"getWeather": WEATHER}, rng) == "Could you check the weather in Paris?"
    good = json.dumps({"api_name": "getTide", "api_description": "Tide times of a harbor",
                       "parameters": {"harbor": {"type": "str",
                                                 "description": "Harbor (e.g., Brest)"}},
                       "required": ["harbor"],
                       "responses": {"high": {"type": "str",
                                              "description": "high tide"}}})  # fmt: skip
    no_eg = good.replace(" (e.g., Brest)", "")
    answers = [good, good, "no json here", no_eg.replace("getTide", "getTide2")
               .replace("Tide times of a harbor", "Wave height")]  # fmt: skip
    tools, rejected = self_instruct_tools(ScriptedEngine(answers),
                                          {"Ocean": ["Tides", "Waves", "Currents", "Reefs"]},
                                          existing=[WEATHER])  # fmt: skip
    assert [t.name for t in tools] == ["getTide"]
    assert rejected == {"duplicate name": 1, "bad format: no JSON object in the answer": 1,
                        "parameter without example values": 1}  # fmt: skip


def test_cli_datagen_mixture_on_a_user_tool_file(tmp_path, capsys):
    from toollearn.cli.main import main

    out = tmp_path / "mix"
    assert main(["datagen", "mixture", "--tools", HOME, "-n", "60", "--out", str(out),
                 "--no-tokens"]) == 0  # fmt: skip
    stats = json.loads((out / "stats.json").read_text())
    assert stats["n"] >= 50 and json.loads((out / "leakage.json").read_text())["clean"]
    assert "wrote" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"type": "function", "function": {"description": "no name"}}]))
    assert main(["datagen", "mixture", "--tools", str(bad), "--out", str(out)]) == 1
    errors = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("toollearn:")]
    assert len(errors) == 1 and "bad.json: record 0" in errors[0] and "'name'" in errors[0]


def test_prompt_messages_of_a_masked_sample_hide_the_real_names():
    gen = generate_mixture(read_tools(HOME, "auto"), 200, seed=8, p_mask=1.0)
    for s in gen.samples:
        system = s.messages[0]
        assert isinstance(system, Message) and system.role == "system"
        assert "set_thermostat" not in system.content and "fn_" in system.content


def test_umi_seed_reproduces_the_dataset_byte_for_byte(tmp_path, shared_data):
    from toollearn.data.seal_tools import load_tools
    from toollearn.datagen.leakage import seal_exclusions
    from toollearn.datagen.umi import generate_trajectories, role_samples

    tools, ex = load_tools(shared_data), seal_exclusions(shared_data)

    def make(seed: int, out) -> bytes:
        trajs, gen = generate_trajectories(tools, 15, seed=seed, exclusions=ex)
        write_dataset(out, role_samples(trajs), config=gen.config)
        return (out / "data.jsonl").read_bytes()

    assert make(0, tmp_path / "a") == make(0, tmp_path / "b") != make(1, tmp_path / "c")


def test_umi_job_writes_the_formats_asked_for(tmp_path, shared_data):
    from toollearn.core.errors import DataError
    from toollearn.data.seal_tools import load_tools
    from toollearn.datagen import jobs
    from toollearn.datagen.leakage import seal_exclusions

    tools, ex = load_tools(shared_data), seal_exclusions(shared_data)
    gen = jobs.run_umi(tools, 8, 5, 0, ex, tmp_path, formats=["umi-tool-calls"])
    assert gen.samples and {s.task for s in gen.samples} == {"umi-tool-calls"}
    assert gen.config["formats"] == ["umi-tool-calls"]
    assert {s.metadata["kind"] for s in gen.samples} == {"umi-tool-calls"}
    assert (tmp_path / "trajectories_test.json").exists()
    with pytest.raises(DataError, match="some of umi-planner"):
        jobs.run_umi(tools, 8, 5, 0, ex, tmp_path, formats=["umi-react"])


def test_umi_job_varies_the_training_candidates_not_the_test_set(tmp_path, shared_data):
    from toollearn.data.seal_tools import load_tools
    from toollearn.datagen import jobs
    from toollearn.datagen.leakage import seal_exclusions

    tools, ex = load_tools(shared_data), seal_exclusions(shared_data)
    jobs.run_umi(tools, 8, 5, 0, ex, tmp_path / "fixed", formats=["umi-tool-calls"])
    gen = jobs.run_umi(tools, 8, 5, 0, ex, tmp_path / "varied", formats=["umi-tool-calls"],
                       candidates="varied")  # fmt: skip
    assert gen.config["candidates"] == "2-8"
    test = "trajectories_test.json"
    assert (tmp_path / "varied" / test).read_bytes() == (tmp_path / "fixed" / test).read_bytes()
    train = "trajectories_train.json"
    assert (tmp_path / "varied" / train).read_bytes() != (tmp_path / "fixed" / train).read_bytes()


def test_umi_job_leaves_out_the_trajectories_of_a_dev_file(tmp_path, shared_data):
    from toollearn.data.seal_tools import load_tools
    from toollearn.data.trajectories import read_trajectories, write_trajectories
    from toollearn.datagen import jobs
    from toollearn.datagen.leakage import seal_exclusions

    tools, ex = load_tools(shared_data), seal_exclusions(shared_data)
    jobs.run_umi(tools, 8, 0, 0, ex, tmp_path / "all", formats=["umi-tool-calls"])
    trained = read_trajectories(tmp_path / "all" / "trajectories_train.json")
    dev = write_trajectories(trained[:3], tmp_path / "dev.json")
    gen = jobs.run_umi(tools, 8, 0, 0, ex, tmp_path / "kept", formats=["umi-tool-calls"],
                       exclude=dev)  # fmt: skip
    queries = {s.metadata["query"] for s in gen.samples}
    assert queries == {t.instruction for t in trained[3:]}
    assert gen.config["excluded_trajectories"] == 3 and gen.config["excluded_from"] == str(dev)
    kept = read_trajectories(tmp_path / "kept" / "trajectories_train.json")
    assert [t.instruction for t in kept] == [t.instruction for t in trained[3:]]


def test_umi_counted_plans_number_the_same_steps(shared_data):
    import re

    from toollearn.data.seal_tools import load_tools
    from toollearn.datagen.leakage import seal_exclusions
    from toollearn.datagen.umi import generate_trajectories

    tools, ex = load_tools(shared_data), seal_exclusions(shared_data)
    plain, _ = generate_trajectories(tools, 15, seed=3, exclusions=ex)
    counted, gen = generate_trajectories(tools, 15, seed=3, exclusions=ex, plan_style="counted")
    assert gen.config["plan_style"] == "counted" and len(plain) == len(counted) >= 12
    numbered = 0
    for a, b in zip(plain, counted):
        assert a.instruction == b.instruction and [m.role for m in a.conversations] == [
            m.role for m in b.conversations
        ]
        plans = [m.content for m in b.conversations if m.role == "assistant"]
        calls = sum(m.role == "caller" for m in b.conversations)
        for m1, m2 in zip(a.conversations, b.conversations):
            if m1.role != "assistant":
                assert m1.content == m2.content  # calls, observations and answers unchanged
        if plans[-1].endswith("Next: give up."):
            assert plans == [m.content for m in a.conversations if m.role == "assistant"]
            continue
        for k, plan in enumerate(plans[:-1], 1):
            assert plan.startswith(f"Step {k} of {calls}: ")
            numbered += 1
        done = "The step is" if calls == 1 else f"All {calls} steps are"
        assert re.match(rf"{done} done; .* Next: conclusion\.$", plans[-1])
    assert numbered >= 20
    with pytest.raises(ValueError, match="plan style"):
        generate_trajectories(tools, 1, plan_style="numbered")


def test_umi_varied_candidates_show_give_ups_as_many_tools_as_the_rest(shared_data):
    from collections import Counter

    from toollearn.data.seal_tools import load_tools
    from toollearn.datagen.leakage import seal_exclusions
    from toollearn.datagen.umi import generate_trajectories

    tools, ex = load_tools(shared_data), seal_exclusions(shared_data)
    fixed, _ = generate_trajectories(tools, 120, seed=4, exclusions=ex, p_give_up=0.3)
    varied, gen = generate_trajectories(tools, 120, seed=4, exclusions=ex, p_give_up=0.3,
                                        candidates="varied")  # fmt: skip
    assert gen.config["candidates"] == "2-8"
    # the same instances; only the tools shown (and so which tasks give up) differ
    assert {t.instruction for t in fixed} == {t.instruction for t in varied}

    def gave_up(t) -> bool:
        return t.conversations[-1].content.endswith("Next: give up.")

    def shown(trajs):
        counts: dict[bool, Counter] = {True: Counter(), False: Counter()}
        for t in trajs:
            counts[gave_up(t)][len(t.tools)] += 1
        return counts

    first_call = {t.instruction: next(m.content for m in t.conversations if m.role == "caller")
                  for t in fixed if not gave_up(t)}  # fmt: skip
    checked = 0
    for t in varied:  # a give-up never shows the tool its first step needs
        if gave_up(t) and t.instruction in first_call:
            needed = first_call[t.instruction].split("\n")[0].removeprefix("Action: ").strip()
            assert needed not in {tool.name for tool in t.tools}
            checked += 1
    assert checked >= 5
    before, after = shown(fixed), shown(varied)
    assert set(before[True]) == {4} and set(before[False]) == {5}  # the cue "fixed" leaves
    assert after[True].total() >= 15 and len(after[True]) >= 4
    assert set(after[True]) | set(after[False]) <= set(range(2, 9))
    mean = {k: sum(n * c for n, c in v.items()) / v.total() for k, v in after.items()}
    assert abs(mean[True] - mean[False]) < 1.0
    with pytest.raises(ValueError, match="candidates"):
        generate_trajectories(tools, 1, candidates="many")


def test_compact_mixture_samples_are_what_a_compact_agent_sends():
    gen = generate_mixture(read_tools(HOME, "auto"), 40, seed=5, docs="compact")
    assert gen.config["docs"] == "compact"
    first_turns = [s for s in gen.samples if len(s.messages) == 2]
    assert first_turns
    for s in first_turns[:10]:
        assert not s.messages[0].content.splitlines()[1].startswith("{")  # no JSON docs
        engine = ScriptedEngine([s.target, "[]"])
        agent = ToolCallsAgent(engine, execute=False, docs="compact")
        agent.run(s.metadata["query"], list(s.tools))
        assert engine.prompts[0] == list(s.messages)


def test_seal_shape_draws_call_counts_and_cross_field_lists(shared_data):
    from toollearn.data.seal_tools import load_tools
    from toollearn.datagen.seal import SealShape, parse_calls

    tools = load_tools(shared_data)
    field = {t.name: t.category.split("/")[0] for t in tools}
    shape = SealShape(parse_calls("3:1"), cross_field=1.0)
    gen = generate_seal(tools, 60, seed=0, mix={"multi": 0.7, "nested": 0.3}, shape=shape)
    assert gen.config["shape"] == {"calls": {"3": 1.0}, "cross_field": 1.0}
    for s in gen.samples:
        calls = json.loads(s.target)
        assert len(calls) == 3
        if s.metadata["kind"] == "multi":  # one field per tool
            assert len({field[c["api"]] for c in calls}) == 3
    assert {s.metadata["kind"] for s in gen.samples} == {"multi", "nested"}
    related = generate_seal(tools, 30, seed=0, mix={"multi": 1.0},
                            shape=SealShape({4: 1.0}, cross_field=0.0))  # fmt: skip
    spans = [len({field[c["api"]] for c in json.loads(s.target)}) for s in related.samples]
    assert all(len(json.loads(s.target)) == 4 for s in related.samples)
    assert spans.count(1) >= 0.8 * len(spans)  # a small field is filled up by neighbours
    with pytest.raises(ValueError, match="COUNT:WEIGHT"):
        parse_calls("3=1")
    with pytest.raises(ValueError, match="counts >= 2"):
        SealShape({1: 1.0})
    with pytest.raises(ValueError, match="share"):
        SealShape({3: 1.0}, cross_field=2)


def test_cli_datagen_seal_shape_on_a_user_tool_file(tmp_path):
    from toollearn.cli.main import main

    out = tmp_path / "seal"
    assert main(["datagen", "seal", "--tools", HOME, "-n", "30", "--out", str(out), "--no-tokens",
                 "--multi-calls", "2:1,3:1", "--cross-field", "0.5"]) == 0  # fmt: skip
    config = json.loads((out / "stats.json").read_text())["config"]
    assert config["shape"] == {"calls": {"2": 1.0, "3": 1.0}, "cross_field": 0.5}
    for bad in (["--cross-field", "0.5"], ["--multi-calls", "3"], ["--multi-calls", "1:1"]):
        with pytest.raises(SystemExit):
            main(["datagen", "seal", "--tools", HOME, "-n", "5", "--out", str(out), *bad])
