"""No silent green: with --strict-skips (what `make test` runs) a skip fails the session unless
its reason is the absence of ../shared/data."""

from __future__ import annotations

from pathlib import Path

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).with_name("conftest.py").read_text()


def test_a_skip_for_a_missing_extra_fails_the_session(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        """
        import pytest

        def test_needs_an_extra():
            pytest.importorskip("no_such_package_here")

        def test_fine():
            assert True
        """
    )
    result = pytester.runpytest("--strict-skips")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*--strict-skips: 1 tests skipped*", "*no_such_package_here*"])
    assert pytester.runpytest().ret == 0  # without the flag: an ordinary skip


def test_a_skip_for_missing_shared_data_is_allowed(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        """
        import pytest
        from conftest import SHARED_SKIP

        def test_needs_shared():
            pytest.skip(SHARED_SKIP)
        """
    )
    assert pytester.runpytest("--strict-skips").ret == 0
