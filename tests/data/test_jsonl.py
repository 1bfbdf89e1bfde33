"""JSONL/JSON helpers fail with file:line and never skip a record silently."""

from __future__ import annotations

import pytest

from toollearn.core.errors import DataError
from toollearn.data.jsonl import append_jsonl, read_json_list, read_jsonl, write_jsonl


def test_write_append_read(tmp_path):
    path = tmp_path / "sub" / "x.jsonl"
    assert write_jsonl(path, [{"a": 1}, {"b": "é"}]) == 2
    append_jsonl(path, {"c": None})
    assert list(read_jsonl(path)) == [(1, {"a": 1}), (2, {"b": "é"}), (3, {"c": None})]


def test_bad_line_names_file_and_line(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n\n{"b": \n')
    with pytest.raises(DataError, match=r"x.jsonl:3: invalid JSON") as info:
        list(read_jsonl(path))
    assert info.value.line == 3 and info.value.path == str(path)


def test_non_object_line_and_missing_file(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(DataError, match=":2: expected a JSON object, got list"):
        list(read_jsonl(path))
    with pytest.raises(DataError, match="file not found"):
        list(read_jsonl(tmp_path / "nope.jsonl"))


def test_json_list_errors(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"a": 1}')
    with pytest.raises(DataError, match="expected a JSON list, got dict"):
        read_json_list(path)
    path.write_text('[\n{"a": 1},\n{"a": }\n]')
    with pytest.raises(DataError, match="x.json:3: invalid JSON"):
        read_json_list(path)
