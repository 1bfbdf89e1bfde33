"""A small executable demo world: real Python tools (`@tool`) and multi-step tasks over them.

Used by `toollearn run --demo-tools`, by the agent tests, and to build the shipped alpha-UMi
style trajectories (see `toollearn.agents.oracle`). City data is a fixed table, so every
run is reproducible offline. Unknown cities and division by zero raise, on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toollearn.envs.environment import Environment
from toollearn.formats.decorator import tool

_CITIES = {
    "Paris": {"temperature_c": 18.0, "condition": "cloudy", "population": 2102650},
    "Oslo": {"temperature_c": 4.0, "condition": "snow", "population": 709037},
    "Cairo": {"temperature_c": 31.0, "condition": "sunny", "population": 10100166},
    "Tokyo": {"temperature_c": 22.0, "condition": "rain", "population": 13960236},
    "London": {"temperature_c": 12.0, "condition": "rain", "population": 8866180},
    "Lagos": {"temperature_c": 29.0, "condition": "humid", "population": 15388000},
}


def _city(city: str) -> dict[str, Any]:
    key = city.strip().title()
    if key not in _CITIES:
        raise KeyError(f"unknown city {city!r}; known: {', '.join(sorted(_CITIES))}")
    return _CITIES[key]


@tool
def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


@tool
def subtract(a: float, b: float) -> float:
    """Subtract b from a.

    Args:
        a: the number to subtract from
        b: the number to subtract
    """
    return a - b


@tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers.

    Args:
        a: the first factor
        b: the second factor
    """
    return a * b


@tool
def divide(a: float, b: float) -> float:
    """Divide a by b (b must not be zero).

    Args:
        a: the dividend
        b: the divisor
    """
    return round(a / b, 4)


@tool
def convert_temperature(value: float, unit_from: str, unit_to: str) -> float:
    """Convert a temperature between Celsius (C) and Fahrenheit (F).

    Args:
        value: the temperature to convert
        unit_from: C or F
        unit_to: C or F
    """
    src, dst = unit_from.strip().upper()[:1], unit_to.strip().upper()[:1]
    if {src, dst} - {"C", "F"}:
        raise ValueError("units must be C or F")
    if src == dst:
        return value
    return round(value * 9 / 5 + 32, 2) if src == "C" else round((value - 32) * 5 / 9, 2)


@tool
def get_weather(city: str) -> dict:
    """Get the current weather of a city: temperature in Celsius and condition.

    Args:
        city: the city name, e.g. Paris
    """
    c = _city(city)
    return {"city": city.strip().title(), "temperature_c": c["temperature_c"],
            "condition": c["condition"]}  # fmt: skip


@tool
def get_population(city: str) -> int:
    """Get the population of a city.

    Args:
        city: the city name, e.g. Tokyo
    """
    return int(_city(city)["population"])


@tool
def word_count(text: str) -> int:
    """Count the words of a text.

    Args:
        text: the text to count
    """
    return len(text.split())


@tool
def reverse_text(text: str) -> str:
    """Reverse a text character by character.

    Args:
        text: the text to reverse
    """
    return text[::-1]


DEMO_FUNCTIONS = (add, subtract, multiply, divide, convert_temperature, get_weather,
                  get_population, word_count, reverse_text)  # fmt: skip


def demo_env(timeout: float = 5.0) -> Environment:
    """An Environment holding every demo tool (thread isolation, `timeout` seconds a call)."""
    return Environment.from_functions(DEMO_FUNCTIONS, timeout=timeout)


@dataclass(frozen=True)
class DemoTask:
    """A query, the tools to show, and a reference plan.

    steps: (thought, tool, arguments); an argument value "$k" is the k-th earlier output and
    "$k.field" a field of it. answer: a template over the outputs ("{0}", "{1[condition]}").
    give_up: the reference plan gives up after the steps (a tool that fails).
    """

    id: str
    query: str
    tools: tuple[str, ...]
    steps: tuple[tuple[str, str, dict[str, Any]], ...]
    answer: str = ""
    give_up: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _t(id_: str, query: str, tools: str, steps: list, answer: str = "", give_up: bool = False):
    return DemoTask(id_, query, tuple(tools.split()), tuple(steps), answer, give_up)


DEMO_TASKS = (
    _t("demo-0", "What is (3 + 4) * 5?", "add multiply subtract",
       [("First add 3 and 4.", "add", {"a": 3, "b": 4}),
        ("Now multiply the sum by 5.", "multiply", {"a": "$0", "b": 5})],
       "(3 + 4) * 5 = {1}."),
    _t("demo-1", "Compute 12 * 12 - 44.", "multiply subtract add",
       [("Multiply 12 by 12 first.", "multiply", {"a": 12, "b": 12}),
        ("Subtract 44 from the product.", "subtract", {"a": "$0", "b": 44})],
       "12 * 12 - 44 = {1}."),
    _t("demo-2", "What is 100 degrees Fahrenheit in Celsius?", "convert_temperature add",
       [("Convert 100 F to C.", "convert_temperature",
         {"value": 100, "unit_from": "F", "unit_to": "C"})],
       "100 degrees Fahrenheit is {0} degrees Celsius."),
    _t("demo-3", "What is the temperature in Paris in Fahrenheit?",
       "get_weather convert_temperature get_population",
       [("Get the weather in Paris.", "get_weather", {"city": "Paris"}),
        ("Convert its Celsius temperature to Fahrenheit.", "convert_temperature",
         {"value": "$0.temperature_c", "unit_from": "C", "unit_to": "F"})],
       "It is {1} degrees Fahrenheit in Paris."),
    _t("demo-4", "How many times larger is the population of Tokyo than that of Paris?",
       "get_population divide get_weather",
       [("Get the population of Tokyo.", "get_population", {"city": "Tokyo"}),
        ("Get the population of Paris.", "get_population", {"city": "Paris"}),
        ("Divide Tokyo's population by Paris's.", "divide", {"a": "$0", "b": "$1"})],
       "Tokyo's population is {2} times that of Paris."),
    _t("demo-5", "Count the words in 'the quick brown fox jumps' and multiply by 3.",
       "word_count multiply reverse_text",
       [("Count the words of the text.", "word_count", {"text": "the quick brown fox jumps"}),
        ("Multiply the count by 3.", "multiply", {"a": "$0", "b": 3})],
       "The text has {0} words; times 3 that is {1}."),
    _t("demo-6", "Reverse the word 'stressed'.", "reverse_text word_count",
       [("Reverse the text 'stressed'.", "reverse_text", {"text": "stressed"})],
       "'stressed' reversed is '{0}'."),
    _t("demo-7", "Which is warmer right now, Oslo or Cairo?", "get_weather get_population",
       [("Get the weather in Oslo.", "get_weather", {"city": "Oslo"}),
        ("Get the weather in Cairo.", "get_weather", {"city": "Cairo"})],
       "Cairo ({1[temperature_c]} C, {1[condition]}) is warmer than Oslo "
       "({0[temperature_c]} C, {0[condition]})."),
    _t("demo-8", "Divide 10 by 0.", "divide multiply",
       [("Divide 10 by 0.", "divide", {"a": 10, "b": 0})], give_up=True),
    _t("demo-9", "What is 15 + 27?", "add subtract",
       [("Add 15 and 27.", "add", {"a": 15, "b": 27})], "15 + 27 = {0}."),
    _t("demo-10", "What is the combined population of Lagos and Cairo?",
       "get_population add multiply",
       [("Get the population of Lagos.", "get_population", {"city": "Lagos"}),
        ("Get the population of Cairo.", "get_population", {"city": "Cairo"}),
        ("Add the two populations.", "add", {"a": "$0", "b": "$1"})],
       "Lagos and Cairo have {2} inhabitants together."),
    _t("demo-11", "Convert 25 Celsius to Fahrenheit.", "convert_temperature divide",
       [("Convert 25 C to F.", "convert_temperature",
         {"value": 25, "unit_from": "C", "unit_to": "F"})],
       "25 degrees Celsius is {0} degrees Fahrenheit."),
    _t("demo-12", "Is it raining in London?", "get_weather get_population",
       [("Get the weather in London.", "get_weather", {"city": "London"})],
       "The weather in London is {0[condition]} at {0[temperature_c]} C."),
    _t("demo-13", "What is (100 - 58) / 6?", "subtract divide add",
       [("Subtract 58 from 100.", "subtract", {"a": 100, "b": 58}),
        ("Divide the difference by 6.", "divide", {"a": "$0", "b": 6})],
       "(100 - 58) / 6 = {1}."),
    _t("demo-14", "What is the weather in Atlantis?", "get_weather get_population",
       [("Get the weather in Atlantis.", "get_weather", {"city": "Atlantis"})], give_up=True),
    _t("demo-15", "How many words are in 'to be or not to be'?", "word_count reverse_text",
       [("Count the words.", "word_count", {"text": "to be or not to be"})],
       "'to be or not to be' has {0} words."),
)  # fmt: skip
