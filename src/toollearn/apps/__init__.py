"""Simulated stateful apps judged by execution (SambaNova ToolBench Home Search, Trip Booking).

`APPS` maps an app name to its class; `run_program(text, cls)` interprets a model's program
(never `exec`), `load_demos`/`load_tests` read the bundled data, `ActionGenerator` turns goals
into programs with retrieved API docs and demos.
"""

from __future__ import annotations

from toollearn.apps.base import App, AppError, Date, Loc
from toollearn.apps.home_search import HomeSearchApp
from toollearn.apps.program import Execution, parse_program, run_program
from toollearn.apps.trip_booking import TripBookingApp

APPS: dict[str, type[App]] = {"home-search": HomeSearchApp, "trip-booking": TripBookingApp}

__all__ = [
    "APPS",
    "App",
    "AppError",
    "Date",
    "Execution",
    "HomeSearchApp",
    "Loc",
    "TripBookingApp",
    "parse_program",
    "run_program",
]
