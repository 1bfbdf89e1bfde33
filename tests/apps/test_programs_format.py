"""The action-program format: prompts, targets and the app-free parser."""

from __future__ import annotations

import pytest

from toollearn.apps import APPS, TripBookingApp
from toollearn.apps.datasets import load_demos, load_tests
from toollearn.core.errors import FormatError
from toollearn.core.types import Message
from toollearn.formats.answers import programs


@pytest.mark.parametrize("app", list(APPS))
def test_render_target_parses_back_to_the_label_statements(app: str) -> None:
    cls = APPS[app]
    for ex in load_demos(app) + load_tests(app):
        label = ex.metadata["program"]
        target = programs.render_target(label)
        assert target == label  # the bundled labels are already written as the model should
        parse = programs.parse_program
        assert parse(target, cls.api_names(), cls.helpers) == parse(
            label, cls.api_names(), cls.helpers
        )


def test_render_target_normalises_layout_only() -> None:
    messy = '\n  API.select_booking_type("hotels")  \n\nAPI.search()\n\n'
    assert programs.render_target(messy) == 'API.select_booking_type("hotels")\nAPI.search()'


def test_prompt_forms() -> None:
    docs = ["API.a(x: int)\n    Do a.", "API.search()\n    Search."]
    demos = [("do a with 1", "API.a(1)\nAPI.search()")]
    body = programs.render_body("do a with 2", docs, demos)
    assert body == (
        "I have the following set of API:\n\n"
        + "\n".join(docs)
        + "\n-------------\nI have the following set of examples:\n\n"
        "Task: do a with 1\nAction:\nAPI.a(1)\nAPI.search()\n-------------\n"
        "Task: do a with 2\nAction:\n"
    )
    assert programs.render_prompt("do a with 2", docs, demos) == body
    raw = programs.render_prompt("do a with 2", docs, demos, system_prompt=True)
    assert raw == f"{programs.SYSTEM_PROMPT}\n\n{body}"
    chat = programs.render_prompt("do a with 2", docs, demos, system_prompt=True, chat=True)
    assert chat == [Message("system", programs.SYSTEM_PROMPT), Message("user", body)]
    assert programs.render_messages("do a with 2", docs, demos) == [Message("user", body)]


def test_parser_takes_names_not_an_app() -> None:
    statements = programs.parse_program("d = Date(1, 2, 2024)\nAPI.go(d, k=-1)", ["go"], ["Date"])
    assert [s.target or s.fn for s in statements] == ["d", "go"]
    assert statements[1].kwargs[0][1] == programs.Value("const", -1)
    with pytest.raises(FormatError, match="not an API function"):
        programs.parse_program("API.stop()", ["go"])
    with pytest.raises(FormatError, match="not allowed"):
        programs.parse_program("API.go(Date(1, 2, 2024))", ["go"])  # no helpers allowed
    with pytest.raises(FormatError, match="empty"):
        programs.parse_program("  \n ", ["go"])


def test_generator_prompt_equals_the_format_rendering() -> None:
    from toollearn.apps.generator import CONFIGS, ActionGenerator
    from toollearn.engines import ScriptedEngine

    gen = ActionGenerator(
        TripBookingApp, ScriptedEngine([]), load_demos("trip-booking"), CONFIGS["system+demos"]
    )
    goal = load_tests("trip-booking")[5].query
    sent, demos, apis = gen.prompt(goal)
    docs = [t.metadata["doc"] for t in apis]
    pairs = [(d.query, d.metadata["program"]) for d in demos]
    assert sent == programs.render_prompt(goal, docs, pairs, system_prompt=True)
