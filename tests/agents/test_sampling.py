"""Agents can sample: temperature, top-p and seed reach every engine call and the Trace."""

from __future__ import annotations

import json

import pytest
from helpers import ADD, WEATHER, math_env

from toollearn.agents import (
    DecisionAgent,
    MultiCallAgent,
    MultiRoleAgent,
    ReActAgent,
    ToolCallsAgent,
)
from toollearn.cli.main import main
from toollearn.engines import ScriptedEngine
from toollearn.engines.base import Sampling

SAMPLING = Sampling(temperature=0.7, top_p=0.9, seed=3)


@pytest.mark.parametrize(
    "build",
    [
        lambda e: ToolCallsAgent(e, math_env(), sampling=SAMPLING),
        lambda e: MultiCallAgent(e, sampling=SAMPLING),
        lambda e: DecisionAgent(e, sampling=SAMPLING),
        lambda e: MultiRoleAgent(e, env=math_env(), sampling=SAMPLING, max_steps=2),
        lambda e: ReActAgent(e, math_env(), sampling=SAMPLING, max_steps=2),
    ],
    ids=["tool-calls", "multi-call", "deer", "multi-role", "react"],
)
def test_every_engine_call_uses_the_agents_sampling(build):
    engine = ScriptedEngine(lambda p: "garbage")
    trace = build(engine).run("Add 1 and 2.", [ADD, WEATHER])
    assert engine.requests, "the agent asked the engine nothing"
    for req in engine.requests:
        assert (req["temperature"], req["top_p"], req["seed"]) == (0.7, 0.9, 3)
    assert trace.meta["sampling"] == {"temperature": 0.7, "top_p": 0.9, "seed": 3}


def test_greedy_is_the_default_and_bad_settings_are_refused():
    engine = ScriptedEngine(lambda p: "[]")
    trace = ToolCallsAgent(engine).run("hi", [ADD])
    assert trace.meta["sampling"] == {"temperature": 0.0, "top_p": 1.0, "seed": 0}
    for bad in ({"temperature": -1}, {"top_p": 0.0}, {"top_p": 1.5}):
        with pytest.raises(ValueError):
            Sampling(**bad)


def test_run_cli_flags_reach_the_trace(capsys):
    argv = ["run", "What is 2 + 2?", "--engine", "scripted", "--temperature", "0.5",
            "--top-p", "0.8", "--seed", "2", "--json"]  # fmt: skip
    assert main(argv) == 0
    trace = json.loads(capsys.readouterr().out)
    assert trace["meta"]["sampling"] == {"temperature": 0.5, "top_p": 0.8, "seed": 2}
    assert trace["meta"]["agent"] == "tool-calls"  # the general format is run's default
