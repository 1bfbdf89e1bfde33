"""DEER Python signature strings <-> Tool, on the shapes found in ToolDEER's tool.json."""

from __future__ import annotations

import json
import re

import pytest

from toollearn.core.errors import SchemaError
from toollearn.formats.schemas.python_sig import tool_from_signature, tool_to_signature


def test_defaults_and_types_from_a_real_signature():
    sig = (
        "wahi(location: str, property_type: str = None, min_price: int = None, "
        'bedrooms: int = None, query_type: str = "listings")'
    )
    tool = tool_from_signature(sig, "Ontario listings")
    assert tool.name == "wahi" and tool.description == "Ontario listings"
    assert tool.required == ["location"]
    assert tool.properties["min_price"] == {"type": "integer", "default": None}
    assert tool.properties["query_type"]["default"] == "listings"
    assert tool_to_signature(tool) == sig


@pytest.mark.parametrize(
    "sig",
    [
        "CTCP(nctid: str)",
        "close_crm(action: str, field: str = None, params: dict = None)",
        "gofynd(search_term: str, page: int = 1, results_per_page: int = 10)",
        "doc_editor(file_type: str, content: str, escape_json: bool = False)",
        "f(tags: List[str], opts: Optional[Dict[str, str]] = None, pair: Tuple[int, int] = (0, 1))",
        "JiraTalk(query_type: str, max_results: int = 10, ...)",
        "giftwrap(occasion: str, optional budget: float = None)",
        "printify(action: str, design_text: str = '', user_id: int, details: dict = {})",
        "auto_prompt(query_list: List[str]) -> Dict[str, str]",
        "g(x: str, **kwargs)",
        "h()",
    ],
)
def test_signature_shapes_round_trip(sig):
    tool = tool_from_signature(sig)
    rendered = tool_to_signature(tool)
    assert re.sub(r"\s", "", rendered) == re.sub(r"\s", "", sig)
    assert tool_from_signature(rendered).parameters == tool.parameters


def test_optional_prefix_and_non_default_after_default():
    tool = tool_from_signature("p(a: str = 'x', b: int, optional c: float = None)")
    assert tool.required == ["b"]
    assert tool.properties["c"]["type"] == "number"
    assert tool.properties["c"]["x-optional-prefix"] is True


def test_non_literal_default_is_kept_as_text():
    tool = tool_from_signature("q(a: str = default_value)")
    assert tool.properties["a"]["x-python-default"] == "default_value"
    assert "default" not in tool.properties["a"]
    assert tool.required == []


def test_tool_from_another_format_renders_optional_params_with_none():
    from toollearn.core.types import Tool

    tool = Tool(
        name="s",
        parameters={
            "type": "object",
            "properties": {"q": {"type": "string"}, "k": {"type": "integer"}},
            "required": ["q"],
        },
    )
    assert tool_to_signature(tool) == "s(q: str, k: int = None)"


@pytest.mark.parametrize(
    "bad, message",
    [
        ("no parentheses", "not a Python signature"),
        ("f(a: str", "unclosed"),
        ("f(a b)", "cannot read parameter"),
        ("f(a: str, a: int)", "repeated"),
        ("f(a: str,, b: int)", "empty parameter"),
        ("f(a: str) extra", "unexpected text"),
        ("f(a: str = 'open)", "unclosed|unbalanced"),
        (123, "must be a string"),
    ],
)
def test_bad_signatures_are_rejected(bad, message):
    with pytest.raises(SchemaError, match=message):
        tool_from_signature(bad)


@pytest.mark.shared
def test_all_977_deer_signatures_parse_and_round_trip(deer_dir):
    records = json.loads((deer_dir / "tool.json").read_text())
    assert len(records) == 977
    same_modulo_space = 0
    for rec in records:
        tool = tool_from_signature(rec["api_function"])
        rendered = tool_to_signature(tool)
        assert tool_from_signature(rendered).parameters == tool.parameters
        same_modulo_space += re.sub(r"\s", "", rendered) == re.sub(r"\s", "", rec["api_function"])
    # The one exception is metaphor_search_api(..., domain: str = "",) with a trailing comma.
    assert same_modulo_space == 976
