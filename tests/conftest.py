"""Shared test fixtures: paths to the real data in ../shared and markers' skip logic."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The full reference data (../shared/data); tests that need it skip when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


@pytest.fixture(scope="session")
def seal_dir(shared_data: Path) -> Path:
    return shared_data / "seal-tools"


@pytest.fixture(scope="session")
def deer_dir(shared_data: Path) -> Path:
    return shared_data / "tooldeer"
