"""Agents: general tool calls, Seal-Tools multi-call, DEER decision-aware, alpha-UMi
multi-role, ReAct baseline.

Every agent has `.run(query, tools=None, *, example_id="") -> Trace`.
"""

from toollearn.agents.base import Agent, Recorder
from toollearn.agents.decision import DecisionAgent
from toollearn.agents.multi_call import MultiCallAgent
from toollearn.agents.multi_role import MultiRoleAgent
from toollearn.agents.react import ReActAgent
from toollearn.agents.tool_calls import ToolCallsAgent

AGENTS = {
    "tool-calls": ToolCallsAgent,
    "multi-call": MultiCallAgent,
    "deer": DecisionAgent,
    "multi-role": MultiRoleAgent,
    "react": ReActAgent,
}

__all__ = [
    "AGENTS",
    "Agent",
    "DecisionAgent",
    "MultiCallAgent",
    "MultiRoleAgent",
    "ReActAgent",
    "Recorder",
    "ToolCallsAgent",
]
