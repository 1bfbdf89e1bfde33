"""Every command's `--help` fits a screen; `toollearn help COMMAND` prints its notes whole."""

from __future__ import annotations

import argparse

import pytest

from toollearn.cli.main import build_parser, main
from toollearn.cli.screen_help import first_clause, parsers

SCREEN = 50  # lines at 100 columns


def _commands() -> list[tuple[str, argparse.ArgumentParser]]:
    return [(p.prog, p) for p in parsers(build_parser())]


def test_every_help_fits_a_screen(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    lengths = {prog: len(p.format_help().splitlines()) for prog, p in _commands()}
    assert len(lengths) > 50  # every leaf and group command
    assert {prog: n for prog, n in lengths.items() if n > SCREEN} == {}


def test_help_prints_every_note_whole(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    short = dict(_commands())["toollearn eval calls"].format_help()
    assert "Every note whole: toollearn help eval calls" in short
    assert main(["help", "eval", "calls"]) == 0
    whole = capsys.readouterr().out
    assert "Every note whole" not in whole and len(whole) > len(short)
    assert "then those waiting for a result" in " ".join(whole.split())  # --plan's whole note
    with pytest.raises(SystemExit, match="no command 'eval nothing'"):
        main(["help", "eval", "nothing"])


@pytest.mark.parametrize(
    ("note", "short"),
    [
        ("tool file (JSON or JSONL; '-' = stdin)", "tool file (JSON or JSONL; '-' = stdin)"),
        ("0 = greedy. Then more.", "0 = greedy"),
        ("the policy; see presets", "the policy"),
        ("f16, q8_0, ... (a cached copy)", "f16, q8_0, ... (a cached copy)"),
        ("word " * 30, "word " * 12 + "word ..."),  # cut at a word: a line at most
    ],
)
def test_first_clause(note, short):
    assert first_clause(note) == short
