"""Whole words: copied strings that cut a word of the query are dropped."""

from __future__ import annotations

from toollearn.agents.word_spans import cut_words, whole_words

QUERY = "Retrieve the carbon emissions of Beijing and the novels about dogs (2021)."


def test_whole_words_keep_plural_endings_and_punctuation():
    assert whole_words("Beijing", QUERY) and whole_words("carbon emissions", QUERY)
    assert whole_words("dog", QUERY) and whole_words("novel", QUERY)  # "dogs", "novels"
    assert whole_words("(2021)", QUERY) and whole_words("2021", QUERY)
    assert not whole_words("B", QUERY) and not whole_words("eijing", QUERY)
    assert not whole_words("nove", QUERY) and not whole_words("", QUERY)
    assert not whole_words("Paris", QUERY)


def test_cut_words_drops_only_spans_that_cut_a_word():
    calls = [
        {"api": "getEmissions", "parameters": {"location": "B", "year": 2021, "unit": "tons"}},
        {"api": "findBooks", "parameters": {"genre": "novel", "topic": "dogs (20"}},
        "not a call",
    ]
    out, drops = cut_words(calls, QUERY)
    assert out[0]["parameters"] == {"year": 2021, "unit": "tons"}  # "tons": not copied, kept
    assert out[1]["parameters"] == {"genre": "novel"}
    assert out[2] == "not a call"
    assert drops == [{"api": "getEmissions", "parameter": "location", "value": "B"},
                     {"api": "findBooks", "parameter": "topic", "value": "dogs (20"}]  # fmt: skip
