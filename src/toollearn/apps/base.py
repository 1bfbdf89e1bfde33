"""Stateful simulated apps whose methods are API functions (SambaNova ToolBench style).

An `App` records search criteria as its API functions are called; ordering rules, missing
required calls and invalid values raise `AppError` (the program is "non-executable"). The
recorded criteria after `search()` are the result that evaluation compares.
"""

from __future__ import annotations

import datetime as _dt
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from toollearn.core.errors import ToollearnError
from toollearn.core.types import Tool


class AppError(ToollearnError):
    """A program is not executable: wrong order, a missing required call or an invalid value."""


@dataclass(frozen=True)
class Loc:
    """A location value, written `Loc("San Francisco")` in programs."""

    name: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise AppError("Loc(...) needs a non-empty location name")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Date:
    """A calendar date, written `Date(month, day, year)` (or `Date("YYYY-MM-DD")`) in programs."""

    iso: str

    @classmethod
    def make(cls, *args: Any) -> Date:
        """Build from (month, day, year) integers or one ISO string; AppError if not a date."""
        try:
            if len(args) == 1 and isinstance(args[0], str):
                return cls(_dt.date.fromisoformat(args[0].strip()).isoformat())
            if len(args) == 3 and all(type(a) is int for a in args):
                month, day, year = args
                return cls(_dt.date(year, month, day).isoformat())
        except ValueError as exc:
            raise AppError(f"Date{args!r} is not a valid date: {exc}") from None
        raise AppError(f"Date(...) takes (month, day, year) integers or 'YYYY-MM-DD', got {args!r}")

    @property
    def date(self) -> _dt.date:
        return _dt.date.fromisoformat(self.iso)

    def __str__(self) -> str:
        return self.iso


@dataclass(frozen=True)
class Branch:
    """What one value of an app's branching call allows (e.g. a Trip Booking booking type):
    the API functions a program may call after it, besides `last_call`, and those among them
    it must call before `last_call`."""

    allowed: tuple[str, ...]
    required: tuple[str, ...] = ()


# Helper constructors a program may call (by name) besides API functions.
HELPERS: dict[str, Callable[..., Any]] = {"Loc": Loc, "Date": Date.make}


def api(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark an App method as an API function that programs may call as `API.<name>(...)`."""
    fn.__api__ = True  # type: ignore[attr-defined]
    return fn


def _json_schema(hint: Any) -> dict[str, Any]:
    """JSON Schema for one parameter type hint (Loc/Date are strings tagged with their helper)."""
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        values = list(typing.get_args(hint))
        return {"type": "string", "enum": values}
    if origin is list:
        (item,) = typing.get_args(hint) or (str,)
        return {"type": "array", "items": _json_schema(item)}
    if hint is Loc:
        return {"type": "string", "x-helper": "Loc"}
    if hint is Date:
        return {"type": "string", "format": "date", "x-helper": "Date"}
    return {"type": {int: "integer", float: "number", str: "string", bool: "boolean"}[hint]}


def _type_name(hint: Any) -> str:
    """A short type name for docs: Literal[...] reads as str, list[str] as list[str]."""
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return "str"
    if origin is list:
        return f"list[{_type_name((typing.get_args(hint) or (str,))[0])}]"
    return getattr(hint, "__name__", str(hint))


HELPER_DOCS = {
    "Loc": 'Loc(name: str)\n    A location object for a city or place, e.g. Loc("San Francisco").',
    "Date": "Date(month: int, day: int, year: int)\n    A date object, e.g. Date(8, 15, 2023).",
}


def _type_ok(value: Any, hint: Any) -> bool:
    """Whether a program value fits a parameter's type hint (no coercion: the program is code)."""
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if origin is list:
        (item,) = typing.get_args(hint) or (str,)
        return isinstance(value, list) and all(_type_ok(v, item) for v in value)
    if hint is float:
        return type(value) in (int, float)
    if hint in (Loc, Date):
        return isinstance(value, hint)
    return type(value) is hint


class App:
    """Base of the simulated apps. Subclasses define `@api` methods and `_check_search()`.

    `first_calls` must open every program in this order and `last_call` closes it; `result()`
    is the criteria dict recorded by `last_call`, including the `default_criteria` it fills
    in. `branches` maps each value of the last first call's one argument to the `Branch` it
    opens (empty: no branching); the methods enforce the same rules when a program runs, and
    the "typed" program grammar reads them. One App instance runs one program.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    first_calls: ClassVar[tuple[str, ...]] = ()
    last_call: ClassVar[str] = "search"
    helpers: ClassVar[tuple[str, ...]] = ()
    branches: ClassVar[dict[str, Branch]] = {}

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget all criteria: a fresh search form."""
        self.search_criteria: dict[str, Any] = {}
        self.calls: list[str] = []
        self.finished = False

    @classmethod
    def api_names(cls) -> list[str]:
        """The API function names in definition order."""
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            for name, value in vars(klass).items():
                if getattr(value, "__api__", False) and name not in names:
                    names.append(name)
        return names

    @classmethod
    def hints(cls, name: str) -> dict[str, Any]:
        """Parameter type hints of one API function (without `self` and the return)."""
        hints = typing.get_type_hints(getattr(cls, name))
        hints.pop("return", None)
        return hints

    @classmethod
    def tools(cls) -> list[Tool]:
        """Every API function as a `Tool` with a JSON-Schema parameter object."""
        out = []
        for name in cls.api_names():
            fn = getattr(cls, name)
            sig = inspect.signature(fn)
            hints = cls.hints(name)
            props = {p: _json_schema(hints[p]) for p in sig.parameters if p != "self"}
            required = [
                p for p, v in sig.parameters.items() if p != "self" and v.default is v.empty
            ]
            params = {"type": "object", "properties": props, "required": required}
            doc = inspect.getdoc(fn) or ""
            out.append(Tool(name, doc, params, category=cls.title, metadata={"app": cls.name}))
        return out

    @classmethod
    def api_doc(cls, name: str) -> str:
        """One function's documentation as the model sees it: signature + one-line docstring."""
        if name in cls.helpers:
            return HELPER_DOCS[name]
        hints = cls.hints(name)
        params = ", ".join(f"{p}: {_type_name(h)}" for p, h in hints.items())
        doc = " ".join((inspect.getdoc(getattr(cls, name)) or "").split())
        return f"API.{name}({params})\n    {doc}"

    @classmethod
    def default_criteria(cls, criteria: dict[str, Any]) -> dict[str, Any]:
        """The criteria `search()` fills in when a program leaves them unset, given the criteria
        recorded so far (the one place an app's defaults live; scoring reads them too)."""
        return {}

    @classmethod
    def vocabulary(cls) -> list[str]:
        """API functions plus helpers: the |D| of the API complexity score."""
        return cls.api_names() + list(cls.helpers)

    @classmethod
    def doc_tools(cls) -> list[Tool]:
        """`tools()` plus the helpers as Tools, each with its prompt doc in metadata["doc"]."""
        out = []
        for t in cls.tools():
            out.append(
                Tool(
                    t.name,
                    t.description,
                    t.parameters,
                    category=t.category,
                    metadata={**t.metadata, "doc": cls.api_doc(t.name)},
                )
            )
        for h in cls.helpers:
            out.append(
                Tool(
                    h,
                    HELPER_DOCS[h].split("\n")[1].strip(),
                    category=cls.title,
                    metadata={"app": cls.name, "doc": HELPER_DOCS[h], "helper": True},
                )
            )
        return out

    def invoke(self, name: str, args: tuple = (), kwargs: dict[str, Any] | None = None) -> Any:
        """Apply one API call after checking name, arity, types and the program's order."""
        if name not in self.api_names():
            raise AppError(f"API.{name} does not exist")
        if self.finished:
            raise AppError(f"API.{name} called after API.{self.last_call}()")
        fn = getattr(self, name)
        try:
            bound = inspect.signature(fn).bind(*args, **(kwargs or {}))
        except TypeError as exc:
            raise AppError(f"API.{name}: {exc}") from None
        hints = self.hints(name)
        for param, value in bound.arguments.items():
            if not _type_ok(value, hints[param]):
                raise AppError(f"API.{name}: invalid value {value!r} for {param}")
        self._check_order(name)
        self.calls.append(name)
        out = fn(*bound.args, **bound.kwargs)
        if name == self.last_call:
            self.finished = True
        return out

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Apply a JSON-style call (Loc/Date given as plain strings), e.g. from a ToolCall."""
        hints = self.hints(name) if name in self.api_names() else {}
        args = dict(arguments)
        for key, value in args.items():
            if hints.get(key) is Loc and isinstance(value, str):
                args[key] = Loc(value)
            elif hints.get(key) is Date and isinstance(value, str):
                args[key] = Date.make(value)
        return self.invoke(name, (), args)

    def _check_order(self, name: str) -> None:
        """Enforce `first_calls` (in order, before anything else) and `last_call` (at the end)."""
        position = len(self.calls)
        for i, required in enumerate(self.first_calls):
            if position == i and name != required:
                raise AppError(f"API.{required} must be call {i + 1}, got API.{name}")
        if name in self.first_calls and position != self.first_calls.index(name):
            raise AppError(f"API.{name} must be call {self.first_calls.index(name) + 1}")

    def result(self) -> dict[str, Any]:
        """The recorded criteria; AppError if the program never reached `last_call`."""
        if not self.finished:
            raise AppError(f"the program never called API.{self.last_call}()")
        return dict(self.search_criteria)

    def _set(self, key: str, value: Any) -> None:
        """Record one criterion (a helper for setters)."""
        self.search_criteria[key] = value

    def _fill_defaults(self) -> None:
        """Give every criterion the program left unset its `default_criteria` value."""
        for key, value in self.default_criteria(self.search_criteria).items():
            self.search_criteria.setdefault(key, value)


def require(condition: bool, message: str) -> None:
    """Raise AppError(message) unless condition holds (apps' validity checks)."""
    if not condition:
        raise AppError(message)
