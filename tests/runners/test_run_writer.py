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
