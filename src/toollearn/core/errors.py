"""Exceptions raised by toollearn. Each carries a message a user can act on."""

from __future__ import annotations


class ToollearnError(Exception):
    """Base class of every error toollearn raises on purpose."""


class SchemaError(ToollearnError):
    """A tool schema is invalid (missing name, bad parameter type, ...)."""


class FormatError(ToollearnError):
    """Text could not be parsed in the expected format (a model answer, a call string)."""


class DataError(ToollearnError):
    """A dataset file or record is malformed. Names the file and line (1-based) if known."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        self.path, self.line = path, line
        where = f"{path}:{line}: " if path and line else f"{path}: " if path else ""
        super().__init__(where + message)


class EngineError(ToollearnError):
    """An engine could not produce a completion (model missing, server down, ...)."""


class RetrievalError(ToollearnError):
    """A retriever was misused (empty pool, empty query, stale index, ...)."""
