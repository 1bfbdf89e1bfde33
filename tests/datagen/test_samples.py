"""One renderer per format: a training sample built from gold data has exactly the prompt the
agent or runner sends (through the embedded model's own chat template) and the gold answer as
its target, for every format."""

from __future__ import annotations

import pytest

from toollearn.agents import DecisionAgent, MultiCallAgent, ToolCallsAgent
from toollearn.agents.oracle import DEMO_TRAJECTORIES
from toollearn.core.types import Example, Message, ToolCall
from toollearn.data.registry import load_examples
from toollearn.data.trajectories import read_trajectories
from toollearn.datagen.samples import to_training_sample
from toollearn.engines import ScriptedEngine
from toollearn.engines.llama import embedded_model_path
from toollearn.evaluation.metrics.seal_tools import official_gold, official_scores
from toollearn.evaluation.runners import stepwise
from toollearn.evaluation.runners.seal_tools import example_prompt
from toollearn.formats.answers import deer, seal_tools, tool_calls, umi
from toollearn.formats.chat import ChatTemplate


@pytest.fixture(scope="module")
def template() -> ChatTemplate:
    """SmolLM2's template, read from the embedded GGUF without loading the model."""
    return ChatTemplate.from_gguf(embedded_model_path())


def same_prompt(template: ChatTemplate, sent, sample_prompt) -> None:
    assert list(sent) == list(sample_prompt)
    assert template.render(sent) == template.render(sample_prompt)


def test_seal_tools_samples(template):
    examples = load_examples("sample/seal-tools-prompts/test_in_domain")
    targets = []
    for ex in examples:
        [sample] = to_training_sample(ex, "seal-tools")
        engine = ScriptedEngine([sample.target])
        MultiCallAgent(engine, execute=False).run(ex.query, ex.tools)
        same_prompt(template, engine.prompts[0], sample.prompts()[0])
        assert example_prompt(ex) == list(sample.messages)  # the benchmark runner's prompt
        targets.append(sample.target)
    # the targets are the gold answers: exact under the strict scorer, and at least as good as
    # the released targets under the paper's (which cannot read some of those)
    golds = [official_gold(ex) for ex in examples]
    released = official_scores([ex.metadata["target"] for ex in examples], golds)
    ours = official_scores(targets, golds)
    for key in ("format_acc", "tool_f1", "param_p", "param_r"):
        assert ours[key] >= released[key]
    for ex, target in zip(examples, targets):  # the same calls, numbers written as numbers
        for pred, gold in zip(seal_tools.parse_calls(target), ex.calls, strict=True):
            assert pred.name == gold.name and pred.responses == gold.responses
            for key, value in gold.arguments.items():
                assert pred.arguments[key] == value or str(pred.arguments[key]) == value


def test_deer_samples_in_the_released_format(template):
    seen = set()
    for ex in load_examples("sample/tooldeer/valid"):
        [sample] = to_training_sample(ex, "deer")
        engine = ScriptedEngine(sample.span_texts())
        trace = DecisionAgent(engine, answer=False, execute=False).run(ex.query, ex.tools)
        assert len(engine.prompts) == len(sample.spans)
        for sent, wanted in zip(engine.prompts, sample.prompts()):
            same_prompt(template, sent, wanted)
        assert sample.target.startswith(trace.meta["deer_text"])
        decision = ex.metadata["decision"]
        seen.add(decision)
        if decision != "Call" or ex.metadata["call_text"] in sample.target:
            assert sample.target == ex.metadata["target"]  # the released gold, byte for byte
        assert trace.decisions().get("tool") == (ex.calls[0].name if decision == "Call" else None)
    assert seen == {"Call", "NoCall", "NoSearch"}


def test_tool_calls_samples(template):
    from toollearn.envs.demo import demo_env

    tools = tuple(demo_env().tools)
    call = Example("m", "Multiply 6 by 7.", tools, (ToolCall("multiply", {"b": 7, "a": 6}),))
    decline = Example("p", "Write a poem.", tools, answer="The sea is wide.")
    for ex in (call, decline):
        [sample] = to_training_sample(ex, "tool-calls")
        engine = ScriptedEngine([sample.target, "[]"])
        trace = ToolCallsAgent(engine).run(ex.query, list(tools))
        same_prompt(template, engine.prompts[0], sample.prompts()[0])
        answer = tool_calls.parse(sample.target)
        assert list(answer.calls) == list(ex.calls) and trace.calls == list(ex.calls)
    assert sample.target == "[]\nThe sea is wide."
    assert tool_calls.render_target(call.calls, tools) == (
        '[{"name": "multiply", "arguments": {"a": 6, "b": 7}}]'  # the declared order
    )


def test_umi_samples_for_every_role(template):
    trajectories = read_trajectories(DEMO_TRAJECTORIES)
    cases, _ = stepwise.step_cases(trajectories)
    by_role = {
        role: {s.source.split("/", 1)[1]: s for t in trajectories
               for s in to_training_sample(t, f"umi-{role}")}
        for role in ("planner", "caller", "summarizer", "single")
    }  # fmt: skip
    opts = stepwise.StepwiseOptions(constrained=False)
    for case in cases:
        roles = {r: ScriptedEngine(lambda p: "x") for r in ("planner", "caller", "summarizer")}
        stepwise.predict_multi_role(case, roles, opts)
        asked = {r: e.prompts for r, e in roles.items() if e.prompts}
        gold = case.trajectory.conversations
        same_prompt(template, asked["planner"][0], by_role["planner"][case.id].prompts()[0])
        assert by_role["planner"][case.id].target == gold[case.index].content
        for role in ("caller", "summarizer"):
            if role in asked:
                sample = by_role[role][case.id]
                same_prompt(template, asked[role][0], sample.prompts()[0])
                assert sample.target == gold[case.index + 1].content
            else:
                assert case.id not in by_role[role]
        single = ScriptedEngine(lambda p: "x")
        stepwise.predict_single(case, single, opts)
        sample = by_role["single"][case.id]
        same_prompt(template, single.prompts[0], sample.prompts()[0])
        assert sample.target.startswith(f"Thought: {case.thought}\n")
        out, gold_step = stepwise.step_output({"texts": {"single": sample.target}}), case.target
        assert (out.action, out.api or "", out.arguments or {}, out.answer or "") == (
            gold_step.action, gold_step.api, gold_step.arguments, gold_step.answer
        )  # fmt: skip


def test_umi_tool_calls_samples_are_what_the_general_agent_sends():
    """Replayed by the general agent against the demo's real tools, the samples' targets
    make the agent send exactly the samples' prompts, and it ends as the trajectory did."""
    from toollearn.envs.demo import demo_env

    env = demo_env()
    for traj in read_trajectories(DEMO_TRAJECTORIES):
        samples = to_training_sample(traj, "umi-tool-calls")
        engine = ScriptedEngine([s.target for s in samples])
        agent = ToolCallsAgent(engine, env, constrained=False, max_steps=len(samples))
        trace = agent.run(traj.instruction, list(traj.tools), example_id=traj.id)
        assert engine.prompts == [list(s.messages) for s in samples]
        calls = sum(m.role == "caller" for m in traj.conversations)
        assert len(samples) == calls + 1 and samples[-1].target.startswith("[]\n")
        assert trace.meta["outcome"] == ("answered" if calls else "no_call")
        if traj.metadata["outcome"] == "give_up":  # the planner's reason is the reply
            assert "Next:" not in samples[-1].target and len(samples[-1].target) > 10
        else:
            assert samples[-1].target == "[]\n" + traj.conversations[-1].content


def test_programs_samples(template):
    from toollearn.apps.datasets import app_class, load_demos, load_tests
    from toollearn.apps.generator import ActionGenerator, GeneratorConfig
    from toollearn.apps.program import parse_program
    from toollearn.formats.answers import programs

    cls, demos = app_class("home-search"), load_demos("home-search")
    for chat in (True, False):
        engine = ScriptedEngine(lambda p: "API.search()")
        config = GeneratorConfig(system_prompt=True, k_demos=3, chat=chat)
        generator = ActionGenerator(cls, engine, demos, config)
        for ex in load_tests("home-search")[:5]:
            [sample] = to_training_sample(ex, "programs", generator=generator)
            generator.generate([ex.query])
            sent = engine.prompts[-1]
            if chat:
                same_prompt(template, sent, sample.prompts()[0])
            else:  # a raw-text prompt: no chat template, the text itself
                assert sample.metadata["raw_prompt"] and sent == sample.messages[0].content
            label = ex.metadata["program"]
            assert sample.target == programs.render_target(label)
            assert parse_program(sample.target, cls) == parse_program(label, cls)


def test_trace_samples_keep_prefills_out_of_the_loss():
    engine = ScriptedEngine([deer.SEARCH_SPAN, deer.NO_CALL_SPAN])
    from toollearn.core.types import Tool

    tool = Tool("getWeather", "Weather", {"type": "object", "properties": {}, "required": []})
    trace = DecisionAgent(engine, answer=False).run("Weather?", [tool])
    search, call = to_training_sample(trace, "deer")
    assert search.target == deer.SEARCH_SPAN and search.spans == ((0, len(deer.SEARCH_SPAN)),)
    assert call.span_texts() == [deer.NO_CALL_SPAN]
    assert call.prompts()[0] == engine.prompts[1]  # the prefill is the prompt again


def test_unknown_format_and_wrong_input_are_clear_errors():
    from toollearn.core.errors import DataError

    ex = Example("e", "q")
    with pytest.raises(DataError, match="unknown sample format"):
        to_training_sample(ex, "nope")
    with pytest.raises(DataError, match="trajectory"):
        to_training_sample(ex, "umi-planner")
    with pytest.raises(DataError, match="generator"):
        to_training_sample(ex, "programs")


def test_prefill_continues_the_assistant_turn(template):
    messages = [Message("user", "q"), Message("assistant", "#Begin# partial")]
    text = template.render(messages)
    assert text == template.render(messages[:1]) + "#Begin# partial"
    assert text.endswith("<|im_start|>assistant\n#Begin# partial")
    assert umi.plan_prefill(" think ") == "think Next: "
    assert seal_tools.render_messages("q", [], prompt="P") == [Message("user", "P")]


@pytest.mark.model
def test_targets_are_what_the_grammars_admit(admits):
    """Training targets are written exactly as constrained decoding writes them."""
    from toollearn.decoding import (
        action_constraint,
        deer_constraint,
        next_constraint,
        seal_calls_constraint,
        tool_calls_constraint,
    )
    from toollearn.envs.demo import demo_env

    seal = [to_training_sample(ex, "seal-tools")[0] for ex in
            load_examples("sample/seal-tools-prompts/test_in_domain")[:30]]  # fmt: skip
    admitted = sum(admits(seal_calls_constraint(s.tools).grammar, s.target) for s in seal)
    assert admitted >= 28  # the grammar leaves out ' [ ] in strings (the official scorer)
    for ex in load_examples("sample/tooldeer/valid")[:20]:
        [sample] = to_training_sample(ex, "deer")
        stages = ["search", "call"][: len(sample.spans)]
        for stage, text in zip(stages, sample.span_texts()):
            assert admits(deer_constraint(ex.tools, stage).grammar, text), (ex.id, text)
    tools = demo_env().tools
    ex = Example("m", "q", tuple(tools), (ToolCall("get_weather", {"city": "Oslo"}),
                                         ToolCall("add", {"b": 2, "a": 1.5})))  # fmt: skip
    [sample] = to_training_sample(ex, "tool-calls")
    assert admits(tool_calls_constraint(tools).grammar, sample.target)
    for traj in read_trajectories(DEMO_TRAJECTORIES)[:4]:
        for s in to_training_sample(traj, "umi-caller"):
            assert admits(action_constraint(list(s.tools)).grammar, s.target)
        for s in to_training_sample(traj, "umi-planner"):
            choice = s.target.rsplit("Next: ", 1)[1]
            assert admits(next_constraint().grammar, choice)
        for s in to_training_sample(traj, "umi-single"):
            action = s.target.split("\n", 1)[1]
            assert admits(action_constraint(list(s.tools), finish=True).grammar, action)
