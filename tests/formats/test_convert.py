"""Tool list conversion between formats, through the API and `toollearn tools convert`."""

from __future__ import annotations

import json

import pytest

from toollearn.cli.main import main
from toollearn.core.errors import DataError
from toollearn.data.registry import sample_root
from toollearn.formats.convert import FORMATS, dump_tools, parse_tools, read_tools, write_tools

SEAL_TOOLS = sample_root() / "seal-tools" / "tool.jsonl"
DEER_TOOLS = sample_root() / "tooldeer" / "tool.json"


def test_every_format_writes_what_it_reads(tmp_path):
    tools = read_tools(SEAL_TOOLS, "seal-tools")[:20]
    for fmt in FORMATS:
        out = tmp_path / f"tools.{fmt}.jsonl"
        write_tools(tools, out, fmt)
        back = read_tools(out, fmt)
        assert [t.name for t in back] == [t.name for t in tools]
        if fmt in ("seal-tools", "openai", "openai-dict", "toollearn"):
            assert [t.parameters for t in back] == [t.parameters for t in tools], fmt
        elif fmt in ("python", "tooldeer"):  # signatures carry types, not descriptions
            for a, b in zip(back, tools):
                assert {k: p.get("type") for k, p in a.properties.items()} == {
                    k: p.get("type") for k, p in b.properties.items()
                }
                assert a.required == b.required


def test_seal_round_trip_through_toollearn_json_is_byte_exact(tmp_path):
    tools = read_tools(SEAL_TOOLS, "seal-tools")
    write_tools(tools, tmp_path / "t.json", "toollearn")
    assert json.loads((tmp_path / "t.json").read_text())[0]["name"] == tools[0].name
    again = read_tools(tmp_path / "t.json", "toollearn")
    expected = "".join(
        json.dumps(json.loads(line), ensure_ascii=False) + "\n"
        for line in SEAL_TOOLS.read_text().splitlines()
    )
    assert dump_tools(again, "seal-tools") == expected


def test_python_format_reads_plain_signature_lines():
    tools = parse_tools("f(a: str, b: int = 2)\n\ng(x: bool)\n", "python")
    assert [t.name for t in tools] == ["f", "g"]
    assert json.loads(dump_tools(tools, "python").splitlines()[0]) == {
        "signature": "f(a: str, b: int = 2)",
        "description": "",
    }


def test_openai_object_with_tools_list_is_accepted():
    text = json.dumps({"tools": [{"type": "function", "function": {"name": "f"}}]})
    assert parse_tools(text, "openai")[0].name == "f"


@pytest.mark.parametrize(
    "text, fmt, message",
    [
        (
            '{"api_name": "a", "parameters": {}}\n{"api_name": "b", ',
            "seal-tools",
            ":2: invalid JSON",
        ),
        ('{"api_name": "a", "parameters": {}}\n{"api_description": "x"}', "seal-tools", ":2: Seal"),
        ('[{"name": "f", "parameters": []}]', "openai", "record 0: OpenAI tool 'f'"),
        ("f(a b)\n", "python", "<input>:1: cannot read parameter"),
        ('[{"Name": "x", "input": {"a": 1}}]', "toolbench", "record 0"),
        ("[1]", "toollearn", "record 0: toollearn tool"),
    ],
)
def test_broken_input_names_the_record(text, fmt, message):
    with pytest.raises(DataError, match=message):
        parse_tools(text, fmt)


def test_unknown_format_and_missing_file():
    with pytest.raises(DataError, match="unknown tool format"):
        parse_tools("[]", "yaml")
    with pytest.raises(DataError, match="file not found"):
        read_tools("/nonexistent/tools.json", "openai")


def test_cli_convert_deer_tools_to_openai(tmp_path, capsys):
    out = tmp_path / "openai.json"
    assert main(["tools", "convert", "--from", "tooldeer", "--to", "openai", str(DEER_TOOLS),
                 "-o", str(out)]) == 0  # fmt: skip
    converted = json.loads(out.read_text())
    raw = json.loads(DEER_TOOLS.read_text())
    assert len(converted) == len(raw)
    assert all(c["type"] == "function" for c in converted)
    assert "wrote" in capsys.readouterr().err


def test_cli_convert_to_stdout_and_error_exit(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text('{"api_name": "a", "api_description": "d", "parameters": {}}\n')
    assert main(["tools", "convert", "--from", "seal-tools", "--to", "python", str(src)]) == 0
    assert json.loads(capsys.readouterr().out)["signature"] == "a()"
    src.write_text('{"api_name": "a", "parameters": {}}\nnot json\n')
    assert main(["tools", "convert", "--from", "seal-tools", "--to", "openai", str(src)]) == 1
    assert f"{src}:2: invalid JSON" in capsys.readouterr().err


def test_lossy_conversion_is_reported(capsys, tmp_path):
    from toollearn.formats.convert import lost_fields

    seal = {
        "api_name": "getWeather",
        "api_description": "Weather now",
        "field": "Weather/Now",
        "parameters": {"city": {"type": "str", "description": "a city"}},
        "required": ["city"],
        "responses": {"temp": {"type": "float", "description": "degrees C"}},
    }
    src = tmp_path / "tools.jsonl"
    src.write_text(json.dumps(seal) + "\n")
    tools = read_tools(src, "seal-tools")
    assert lost_fields(tools, "openai") == {"responses": 1, "category": 1}
    assert lost_fields(tools, "seal-tools") == {}
    assert (
        main(
            [
                "tools",
                "convert",
                "--from",
                "seal-tools",
                "--to",
                "openai",
                str(src),
                "-o",
                str(tmp_path / "out.json"),
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "no place for 'responses': dropped from 1 tools" in err
