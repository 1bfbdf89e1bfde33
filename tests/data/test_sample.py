"""The bundled sample: attributed, small, loadable, and reproducible from the full data."""

from __future__ import annotations

import filecmp

import pytest

from toollearn.data.make_sample import make_sample
from toollearn.data.registry import sample_root


def test_notice_and_size():
    notice = (sample_root() / "NOTICE").read_text()
    for needle in ("Apache", "fairyshine/Seal-Tools", "ce753ec", "Ericmututu/ToolDEER", "3a9f2fb"):
        assert needle in notice
    size = sum(p.stat().st_size for p in sample_root().rglob("*") if p.is_file())
    assert size < 2_100_000


@pytest.mark.shared
@pytest.mark.slow
def test_make_sample_reproduces_the_bundled_files(shared_data, tmp_path):
    make_sample(shared_data, tmp_path)
    files = sorted(p.relative_to(sample_root()) for p in sample_root().rglob("*") if p.is_file())
    rebuilt = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert files == rebuilt
    for rel in files:
        assert filecmp.cmp(sample_root() / rel, tmp_path / rel, shallow=False), rel
