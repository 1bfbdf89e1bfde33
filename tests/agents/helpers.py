"""Small executable tools shared by the agent tests (explicit schemas, no model needed)."""

from __future__ import annotations

import time

from toollearn.core.types import Tool
from toollearn.envs import Environment


def schema(name: str, props: dict, required=(), responses=None, description="") -> Tool:
    params = {"type": "object", "properties": props, "required": list(required)}
    return Tool(name, description or f"{name} tool", params, responses or {})


WEATHER = schema(
    "getWeather",
    {"city": {"type": "string", "description": "city name"}},
    ["city"],
    {"temperature": {"type": "number"}, "condition": {"type": "string"}},
    "Get the current weather of a city",
)
ADVICE = schema(
    "getClothingAdvice",
    {"temperature": {"type": "number"}, "condition": {"type": "string"}},
    ["temperature"],
    {"advice": {"type": "string"}},
    "Advise what to wear for a temperature and condition",
)


def add(a: int, b: int) -> int:
    return a + b


def multiply(a: int, b: int) -> int:
    return a * b


def explode() -> str:
    raise RuntimeError("database unavailable")


def hang() -> str:
    time.sleep(3)
    return "too late"


ADD = schema("add", {"a": {"type": "integer"}, "b": {"type": "integer"}}, ["a", "b"],
             description="Add two integers")  # fmt: skip
MULTIPLY = schema("multiply", {"a": {"type": "integer"}, "b": {"type": "integer"}}, ["a", "b"],
                  description="Multiply two integers")  # fmt: skip
EXPLODE = schema("explode", {}, description="A tool that always fails")
HANG = schema("hang", {}, description="A tool that never answers in time")


def math_env(timeout: float = 0.5) -> Environment:
    env = Environment(timeout=timeout)
    env.add_function(add, ADD).add_function(multiply, MULTIPLY)
    env.add_function(explode, EXPLODE).add_function(hang, HANG)
    return env
