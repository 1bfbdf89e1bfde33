"""`ToolRetriever`: rank the tools of a pool for a query, with a persisted, checked index."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import RetrievalError
from toollearn.core.types import Tool
from toollearn.retrieval.base import Hit
from toollearn.retrieval.dense import Encoder
from toollearn.retrieval.store import open_index
from toollearn.retrieval.text import DEFAULT_FIELDS, IndexFields, tool_text

DEFAULT_METHOD = "hybrid"


class ToolRetriever:
    """BM25, dense or hybrid retrieval over `Tool`s; `Hit.item` is the Tool.

    index_dir: a folder to persist the index in (reloaded when the pool and config match,
    rebuilt otherwise; `strict=True` raises instead). None keeps the index in memory only.
    """

    def __init__(
        self,
        tools: Sequence[Tool],
        method: str = DEFAULT_METHOD,
        *,
        fields: IndexFields = DEFAULT_FIELDS,
        index_dir: str | Path | None = None,
        strict: bool = False,
        rebuild: bool = False,
        encoder: Encoder | None = None,
        **options: Any,
    ):
        self.tools = list(tools)
        if not self.tools:
            raise RetrievalError("empty tool pool: give at least one tool to retrieve from")
        self.by_name: dict[str, Tool] = {}
        for tool in self.tools:
            if tool.name in self.by_name:
                raise RetrievalError(f"duplicate tool name {tool.name!r} in the pool")
            self.by_name[tool.name] = tool
        self.method, self.fields = method, fields
        texts = [tool_text(t, fields) for t in self.tools]
        self.backend, self.loaded = open_index(
            index_dir,
            method,
            self.tools,
            [t.name for t in self.tools],
            texts,
            encoder=encoder,
            strict=strict,
            rebuild=rebuild,
            extra={"kind": "tools", "fields": fields.to_dict()},
            **options,
        )

    def __len__(self) -> int:
        return len(self.tools)

    def search(self, query: str, k: int = 10) -> list[Hit]:
        """The k best tools for a query, best first."""
        return self.backend.search(query, k)

    def search_batch(self, queries: Sequence[str], k: int = 10) -> list[list[Hit]]:
        """The k best tools for each query."""
        return self.backend.search_batch(queries, k)

    def names(self, query: str, k: int = 10) -> list[str]:
        """The names of the k best tools."""
        return [h.item.name for h in self.search(query, k)]

    def tool(self, name: str) -> Tool:
        """The pool's tool of that name (RetrievalError if absent)."""
        try:
            return self.by_name[name]
        except KeyError:
            raise RetrievalError(f"tool {name!r} is not in the pool of {len(self)}") from None
