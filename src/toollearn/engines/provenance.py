"""What a run records about the model behind it, so base and fine-tuned runs never mix.

`file_record` hashes a weight file once per (path, size, mtime) and caches the digest beside
the other toollearn caches; `package_record` gives the versions of the packages that ship or
run the weights.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

_MEMO: dict[tuple[str, int, int], str] = {}


def cache_dir(name: str = "") -> Path:
    """$TOOLLEARN_CACHE/name (default ~/.cache/toollearn/name): hashes, converted models."""
    base = os.environ.get("TOOLLEARN_CACHE") or Path.home() / ".cache" / "toollearn"
    return Path(base) / name


def file_key(path: Path) -> str:
    """A short key for a file's identity (resolved path, size, mtime): names cached copies."""
    st = path.stat()
    return hashlib.sha1(f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:12]


def _cache_file() -> Path:
    return cache_dir() / "sha256.json"


def sha256_file(path: str | Path) -> str:
    """The file's SHA-256, computed once per (path, size, mtime) and remembered on disk."""
    p = Path(path).resolve()
    st = p.stat()
    key = (str(p), st.st_size, st.st_mtime_ns)
    if key in _MEMO:
        return _MEMO[key]
    cache = _cache_file()
    stored: dict[str, str] = {}
    if cache.is_file():
        try:
            stored = json.loads(cache.read_text())
        except (OSError, ValueError):
            stored = {}
    skey = f"{key[0]}|{key[1]}|{key[2]}"
    if skey not in stored:
        h = hashlib.sha256()
        with p.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        stored[skey] = h.hexdigest()
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_text(json.dumps(stored, indent=0))
        except OSError:
            pass  # a read-only home: hash again next time
    _MEMO[key] = stored[skey]
    return _MEMO[key]


def file_record(path: str | Path) -> dict[str, Any]:
    """{"path", "sha256", "bytes"} of a weight file, or of every file in an adapter folder."""
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.rglob("*") if f.is_file())
        digest = hashlib.sha256()
        for f in files:
            digest.update(f"{f.relative_to(p)}:{sha256_file(f)}\n".encode())
        return {"path": str(p), "sha256": digest.hexdigest(), "files": len(files)}
    return {"path": str(p), "sha256": sha256_file(p), "bytes": p.stat().st_size}


def package_record(*names: str) -> dict[str, str]:
    """Installed versions of these distributions (absent ones left out)."""
    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def describe_engine(engine: Any) -> dict[str, Any]:
    """An engine's provenance: its own `describe()`, else its name."""
    fn = getattr(engine, "describe", None)
    return fn() if callable(fn) else {"engine": str(getattr(engine, "name", type(engine).__name__))}


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
