"""What every benchmark runner shares: resumable prediction files, run metadata, progress.

A run directory holds `predictions.jsonl` (one record per example, appended and flushed as
each finishes, so an interrupted run resumes where it stopped) and `scores.json` (the scores
plus everything needed to reproduce them: config, git hash, package versions, seed, timings).
"""

from __future__ import annotations

import fcntl
import json
import platform
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from importlib import metadata
from pathlib import Path
from typing import IO, Any, TypeVar

from toollearn.core.errors import DataError

T = TypeVar("T")

_LOCKS: dict[str, IO[str]] = {}  # run directory -> this process's lock on it

_PACKAGES = (
    "toollearn",
    "llama_cpp_python",
    "transformers",
    "torch",
    "peft",
    "bm25s",
    "sentence-transformers",
    "numpy",
)


def git_hash(cwd: Path | None = None) -> str | None:
    """The checkout's commit (with '-dirty' if it has local changes), or None outside git."""
    here = cwd or Path(__file__).resolve().parent
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5
        )
        if rev.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=5,
        )
        return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def package_versions() -> dict[str, str]:
    """Installed versions of the packages that can change a result."""
    found = {}
    for name in _PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def run_metadata(config: dict[str, Any]) -> dict[str, Any]:
    """Config plus provenance: git hash, versions, Python, platform, start time."""
    return {
        "config": config,
        "git": git_hash(),
        "versions": package_versions(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def progress(items: Iterable[T], total: int | None = None, desc: str = "") -> Iterator[T]:
    """A progress bar on stderr (tqdm), silent when stderr is not a terminal and CI is set."""
    from tqdm import tqdm

    yield from tqdm(items, total=total, desc=desc, file=sys.stderr, dynamic_ncols=True)


class RunWriter:
    """Appends one JSON record per finished example and writes the final scores.

    Records must carry an "id". Re-opening a directory with a different config raises, so a
    resumed run never mixes predictions of two settings, and a second process opening a
    directory that another live process is writing raises too (an exclusive lock on
    `.lock`, held until the process ends).
    """

    def __init__(self, out_dir: str | Path, config: dict[str, Any]):
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.config = config
        self.predictions_path = self.out_dir / "predictions.jsonl"
        self._config_path = self.out_dir / "config.json"
        self._acquire_lock()
        self._check_config()
        self._started = time.time()
        self._meta = run_metadata(config)

    def _acquire_lock(self) -> IO[str]:
        key = str(self.out_dir.resolve())
        if key in _LOCKS:  # writers of one process share its lock
            return _LOCKS[key]
        handle = (self.out_dir / ".lock").open("w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise DataError(
                f"{self.out_dir} is being written by another process; wait for it or stop it"
            ) from None
        _LOCKS[key] = handle
        return handle

    def _check_config(self) -> None:
        wanted = json.loads(json.dumps(self.config))
        if self._config_path.exists():
            previous = json.loads(self._config_path.read_text())
            if previous != wanted:
                raise DataError(
                    f"{self.out_dir} holds a run with another config ({previous}); "
                    "use a new --out directory or delete it",
                )
        else:
            self._config_path.write_text(json.dumps(wanted, indent=2) + "\n")

    def records(self) -> list[dict[str, Any]]:
        """All records written so far, in order. A torn last line (a killed run) is dropped
        and counted out loud; any other bad line is an error naming the line."""
        if not self.predictions_path.exists():
            return []
        lines = self.predictions_path.read_text().splitlines()
        out = []
        for i, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                if i == len(lines):  # interrupted mid-write: that example reruns
                    print(
                        f"note: ignoring a torn last line in {self.predictions_path}",
                        file=sys.stderr,
                    )
                    self._truncate_to(lines[: i - 1])
                    break
                raise DataError(f"bad JSON: {exc}", str(self.predictions_path), i) from exc
        return out

    def _truncate_to(self, lines: list[str]) -> None:
        text = "".join(line + "\n" for line in lines)
        self.predictions_path.write_text(text)

    def done_ids(self) -> set[str]:
        """Ids already predicted (to skip when resuming)."""
        return {str(r["id"]) for r in self.records()}

    def append(self, record: dict[str, Any]) -> None:
        if "id" not in record:
            raise ValueError("a prediction record needs an 'id'")
        with self.predictions_path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            fh.flush()

    def write_scores(self, scores: dict[str, Any], extra: dict[str, Any] | None = None) -> Path:
        """Write scores.json: the scores, run metadata, wall time of this process, extras."""
        payload = {
            "scores": scores,
            **self._meta,
            "wall_seconds_this_session": round(time.time() - self._started, 2),
            "n_records": len(self.records()),
            **(extra or {}),
        }
        path = self.out_dir / "scores.json"
        path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
        return path
