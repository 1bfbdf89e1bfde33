"""Small tool pools and a model-free encoder for retrieval tests."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from toollearn.core.types import Example, Tool, ToolCall
from toollearn.retrieval.text import tokenize


class HashEncoder:
    """Bag-of-words feature hashing (1024 dims), L2-normalised; counts how many texts it encoded.

    A stand-in for MiniLM in unit tests of persistence and fusion logic only."""

    model_id = "test/hash-bow-1024"

    def __init__(self) -> None:
        self.encoded = 0

    def encode(self, texts):
        self.encoded += len(texts)
        out = np.zeros((len(texts), 1024), dtype=np.float32)
        for i, text in enumerate(texts):
            for tok in tokenize(text):
                out[i, int(hashlib.md5(tok.encode()).hexdigest(), 16) % 1024] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)


def _tool(name: str, desc: str, **params: str) -> Tool:
    props = {k: {"type": "string", "description": v} for k, v in params.items()}
    return Tool(name, desc, {"type": "object", "properties": props, "required": list(props)})


TOOLS = [
    _tool("getWeatherForecast", "Retrieve the weather forecast for a city", city="City name"),
    _tool("bookFlight", "Book a flight ticket between two airports", origin="From", dest="To"),
    _tool("translateText", "Translate text from one language to another", text="The text"),
    _tool("calculateBMI", "Calculate body mass index from height and weight", height="cm"),
    _tool("searchHotels", "Search hotels in a city by price and rating", city="City name"),
    _tool("getStockPrice", "Get the current price of a stock ticker", ticker="Symbol"),
    _tool("sendEmail", "Send an email message to a recipient", to="Address", body="Text"),
    _tool("playMusic", "Play a song or playlist on the speaker", song="Song title"),
]


@pytest.fixture
def tools() -> list[Tool]:
    return list(TOOLS)


@pytest.fixture
def encoder() -> HashEncoder:
    return HashEncoder()


@pytest.fixture
def demos() -> list[Example]:
    def ex(i: int, query: str, *names: str) -> Example:
        return Example(id=f"d{i}", query=query, calls=tuple(ToolCall(n) for n in names))

    return [
        ex(0, "What is the weather in Paris tomorrow?", "getWeatherForecast"),
        ex(1, "Book me a flight from Boston to Denver", "bookFlight"),
        ex(2, "Find a cheap hotel in Rome and book a flight there", "searchHotels", "bookFlight"),
        ex(3, "Translate good morning into Spanish", "translateText"),
        ex(4, "Email my boss the stock price of ACME", "getStockPrice", "sendEmail"),
        ex(5, "Play some jazz music", "playMusic"),
    ]
