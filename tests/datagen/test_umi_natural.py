"""alpha-UMi trajectories on ToolDEER's natural queries: what each kind shows and calls, give-ups
among tools of other clusters, requests kept for the leakage check, the CLI job."""

from __future__ import annotations

import json

import pytest

from toollearn.data.registry import sample_root
from toollearn.data.trajectories import read_trajectories
from toollearn.datagen.dataset import Generated
from toollearn.datagen.deer import shown, training_tools
from toollearn.datagen.leakage import deer_exclusions, leakage_report
from toollearn.datagen.umi import role_samples
from toollearn.datagen.umi_natural import generate_natural_trajectories
from toollearn.retrieval.candidates import tool_clusters

SAMPLE = sample_root() / "tooldeer"


@pytest.fixture(scope="module")
def clusters():
    tools = training_tools(SAMPLE, deer_exclusions(SAMPLE), Generated())
    return tool_clusters([shown(t) for t in tools], 6)  # the sample has 12 training tools


@pytest.fixture(scope="module")
def run(clusters):
    return generate_natural_trajectories(SAMPLE, 60, seed=0, p_give_up=0.25, clusters=clusters)


def _turns(traj, role):
    return [m.content for m in traj.conversations if m.role == role]


def test_tasks_show_2_to_8_tools_and_call_the_requests_in_order(run):
    trajectories, gen = run
    assert gen.config["trajectories"] == len(trajectories) > 40
    assert set(gen.config["by_kind"]) == {"single", "multi", "parallel"}
    for t in trajectories:
        meta, names = t.metadata, [tool.name for tool in t.tools]
        assert 2 <= len(names) <= (5 if meta["give_up"] else 8)  # 5: the other clusters
        assert len(set(names)) == len(names)
        assert all("examples" not in tool.metadata for tool in t.tools)
        assert len(meta["queries"]) == (1 if meta["kind"] == "single" else len(meta["gold"]))
        if meta["kind"] == "parallel":
            assert len(set(meta["gold"])) == 1 and len(meta["gold"]) >= 2
        if meta["give_up"]:
            continue
        assert set(meta["gold"]) <= set(names)
        actions = [c.split("\n")[0].removeprefix("Action: ") for c in _turns(t, "caller")]
        assert actions == meta["gold"]
        conclusion = _turns(t, "conclusion")[0]
        for query in meta["queries"]:  # each request is answered with its own values
            assert query.strip().rstrip(".?!")[1:] in conclusion


def test_give_ups_show_only_tools_far_from_the_missing_one(run, clusters):
    give_ups = [t for t in run[0] if t.metadata["give_up"]]
    assert give_ups and run[1].config["give_ups"] == len(give_ups)
    for t in give_ups:
        names = [tool.name for tool in t.tools]
        assert not set(t.metadata["gold"]) & set(names)
        home = clusters[t.metadata["gold"][0]]
        assert home not in {clusters[n] for n in names}
        assert len({clusters[n] for n in names}) == len(names)  # one per cluster
        plan = _turns(t, "assistant")
        assert len(plan) == 1 and plan[0].startswith("None of the available APIs can ")
        assert plan[0].endswith("Next: give up.") and not _turns(t, "caller")


def test_samples_carry_every_request_for_the_leakage_check(run):
    samples = role_samples(run[0], ["umi-tool-calls"])
    assert {s.task for s in samples} == {"umi-tool-calls"}
    for s in samples:
        assert s.metadata["queries"][0] == s.metadata["query"]
        assert len(s.metadata["queries"]) >= 2  # the joined query and its parts
    assert leakage_report(samples, deer_exclusions(SAMPLE))["clean"]


def test_same_seed_same_trajectories(run, clusters):
    again, _ = generate_natural_trajectories(SAMPLE, 60, seed=0, p_give_up=0.25,
                                             clusters=clusters)  # fmt: skip
    assert [t.to_dict() for t in again] == [t.to_dict() for t in run[0]]
    other, _ = generate_natural_trajectories(SAMPLE, 60, seed=1, p_give_up=0.25,
                                             clusters=clusters)  # fmt: skip
    assert [t.instruction for t in other] != [t.instruction for t in run[0]]


def test_the_cli_job_writes_trajectories_samples_and_a_clean_report(tmp_path, capsys):
    from toollearn.cli.main import main

    out = tmp_path / "natural"
    argv = ["datagen", "umi-natural", "--data-root", str(sample_root()), "-n", "12", "--no-tokens",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    trajectories = read_trajectories(out / "trajectories_train.json")
    stats = json.loads((out / "stats.json").read_text())
    assert stats["config"]["trajectories"] == len(trajectories) > 6
    assert stats["config"]["formats"] == ["umi-tool-calls"]
    assert json.loads((out / "leakage.json").read_text())["clean"]
    rows = (out / "data.jsonl").read_text().splitlines()
    assert len(rows) == stats["n"] == sum(1 + len(_turns(t, "caller")) for t in trajectories)
    capsys.readouterr()
    assert main([*argv, "--formats", "umi-planner,nonsense"]) == 1
    assert "sample formats ['umi-planner', 'nonsense']" in capsys.readouterr().err


@pytest.mark.shared
def test_real_data_is_clean(deer_dir):
    trajectories, gen = generate_natural_trajectories(deer_dir, 150, seed=0)
    assert gen.config["tools_train"] == 900 and len(trajectories) > 140
    assert gen.rejections["tool: held-out (unseen test tool)"] == 77
    samples = role_samples(trajectories, ["umi-tool-calls"])
    report = leakage_report(samples, deer_exclusions(deer_dir))
    assert report["clean"], report


def test_close_distractors_come_from_the_gold_tools_clusters_first(clusters):
    got, gen = generate_natural_trajectories(SAMPLE, 40, seed=0, p_give_up=0.0, clusters=clusters,
                                             mix={"single": 1.0}, distractors="close")  # fmt: skip
    assert gen.config["distractors"] == "close" and gen.config["by_kind"] == {"single": len(got)}
    pool = set(clusters)
    for t in got:
        gold = t.metadata["gold"][0]
        others = [tool.name for tool in t.tools if tool.name != gold]
        near = {n for n in pool if clusters[n] == clusters[gold]} - {gold}
        in_home = [n for n in others if n in near]
        assert len(in_home) == min(len(others), len(near))  # the cluster first, then the rest


def test_bad_mixes_and_distractors_are_named(capsys):
    from toollearn.cli.main import main

    with pytest.raises(ValueError, match="task kinds must be among"):
        generate_natural_trajectories(SAMPLE, 2, mix={"nested": 1.0}, clusters={})
    with pytest.raises(ValueError, match="distractors must be one of"):
        generate_natural_trajectories(SAMPLE, 2, distractors="near", clusters={})
    argv = ["datagen", "umi-natural", "--data-root", str(sample_root()), "--out", "unused"]
    assert main([*argv, "--mix", "single:0.5,multi:-1"]) == 1
    assert "task kinds must be among" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*argv, "--mix", "single=1"])
