"""Shared test fixtures: paths to the real data in ../shared, and the no-silent-green rule.

`pytest --strict-skips` (what `make test` and CI run) fails the session when any test was
skipped for a reason other than the one allowed: `../shared/data` absent (SHARED_SKIP). A
missing extra or a missing model is an install problem, never a pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
SHARED_SKIP = "../shared/data is not present"
_SKIPPED: list[tuple[str, str]] = []


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--strict-skips",
        action="store_true",
        help=f"fail if a test is skipped for any reason but {SHARED_SKIP!r}",
    )


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _SKIPPED.append((report.nodeid, reason))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _free_llama_models()
    if not session.config.getoption("--strict-skips"):
        return
    bad = [(node, why) for node, why in _SKIPPED if SHARED_SKIP not in why]
    if bad:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"\n--strict-skips: {len(bad)} tests skipped for a reason other "
                                f"than {SHARED_SKIP!r}:", red=True)  # fmt: skip
            for node, why in bad:
                reporter.write_line(f"  {node}: {why}", red=True)
        session.exitstatus = 1


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The full reference data (../shared/data); tests that need it skip when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(SHARED_SKIP)
    return SHARED_DATA


@pytest.fixture(scope="session")
def seal_dir(shared_data: Path) -> Path:
    return shared_data / "seal-tools"


@pytest.fixture(scope="session")
def deer_dir(shared_data: Path) -> Path:
    return shared_data / "tooldeer"


@pytest.fixture(scope="session")
def admits():
    """`admits(gbnf, text)`: whether llama.cpp's grammar engine accepts `text` as a complete
    answer, token by token as the embedded model would write it (needs the llama extra)."""
    from toollearn.engines.llama import LlamaEngine
    from toollearn.engines.llama_grammar import GrammarMatcher

    llm = LlamaEngine(n_threads=1).llm

    def check(gbnf: str, text: str) -> bool:
        m = GrammarMatcher(llm, gbnf)
        try:
            for tok in llm.tokenize(text.encode(), add_bos=False, special=False):
                if not m.allows(tok):
                    return False
                m.accept(tok)
            return m.allows(llm.token_eos())
        finally:
            m.close()

    return check


def _free_llama_models() -> None:
    """Close the cached llama.cpp models while Python is still whole (freed at interpreter
    exit, llama-cpp-python's destructor prints a TypeError traceback)."""
    import sys

    llama = sys.modules.get("toollearn.engines.llama")
    if llama is None:
        return
    for model in llama._MODELS.values():
        model.close()
    llama._MODELS.clear()
