"""Execute tool calls: Python callables, schema-simulated tools, stateful apps, nested DAGs."""

from toollearn.envs.environment import Environment, split_outputs, tool_of
from toollearn.envs.plan import execution_order, run_plan
from toollearn.envs.result import CallResult
from toollearn.envs.simulated import simulate
from toollearn.envs.validate import validate_call

__all__ = [
    "CallResult",
    "Environment",
    "execution_order",
    "run_plan",
    "simulate",
    "split_outputs",
    "tool_of",
    "validate_call",
]
