"""The dequantised-GGUF cache under concurrent conversions (`engines.hf.publish_dir`): three
trainings started side by side on the lent GPU converted the same merged GGUF at once, and the
second to finish failed renaming onto the first's folder."""

from __future__ import annotations

import pytest

from toollearn.engines.hf import publish_dir


def _folder(path, text):
    path.mkdir()
    (path / "config.json").write_text(text)
    return path


def test_first_finisher_publishes(tmp_path):
    tmp = _folder(tmp_path / "m.1.tmp", "mine")
    publish_dir(tmp, tmp_path / "m")
    assert (tmp_path / "m" / "config.json").read_text() == "mine"
    assert not tmp.exists()


def test_a_later_finisher_keeps_the_published_folder_and_drops_its_copy(tmp_path):
    target = _folder(tmp_path / "m", "first")
    tmp = _folder(tmp_path / "m.2.tmp", "second")
    publish_dir(tmp, target)
    assert (target / "config.json").read_text() == "first"
    assert not tmp.exists()


def test_an_incomplete_target_is_an_error_not_a_silent_drop(tmp_path):
    target = tmp_path / "m"
    target.mkdir()
    (target / "partial.bin").write_text("x")
    tmp = _folder(tmp_path / "m.3.tmp", "mine")
    with pytest.raises(OSError):
        publish_dir(tmp, target)
    assert tmp.exists()  # nothing lost
