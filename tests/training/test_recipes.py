"""Recipes: the shipped configs (and the superseded ones beside their runs) load, datasets take
kinds, missing data is made first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toollearn.core.errors import DataError
from toollearn.training.config import load_config
from toollearn.training.data import dataset_spec, load_mixture
from toollearn.training.recipe import datagen_argv, make_missing_data

ROOT = Path(__file__).parents[2]
RECIPES = ROOT / "recipes"
# the current recipes, and the superseded ones kept beside their runs
ALL = sorted([*RECIPES.glob("*.yaml"), *(ROOT / "results" / "train").glob("*/recipe.yaml")])


@pytest.mark.parametrize(
    "path", ALL, ids=lambda p: p.stem if p.parent == RECIPES else p.parent.name
)
def test_every_recipe_loads_and_names_its_data_generators(path):
    config = load_config(path)
    outs = {str(datagen_argv(c)[1]) for c in config.datagen}
    assert config.datasets and set(config.datasets) <= outs  # each dataset has its command


def test_dataset_specs_take_a_weight_or_weight_and_kinds():
    assert dataset_spec("a", 2) == (2.0, ())
    assert dataset_spec("a", {"weight": 3, "kinds": ["x", "y"]}) == (3.0, ("x", "y"))
    assert dataset_spec("a", {"kinds": "x"}) == (1.0, ("x",))
    for bad, message in [({"wieght": 1}, "unknown dataset keys"), ("many", "is a number"),
                         (0, "positive")]:  # fmt: skip
        with pytest.raises(DataError, match=message):
            dataset_spec("a", bad)


def _dataset(folder: Path, kinds: list[str]) -> Path:
    folder.mkdir()
    rows = [{"prompt": [{"role": "user", "content": f"q {k} {i}"}],
             "completion": [{"role": "assistant", "content": "a"}], "spans": [[0, 1]],
             "metadata": {"kind": k}} for k in kinds for i in range(5)]  # fmt: skip
    (folder / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def test_a_datasets_own_kinds_filter_only_that_dataset(tmp_path):
    a = _dataset(tmp_path / "a", ["x", "y"])
    b = _dataset(tmp_path / "b", ["x", "z"])
    mix = load_mixture({str(a): {"weight": 1, "kinds": ["y"]}, str(b): 1}, None, 0, 0)
    kinds = sorted(s.metadata["kind"] for s in mix.train)
    assert kinds == ["x"] * 5 + ["y"] * 5 + ["z"] * 5
    assert mix.sources[str(a)]["kinds"] == ["y"] and mix.sources[str(b)]["kinds"] == []


def test_missing_data_is_made_once_and_a_failed_generator_is_an_error(tmp_path):
    done = _dataset(tmp_path / "done", ["x"])
    calls = []

    def fake_cli(argv):
        calls.append(argv)
        _dataset(Path(argv[argv.index("--out") + 1]), ["x"])
        return 0

    commands = [f"datagen seal --out {done}", f"toollearn datagen deer -n 3 --out {tmp_path}/new"]
    assert make_missing_data(commands, run=fake_cli) == [commands[1]]
    assert calls == [["datagen", "deer", "-n", "3", "--out", f"{tmp_path}/new"]]
    assert make_missing_data(commands, run=fake_cli) == []  # now both exist
    with pytest.raises(DataError, match="datagen failed"):
        make_missing_data([f"datagen seal --out {tmp_path}/never"], run=lambda argv: 1)
    # a recipe run on other data (`--dataset`) makes none of the recipe's own datasets
    other = [f"datagen deer --out {tmp_path}/skipped"]
    assert make_missing_data(other, run=fake_cli, datasets=[str(done / "data.jsonl")]) == []
    assert make_missing_data(other, run=fake_cli, datasets=[f"{tmp_path}/skipped"]) == other
    for bad in ["train --out x", "datagen seal", "datagen seal --out a --out b"]:
        with pytest.raises(DataError):
            datagen_argv(bad)
