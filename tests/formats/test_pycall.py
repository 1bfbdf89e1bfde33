"""Python call strings are parsed with ast, never executed; only literals are accepted."""

from __future__ import annotations

import pytest

from toollearn.core.errors import FormatError
from toollearn.core.types import Ref, Tool, ToolCall
from toollearn.formats.pycall import (
    call_name,
    parse_call,
    parse_call_lenient,
    render_call,
    repair_call_text,
)


def test_keyword_call_with_literal_values():
    call = parse_call(
        "doc_editor(file_type='XLSX', content='Name,Score\\nAlice,90', n=-3, r=2.5, "
        "ok=False, none=None, items=[1, (2, 3)], opts={'a': {'b': True}})"
    )
    assert call.name == "doc_editor"
    assert call.arguments == {
        "file_type": "XLSX",
        "content": "Name,Score\nAlice,90",
        "n": -3,
        "r": 2.5,
        "ok": False,
        "none": None,
        "items": [1, [2, 3]],
        "opts": {"a": {"b": True}},
    }


def test_positional_args_are_mapped_by_the_tools_parameter_order():
    tool = Tool(
        name="f",
        parameters={
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
            "required": ["a"],
        },
    )
    assert parse_call("f('x', 2)", tool).arguments == {"a": "x", "b": 2}
    assert parse_call("f('x', b=2)", tool).arguments == {"a": "x", "b": 2}
    with pytest.raises(FormatError, match="pass the tool"):
        parse_call("f('x')")
    with pytest.raises(FormatError, match="takes 2 parameters"):
        parse_call("f(1, 2, 3)", tool)
    with pytest.raises(FormatError, match="given twice"):
        parse_call("f('x', a='y')", tool)


def test_render_round_trips_and_unlinks_refs():
    call = ToolCall("g", {"s": 'it\'s "q"\n', "n": [1, {"k": None}], "r": Ref("API_call_0", 0, 0)})
    text = render_call(call)
    back = parse_call(text)
    assert back.name == "g"
    assert back.arguments == {"s": 'it\'s "q"\n', "n": [1, {"k": None}], "r": "API_call_0"}
    with pytest.raises(FormatError, match="not a Python identifier"):
        render_call(ToolCall("bad name", {}))


def _malicious(marker: str) -> list[str]:
    return [
        f"__import__('os').system('touch {marker}')",
        f"f(x=__import__('os').system('touch {marker}'))",
        f"os.system('touch {marker}')",
        f"f(x=open('{marker}', 'w'))",
        f"f(x=(lambda: __import__('os').system('touch {marker}'))())",
        "f(x=lambda: 1)",
        f'f(x=f\'{{__import__("os").system("touch {marker}")}}\')',
        "f(x=some_variable)",
        "f(x=1 + 2)",
        "f(x=[i for i in range(10**9)])",
        "f(x=().__class__.__base__.__subclasses__())",
        "f(*args)",
        "f(**{'a': 1})",
        "f(x={**other})",
        "f(x={1, 2})",
        "f(x=b'bytes')",
        "f(x=1j)",
        "f(x=...)",
        "f()()",
        "getattr(f, 'x')()",
        "f(x=1); g()",
        "import os",
        "x = f(a=1)",
        "f(x=9**9**9)",
        "",
        "f(" * 500 + ")" * 500,
    ]


def test_malicious_strings_are_rejected_and_nothing_runs(tmp_path):
    marker = tmp_path / "pwned"
    for text in _malicious(str(marker)):
        with pytest.raises(FormatError):
            parse_call(text)
        with pytest.raises(FormatError):
            parse_call_lenient(text)
    assert not marker.exists()


def test_messages_name_the_problem():
    with pytest.raises(FormatError, match="plain function names"):
        parse_call("os.system('ls')")
    with pytest.raises(FormatError, match="name \\(secret\\)"):
        parse_call("f(x=secret)")
    with pytest.raises(FormatError, match="f-strings"):
        parse_call("f(x=f'{y}')")
    with pytest.raises(FormatError, match="Lambda"):
        parse_call("f(x=lambda: 1)")


def test_lenient_parse_repairs_the_faults_of_released_gold_calls():
    # Real #CallAPI# strings from ToolDEER valid.json that plain Python cannot parse.
    apostrophe = "giga(user_id='user124', query='What's the best way for me to learn programming?')"
    newline = (
        "abc_to_audio(abc_notation='X:10\nT:Relaxing Tune\nK:Cm\nC2D2E2F2|', output_format='WAV')"
    )
    json_bool = "WebPilot(link='https://x.org/a', lp=false, l='en', rt=False)"
    with pytest.raises(FormatError):
        parse_call(apostrophe)
    assert parse_call_lenient(apostrophe).arguments["query"].startswith("What's the best")
    assert (
        parse_call_lenient(newline).arguments["abc_notation"]
        == "X:10\nT:Relaxing Tune\nK:Cm\nC2D2E2F2|"
    )
    assert parse_call_lenient(json_bool).arguments["lp"] is False
    with pytest.raises(FormatError, match="name"):
        parse_call_lenient("generate_resume(format='docx', user_data=susan_data)")
    assert call_name("generate_resume(format='docx', user_data=susan_data)") == "generate_resume"
    assert repair_call_text("f(a='it's')") == "f(a='it\\'s')"
