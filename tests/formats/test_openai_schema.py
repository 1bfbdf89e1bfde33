"""OpenAI function-calling schemas (and the BFCL "type": "dict" variant) <-> Tool."""

from __future__ import annotations

import copy
import json

import pytest

from toollearn.core.errors import SchemaError
from toollearn.formats.schemas.openai import tool_from_openai, tool_to_openai
from toollearn.formats.schemas.seal_tools import tool_from_seal, tool_to_seal

# The function-calling example of the OpenAI API docs (also accepted by vLLM/Ollama/llama.cpp).
OPENAI_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {
                    "type": "string",
                    "description": "The city and state, e.g. San Francisco, CA",
                },
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location"],
        },
    },
}

# A Berkeley Function-Calling Leaderboard entry (simple category): bare function, "dict" type.
BFCL_TRIANGLE = {
    "name": "calculate_triangle_area",
    "description": "Calculate the area of a triangle given its base and height.",
    "parameters": {
        "type": "dict",
        "properties": {
            "base": {"type": "integer", "description": "The base of the triangle."},
            "height": {"type": "integer", "description": "The height of the triangle."},
            "unit": {
                "type": "string",
                "description": "The unit of measure (defaults to 'units' if not specified)",
            },
        },
        "required": ["base", "height"],
    },
}

BFCL_NESTED = {
    "name": "plot.points",
    "description": "Plot points with options.",
    "parameters": {
        "type": "dict",
        "properties": {
            "points": {"type": "array", "items": {"type": "tuple", "items": {"type": "float"}}},
            "style": {"type": "dict", "properties": {"size": {"type": "float"}}},
            "extra": {"type": "any", "description": "anything"},
        },
        "required": ["points"],
    },
}


def test_openai_tool_round_trips_exactly():
    tool = tool_from_openai(OPENAI_WEATHER)
    assert tool.name == "get_current_weather"
    assert tool.required == ["location"]
    assert tool.properties["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert tool_to_openai(tool) == OPENAI_WEATHER
    assert json.dumps(tool_to_openai(tool)) == json.dumps(OPENAI_WEATHER)


def test_bare_function_dict_is_accepted():
    tool = tool_from_openai(OPENAI_WEATHER["function"])
    assert tool_to_openai(tool, wrap=False) == OPENAI_WEATHER["function"]


def test_dict_variant_is_normalised_and_written_back_the_same_way():
    original = copy.deepcopy(BFCL_NESTED)
    tool = tool_from_openai(BFCL_NESTED)
    assert original == BFCL_NESTED  # input not mutated
    assert tool.parameters["type"] == "object"
    assert tool.metadata["openai_style"] == "dict"
    points = tool.properties["points"]
    assert points["items"]["type"] == "array" and points["items"]["x-bfcl-type"] == "tuple"
    assert points["items"]["items"]["type"] == "number"
    assert tool.properties["style"]["type"] == "object"
    assert "type" not in tool.properties["extra"]
    assert json.dumps(tool_to_openai(tool, wrap=False)) == json.dumps(BFCL_NESTED)
    json_style = tool_to_openai(tool, style="json", wrap=False)
    assert json_style["parameters"]["type"] == "object"
    assert tool_from_openai(json_style).parameters == tool.parameters


def test_bfcl_simple_entry_round_trips():
    tool = tool_from_openai(BFCL_TRIANGLE)
    assert tool.param_type("base") == "integer"
    assert tool_to_openai(tool, wrap=False) == BFCL_TRIANGLE


def test_seal_tool_converts_to_openai_and_back():
    seal = {
        "api_name": "getSpeed",
        "api_description": "Speed of a car",
        "field": "Cars/Speed",
        "parameters": {
            "car": {"type": "str", "description": "Car id (e.g., A1)"},
            "metric": {"type": "bool", "description": "km/h?"},
        },
        "required": ["car"],
        "responses": {"speed": {"type": "float", "description": "the speed"}},
    }
    openai_tool = tool_to_openai(tool_from_seal(seal))
    props = openai_tool["function"]["parameters"]["properties"]
    assert props["metric"]["type"] == "boolean"
    back = tool_from_openai(openai_tool)
    assert tool_to_seal(back)["parameters"] == seal["parameters"]


@pytest.mark.parametrize(
    "broken, message",
    [
        ({"type": "function", "function": {"description": "x"}}, "lacks the key 'name'"),
        ({"name": "f", "parameters": []}, "'parameters' must be an object"),
        ({"name": "f", "parameters": {"type": "string"}}, "type must be object"),
        ({"name": "f", "parameters": {"type": "object", "properties": []}}, "'properties'"),
        ({"name": "f", "parameters": {"type": "object", "required": "x"}}, "'required'"),
        ({"name": "f", "description": 3}, "'description' must be a string"),
        ({"name": 5}, "'name' must be str"),
    ],
)
def test_broken_openai_tools_are_rejected(broken, message):
    with pytest.raises(SchemaError, match=message):
        tool_from_openai(broken)


def test_extensions_can_be_stripped_for_strict_servers():
    from toollearn.formats.schemas.python_sig import tool_from_signature

    tool = tool_from_signature("f(a: Optional[str] = None, b: List[int] = (1, 2))")
    assert tool.properties["a"]["x-python-type"] == "Optional[str]"
    clean = tool_to_openai(tool, extensions=False)["function"]["parameters"]
    assert clean["properties"] == {
        "a": {"type": "string", "default": None},
        "b": {"type": "array", "default": [1, 2]},
    }
    assert "x-python-type" in json.dumps(tool_to_openai(tool))
