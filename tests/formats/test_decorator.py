"""@tool builds a Tool from type hints and Google/NumPy docstrings."""

from __future__ import annotations

from typing import Literal, Optional

import pytest

from toollearn.core.errors import SchemaError
from toollearn.formats.decorator import tool


@tool
def get_weather(
    city: str,
    days: int = 3,
    unit: Literal["c", "f"] = "c",
    tags: Optional[list[str]] = None,  # noqa: UP045 (typing.Optional on purpose)
) -> dict:
    """Get the weather forecast for a city.

    More detail that is not part of the short description.

    Args:
        city (str): The city name,
            e.g. Paris.
        days: Number of days to forecast.
        unit: Temperature unit.
        tags: Extra labels.

    Returns:
        dict: the forecast.
    """
    return {"city": city, "days": days}


def test_google_docstring_and_hints():
    t = get_weather.tool
    assert t.name == "get_weather"
    assert t.description == "Get the weather forecast for a city."
    assert t.required == ["city"]
    props = t.properties
    assert props["city"] == {"type": "string", "description": "The city name, e.g. Paris."}
    assert props["days"] == {"type": "integer", "description": "Number of days to forecast.",
                             "default": 3}  # fmt: skip
    assert props["unit"]["enum"] == ["c", "f"]
    assert props["tags"]["type"] == "array" and props["tags"]["items"] == {"type": "string"}
    assert props["tags"]["nullable"] is True
    assert get_weather("Oslo") == {"city": "Oslo", "days": 3}  # still the plain function


def test_numpy_docstring_and_overrides():
    @tool(name="search_docs", description="Search the documents.")
    def search(query: str, k: int = 5, *args: str, **kwargs: str) -> list:
        """Search.

        Parameters
        ----------
        query : str
            The query text,
            in plain words.
        k : int, optional
            How many hits.

        Returns
        -------
        list
        """
        return []

    t = search.tool
    assert (t.name, t.description) == ("search_docs", "Search the documents.")
    assert t.properties["query"]["description"] == "The query text, in plain words."
    assert t.properties["k"]["description"] == "How many hits."
    assert list(t.properties) == ["query", "k"]


def test_function_without_docstring_or_hints():
    @tool
    def ping(host, port: float = 1.5):
        return host

    assert ping.tool.description == ""
    assert ping.tool.properties == {"host": {}, "port": {"type": "number", "default": 1.5}}


def test_unsupported_hint_is_a_schema_error():
    with pytest.raises(SchemaError, match="cannot express type hint"):

        @tool
        def bad(x: complex) -> None:
            """Bad."""
