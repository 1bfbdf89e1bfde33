"""Load datasets by name: `seal-tools/<split>`, `seal-tools-old/<split>`,
`seal-tools-prompts/<split>`, `tooldeer/<valid|test|tool_bench|tool_corpus>`, and the same
under `sample/` for the small attributed sample shipped in the package (no root needed).

The full data is found at `root`, else $TOOLLEARN_DATA; a data root holds `seal-tools/` and
`tooldeer/` folders as laid out in the release (see docs)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from toollearn.core.errors import DataError
from toollearn.core.types import Example, Tool
from toollearn.data import seal_tools, tooldeer

SAMPLE_ROOT = Path(__file__).resolve().parent / "sample"
DATASETS = ("seal-tools", "seal-tools-old", "seal-tools-prompts", "tooldeer")

_LOADERS: dict[str, Callable[[Path, str], list[Example]]] = {
    "seal-tools": seal_tools.load_split,
    "seal-tools-old": seal_tools.load_split_old,
    "seal-tools-prompts": seal_tools.load_eval_prompts,
}


def sample_root() -> Path:
    """The folder of the bundled sample (a data root with seal-tools/ and tooldeer/)."""
    return SAMPLE_ROOT


def resolve_root(spec: str, root: str | Path | None) -> tuple[str, Path]:
    """(spec without a `sample/` prefix, the data root to read it from)."""
    if spec.startswith("sample/") or spec == "sample":
        return spec[len("sample/") :], SAMPLE_ROOT
    if root is None:
        root = os.environ.get("TOOLLEARN_DATA")
    if not root:
        raise DataError(
            f"no data root for {spec!r}: pass --data-root DIR (or root=...), set "
            "$TOOLLEARN_DATA, or use the bundled sample as 'sample/" + spec + "'"
        )
    path = Path(root).expanduser()
    if not path.is_dir():
        raise DataError("data root is not a folder", str(path))
    return spec, path


def load_examples(spec: str, root: str | Path | None = None) -> list[Example]:
    """All examples of a dataset split named by `spec` (e.g. 'seal-tools-prompts/test_in_domain',
    'tooldeer/test', 'sample/tooldeer/test')."""
    name, base = resolve_root(spec, root)
    dataset, _, split = name.partition("/")
    if not split:
        raise DataError(f"spec {spec!r} needs a split: <dataset>/<split>")
    if dataset in _LOADERS:
        return _LOADERS[dataset](base, split)
    if dataset == "tooldeer":
        if split in tooldeer.BASELINES:
            return tooldeer.load_baseline(base, split)
        return tooldeer.load_split(base, split)
    raise DataError(f"unknown dataset {dataset!r} in {spec!r}; choose from {', '.join(DATASETS)}")


def load_tool_pool(spec: str, root: str | Path | None = None) -> list[Tool]:
    """The tool pool of a dataset ('seal-tools', 'tooldeer', 'sample/seal-tools', ...; a split
    suffix is ignored)."""
    name, base = resolve_root(spec, root)
    dataset = name.partition("/")[0]
    if dataset.startswith("seal-tools"):
        return seal_tools.load_tools(base)
    if dataset == "tooldeer":
        return tooldeer.load_tools(base)
    raise DataError(f"unknown dataset {dataset!r} in {spec!r}; choose from {', '.join(DATASETS)}")
