"""SambaNova alignment data for Home Search and Trip Booking: train templates disjoint from the
test templates, executable labels, served prompts, all-shot loss spans, reproducible output and
the API complexity report."""

from __future__ import annotations

import random

import pytest

from toollearn.apps import APPS
from toollearn.apps.datasets import build, load_demos, load_tests, spec_path
from toollearn.apps.generator import ActionGenerator
from toollearn.apps.program import run_program
from toollearn.core.errors import DataError
from toollearn.data.templates import Template, load_spec
from toollearn.datagen.apps import (
    DEFAULT_CONFIG,
    PairSampler,
    app_exclusions,
    generate_apps,
)
from toollearn.datagen.dataset import Generated, write_dataset
from toollearn.datagen.leakage import QueryIndex, leakage_report, normalise
from toollearn.engines import ScriptedEngine
from toollearn.evaluation.metrics.complexity import api_complexity
from toollearn.evaluation.runners.apps import complexity
from toollearn.formats.answers import programs

MIN_TEMPLATES = {"home-search": 30, "trip-booking": 36}


@pytest.fixture(scope="module", params=list(APPS))
def app(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def built(app: str) -> dict[str, list[dict]]:
    """Three goals per train template (build raises if a label does not execute)."""
    return build(app, per_template={"train": 3}, splits=("test", "train"))


def test_train_templates_are_disjoint_from_the_test_templates(app: str, built) -> None:
    templates = load_spec(spec_path(app))[0]
    train, test = templates["train"], templates["test"]
    assert len(train) >= MIN_TEMPLATES[app]
    assert {t.id for t in train}.isdisjoint(t.id for t in test + templates["demo"])
    shown = QueryIndex([t.goal for t in test + templates["demo"]])
    assert [t.id for t in train if shown.match(t.goal)] == []  # other phrasings
    test_sets = {frozenset(r["names"]) for r in built["test"]}
    same = {r["template"] for r in built["train"] if frozenset(r["names"]) in test_sets}
    assert same == set()  # no train template calls the API set of a test template


def test_train_goals_and_labels(app: str, built) -> None:
    cls = APPS[app]
    records = built["train"]
    held_out = {normalise(r["goal"]) for r in built["test"]}
    assert [r["goal"] for r in records if normalise(r["goal"]) in held_out] == []
    for r in records:
        run = run_program(r["program"], cls)
        assert run.executable, (r["template"], run.error)
    used = {n for r in records for n in r["names"]}
    assert used == set(cls.vocabulary())  # every API function (and helper) is trained


def test_build_keeps_the_bundled_splits(app: str) -> None:
    assert list(build(app)) == ["demo", "test"]  # write_all never writes a train file


def test_generated_samples_are_checked(app: str) -> None:
    g = generate_apps(app, n=40, seed=3)
    tests = {normalise(t.query) for t in load_tests(app)}
    queries = [q for s in g.samples for q in s.metadata.get("queries") or [s.metadata["query"]]]
    assert len(set(queries)) == len(queries) and not tests & {normalise(q) for q in queries}
    assert leakage_report(g.samples, app_exclusions(app))["clean"]
    assert g.config["counts"] == {"single": 20, "allshot": 20, "pairs": len(queries)}
    assert sum(g.config["templates"].values()) == len(queries)
    for s in g.samples:
        assert s.task == "programs" and s.metadata["app"] == app
        for text in s.span_texts():
            assert run_program(text, APPS[app]).executable


def _served(app: str, goal: str, answer: str) -> list:
    """What the action generator sends to an engine for `goal` (DEFAULT_CONFIG, demo pool)."""
    engine = ScriptedEngine([answer])
    gen = ActionGenerator(APPS[app], engine, load_demos(app), DEFAULT_CONFIG)
    [out] = gen.generate([goal])
    assert out.text == answer.strip()
    return list(engine.prompts[0])


def test_single_sample_prompt_is_the_served_prompt(app: str) -> None:
    g = generate_apps(app, n=3, allshot=0.0, seed=1)
    assert [s.metadata["kind"] for s in g.samples] == ["single"] * 3
    for s in g.samples:
        assert _served(app, s.metadata["query"], s.target) == list(s.messages)
        assert s.spans == ((0, len(s.target)),)
        assert s.messages[0].content == programs.SYSTEM_PROMPT


def test_allshot_spans_are_exactly_the_programs(app: str) -> None:
    g = generate_apps(app, n=6, allshot=1.0, seed=2, k_per_sample=(2, 4))
    for s in g.samples:
        queries, spans = s.metadata["queries"], s.spans
        assert s.metadata["kind"] == "allshot" and 2 <= len(queries) <= 4
        assert len(spans) == len(queries) and len(set(s.metadata["templates"])) == len(queries)
        assert spans[0][0] == 0 and spans[-1][1] == len(s.target)
        gaps = [s.target[a[1] : b[0]] for a, b in zip(spans, spans[1:])]
        assert gaps == [f"\n\nTask: {q}\nAction:\n" for q in queries[1:]]  # goals carry no loss
        assert _served(app, queries[0], s.span_texts()[0]) == list(s.messages)
        for prompt, query in zip(s.prompts()[1:], queries[1:]):
            assert prompt[-1].role == "assistant"
            assert prompt[-1].content.endswith(f"Task: {query}\nAction:\n")
        # the same layout as the demos in the prompt: render_demo blocks joined by "\n"
        blocks = [programs.render_demo(q, p) for q, p in zip(queries, s.span_texts())]
        head = f"Task: {queries[0]}\nAction:\n"
        assert head + s.target + "\n" == "\n".join(blocks)
        assert s.messages[-1].content.endswith(head)


def test_same_seed_same_bytes_other_seed_differs(tmp_path) -> None:
    def write(seed: int, name: str) -> tuple[bytes, bytes]:
        g = generate_apps("home-search", n=8, seed=seed)
        write_dataset(tmp_path / name, g.samples, config=g.config, rejections=g.rejections)
        return (tmp_path / name / "data.jsonl").read_bytes(), (
            tmp_path / name / "stats.json"
        ).read_bytes()

    first, again, other = write(0, "a"), write(0, "b"), write(1, "c")
    assert first == again
    assert first[0] != other[0]


def test_rejections_are_counted_by_reason() -> None:
    """Test templates used as training templates: draws that hit (or nearly copy) a test goal are
    rejected, a small template runs out of new goals, a label that cannot run is rejected."""
    cls = APPS["home-search"]
    templates, pools = load_spec(spec_path("home-search"))
    by_id = {t.id: t for t in templates["test"]}
    tests = [t.query for t in load_tests("home-search")]
    out = Generated()
    sampler = PairSampler(cls, [by_id["hs-test-14"]], pools, random.Random("t"), out, tests=tests)
    goals = [sampler.draw(1)[0].goal for _ in range(100)]
    assert len(set(goals)) == 100 and not set(goals) & set(tests)
    assert out.rejections["test goal"] > 0 and out.rejections["near test goal"] > 0
    out = Generated()
    small = by_id["hs-test-16"]  # "Rent a home with {beds} bedrooms in {location}."
    sampler = PairSampler(cls, [small], pools, random.Random("t"), out, tests=tests)
    with pytest.raises(DataError, match="templates with unused goals"):
        for _ in range(80):
            sampler.draw(1)
    assert out.rejections["duplicate goal"] > 0 and sampler.exhausted == {"hs-test-16"}
    broken = Template("bad", "Search {location}.", ("API.search()",))
    out = Generated()
    sampler = PairSampler(cls, [broken], pools, random.Random("t"), out, max_tries=5)
    with pytest.raises(DataError):
        sampler.draw(1)
    assert out.rejections == {"label not executable": 5}


def test_complexity_of_the_tests_given_the_training_programs(app: str) -> None:
    cls = APPS[app]
    g = generate_apps(app, n=60, seed=0)
    report = g.config["complexity"]
    tests, demos = load_tests(app), load_demos(app)
    assert report["vs_demos"] == complexity(cls, tests, demos)  # 12.01 and 16.17
    names = [list(t.metadata["names"]) for t in tests]
    train = [run_program(text, cls).names for s in g.samples for text in s.span_texts()]
    expected = round(api_complexity(names, train, len(cls.vocabulary())), 2)
    assert report["vs_train"] == expected < report["vs_demos"]
    assert report["vs_train_and_demos"] <= report["vs_train"]
    assert report["base"] == 2 and report["train_programs"] == len(train)
    assert g.config["generator_config"] == DEFAULT_CONFIG.to_dict()
