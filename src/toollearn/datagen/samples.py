"""Gold data and agent runs -> `TrainingSample`s, through each format's one renderer.

`to_training_sample(obj, fmt)` returns the samples of one gold `Example` (seal-tools, deer,
tool-calls, programs), one alpha-UMi `Trajectory` (umi-planner, umi-caller, umi-summarizer,
umi-single: one sample per turn of that role; umi-tool-calls: the trajectory in the general
call format, one sample per model turn), or one agent `Trace` (any format: every model
step becomes a sample with the exact messages the agent sent and the text the model wrote).
The prompts are built by the same functions the agents and runners call, so a sample's prompt
is what the model is shown when it is served.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toollearn.core.errors import DataError, FormatError
from toollearn.core.samples import TrainingSample
from toollearn.core.types import Example, Message, Trace
from toollearn.formats.answers import deer, seal_tools, tool_calls, umi

UMI_ROLES = {"umi-planner": "planner", "umi-caller": "caller", "umi-summarizer": "summarizer",
             "umi-single": "single"}  # fmt: skip
TRAJECTORY_FORMATS = (*UMI_ROLES, "umi-tool-calls")
FORMATS = ("seal-tools", "deer", "tool-calls", "programs", *TRAJECTORY_FORMATS)


def _source(ex: Example) -> str:
    origin = ex.metadata.get("source") or "example"
    return f"{origin}/{ex.split}/{ex.id}" if ex.split else f"{origin}/{ex.id}"


def seal_sample(ex: Example) -> list[TrainingSample]:
    """The paper's prompt over the example's candidates -> the gold call list."""
    messages = seal_tools.render_messages(ex.query, ex.tools, ex.metadata.get("prompt"))
    target = seal_tools.render_target(ex.calls, ex.tools)
    return [TrainingSample(tuple(messages), target, tools=ex.tools, task="seal-tools",
                           role="agent", source=_source(ex))]  # fmt: skip


def deer_answer(ex: Example) -> deer.DeerAnswer:
    """The example's decisions as a DEER answer (NoSearch, NoCall, or Call of its gold call)."""
    if ex.needs_tool is False:
        return deer.DeerAnswer(False, None)
    if ex.has_suitable_tool is False or not ex.calls:
        return deer.DeerAnswer(True, None)
    return deer.DeerAnswer(True, ex.calls[0])


def deer_sample(ex: Example) -> list[TrainingSample]:
    """The query -> the released-format turn; loss on the pieces the model writes."""
    target, spans = deer.render_target(deer_answer(ex), ex.tools)
    return [TrainingSample(tuple(deer.render_messages(ex.query)), target, tuple(spans),
                           ex.tools, "deer", "agent", _source(ex),
                           {"decision": deer_answer(ex).decision})]  # fmt: skip


def tool_calls_sample(ex: Example, docs: str = "json") -> list[TrainingSample]:
    """Tools + query -> the JSON call list, or `[]` and the answer when no tool is used
    (tools documented in the `docs` style of `formats.answers.tool_calls`)."""
    messages = tool_calls.render_messages(ex.query, ex.tools, docs=docs)
    target = tool_calls.render_target(ex.calls, ex.tools, ex.answer)
    return [TrainingSample(tuple(messages), target, tools=ex.tools, task="tool-calls",
                           role="agent", source=_source(ex))]  # fmt: skip


def programs_sample(ex: Example, generator: Any) -> list[TrainingSample]:
    """An app goal -> its label program, prompted exactly as `generator` (an ActionGenerator)
    prompts it (same API docs, retrieved demos and system prompt)."""
    from toollearn.formats.answers import programs

    prompt, _, apis = generator.prompt(ex.query)
    messages = (Message("user", prompt),) if isinstance(prompt, str) else tuple(prompt)
    target = programs.render_target(ex.metadata["program"])
    meta = {"raw_prompt": isinstance(prompt, str)}
    return [TrainingSample(messages, target, tools=tuple(apis), task="programs", role="agent",
                           source=_source(ex), metadata=meta)]  # fmt: skip


def umi_samples(traj: Any, fmt: str) -> list[TrainingSample]:
    """One sample per turn of the role `fmt` names, prompted as the agent and the stepwise
    runner prompt it (gold history before the turn)."""
    role = UMI_ROLES[fmt]
    tools, turns = list(traj.tools), list(traj.conversations)
    out: list[TrainingSample] = []
    for i, turn in enumerate(turns):
        if turn.role != "assistant":
            continue
        try:
            plan = umi.parse_plan(turn.content)
        except FormatError:
            continue  # an unreadable gold turn teaches nothing
        history, nxt = turns[:i], turns[i + 1] if i + 1 < len(turns) else None
        prompt, target = _umi_pair(role, tools, history, turn, plan, nxt)
        if prompt is None:
            continue
        source = f"trajectory/{traj.id}:{i}"
        out.append(TrainingSample((Message("user", prompt),), target, tools=tuple(tools),
                                  task=fmt, role=role, source=source))  # fmt: skip
    return out


def _umi_pair(
    role: str, tools: list, history: list[Message], turn: Message, plan: umi.Plan, nxt: Any
) -> tuple[str | None, str]:
    """(prompt, target) of one planner turn for a role; prompt None when the role is idle."""
    if role == "planner":
        return umi.planner_prompt(tools, history), umi.render_plan(plan.thought, plan.next)
    if role == "caller":
        if plan.next != "caller" or nxt is None or nxt.role != "caller":
            return None, ""
        action = umi.render_action(umi.parse_action(nxt.content), tools)
        return umi.caller_prompt(tools, history, plan.thought), action
    if role == "summarizer":
        if plan.next != "conclusion" or nxt is None or nxt.role != "conclusion":
            return None, ""
        return umi.summarizer_prompt([*history, turn]), nxt.content
    prompt = umi.react_prompt(tools, umi.single_history(history))
    if plan.next == "caller":
        if nxt is None or nxt.role != "caller":
            return None, ""
        action = umi.render_action(umi.parse_action(nxt.content), tools)
    elif plan.next == "conclusion":
        answer = nxt.content if nxt is not None and nxt.role == "conclusion" else ""
        action = umi.render_react_finish(answer)
    else:
        action = umi.render_react_finish("", give_up=True)
    return prompt, umi.render_react(plan.thought, action)


def umi_tool_calls_samples(traj: Any) -> list[TrainingSample]:
    """The trajectory in the general call format, one sample per model turn, prompted as
    `agents.tool_calls` prompts it: each gold call as a one-call list, its result fed back as
    the agent feeds it (`tool_result_message`), then `[]` and the conclusion, or at a give-up
    `[]` and the planner's reason. A turn that cannot be read ends the samples there."""
    tools, turns, query = list(traj.tools), list(traj.conversations), traj.instruction
    out: list[TrainingSample] = []
    history: list[Message] = []

    def add(target: str, i: int) -> None:
        messages = tuple(tool_calls.render_messages(query, tools, history))
        out.append(TrainingSample(messages, target, tools=tuple(tools), task="umi-tool-calls",
                                  role="agent", source=f"trajectory/{traj.id}:{i}"))  # fmt: skip

    for i, turn in enumerate(turns):
        nxt = turns[i + 1] if i + 1 < len(turns) else None
        try:
            if turn.role == "caller":
                if nxt is None or nxt.role != "observation":
                    break
                call = umi.parse_action(turn.content)
                target = tool_calls.render_target((call,), tools)
                add(target, i)
                history += [Message("assistant", target),
                            tool_calls.tool_result_message(call, nxt.content)]  # fmt: skip
            elif turn.role == "conclusion":
                add(tool_calls.render_target((), tools, turn.content), i)
                break
            elif turn.role == "assistant":
                plan = umi.parse_plan(turn.content)
                if plan.next == "give up":
                    add(tool_calls.render_target((), tools, plan.thought), i)
                    break
        except FormatError:
            break
    return out


def trace_samples(trace: Trace, fmt: str) -> list[TrainingSample]:
    """Every model step of an agent run as a sample: the messages it was sent (a final
    assistant message is a prefill, kept in the target without loss) and the text it wrote."""
    out = []
    for i, step in enumerate(trace.steps):
        if step.prompt is None or step.error is not None or not step.content:
            continue
        sent = [Message.from_dict(m) for m in step.data.get("messages") or []]
        if not sent:
            sent = [Message("user", step.prompt)]
        prefix = ""
        if sent[-1].role == "assistant":
            prefix, sent = sent[-1].content, sent[:-1]
        spans = ((len(prefix), len(prefix) + len(step.content)),)
        out.append(TrainingSample(tuple(sent), prefix + step.content, spans, task=fmt,
                                  role=step.role, source=f"trace/{trace.example_id}:{i}",
                                  metadata={"kind": step.kind}))  # fmt: skip
    return out


BUILDERS: dict[str, Callable[[Example], list[TrainingSample]]] = {
    "seal-tools": seal_sample,
    "deer": deer_sample,
    "tool-calls": tool_calls_sample,
}


def to_training_sample(obj: Any, fmt: str, **options: Any) -> list[TrainingSample]:
    """The training samples of a gold Example, a Trajectory (alpha-UMi formats) or a Trace.

    options: `generator=` (an apps ActionGenerator) for the programs format, `docs=` (the tool
    doc style) for the tool-calls format."""
    if fmt not in FORMATS:
        raise DataError(f"unknown sample format {fmt!r}; use one of {', '.join(FORMATS)}")
    if isinstance(obj, Trace):
        return trace_samples(obj, fmt)
    if fmt in TRAJECTORY_FORMATS:
        if not hasattr(obj, "conversations"):
            raise DataError(f"{fmt} samples come from a trajectory, not a {type(obj).__name__}")
        return umi_tool_calls_samples(obj) if fmt == "umi-tool-calls" else umi_samples(obj, fmt)
    if not isinstance(obj, Example):
        raise DataError(f"{fmt} samples come from an Example or a Trace, not {type(obj).__name__}")
    if fmt == "programs":
        if "generator" not in options:
            raise DataError("programs samples need generator= (the ActionGenerator serving them)")
        return programs_sample(obj, options["generator"])
    if fmt == "tool-calls":
        return tool_calls_sample(obj, options.get("docs", "json"))
    return BUILDERS[fmt](obj)
