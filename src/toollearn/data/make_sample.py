"""Rebuild the bundled sample (src/toollearn/data/sample/) from the full data, deterministically.

    python -m toollearn.data.make_sample --data-root ../shared/data [--out DIR]

The sample keeps the released file formats (so it loads through the same parsers):
Seal-Tools: for test_in_domain and test_out_domain, every nested instance plus evenly spaced
easy and difficult ones (100 per split), as eval prompts and in the new format, 100 evenly
spaced dev instances (new format), and the gold tools of all of them (tool.jsonl).
ToolDEER: 100 test examples (60 Call, 40 NoCall), 30 valid NoSearch + 10 Call + 10 NoCall
(+2 Call whose function name differs from the api_name),
25 from each baseline file, and tool.json entries of the gold tools.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.data import seal_tools, tooldeer
from toollearn.data.jsonl import read_json_list
from toollearn.data.stats import mentions_response

NOTICE = """\
toollearn bundled data sample
=============================
A small subset of two public datasets, redistributed under the Apache License 2.0
(full text: https://www.apache.org/licenses/LICENSE-2.0). Records are copied unchanged;
only a subset is kept. Rebuild with `python -m toollearn.data.make_sample --data-root DIR`.

seal-tools/  from Seal-Tools, https://github.com/fairyshine/Seal-Tools (commit ce753ec),
             Copyright the Seal-Tools authors, Apache-2.0.
tooldeer/    from ToolDEER, https://github.com/Ericmututu/ToolDEER (commit 3a9f2fb),
             Copyright the ToolDEER authors, Apache-2.0.
"""


def spaced(items: Sequence[Any], k: int) -> list[Any]:
    """k items evenly spaced over the sequence (all of them if there are at most k)."""
    if k >= len(items):
        return list(items)
    return [items[(i * len(items)) // k] for i in range(k)]


def _dump_list(path: Path, records: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = ",\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    path.write_text(f"[\n{body}\n]\n", encoding="utf-8")


def _dump_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line.rstrip("\n") + "\n" for line in lines), encoding="utf-8")


def _pick_seal(examples: list, per_split: int) -> list[int]:
    """Indices: all nested, then easy and difficult evenly spaced up to `per_split`."""
    nested = [i for i, e in enumerate(examples) if mentions_response(e)]
    easy = [i for i, e in enumerate(examples) if e.difficulty == "easy" and i not in nested]
    hard = [i for i, e in enumerate(examples) if e.difficulty == "difficult" and i not in nested]
    room = max(per_split - len(nested), 0)
    return sorted(nested + spaced(easy, room * 2 // 5) + spaced(hard, room - room * 2 // 5))


def make_seal(src: Path, out: Path, per_split: int = 100, n_dev: int = 100) -> None:
    """Write the Seal-Tools part of the sample."""
    names: set[str] = set()
    for split in ("test_in_domain", "test_out_domain"):
        prompts = seal_tools.load_eval_prompts(src, split)
        keep = _pick_seal(prompts, per_split)
        raw = read_json_list(src / "dataset_for_finetune" / f"{split}.json")
        _dump_list(out / "dataset_for_finetune" / f"{split}.json", [raw[i] for i in keep])
        lines = (src / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
        _dump_lines(out / f"{split}.jsonl", [lines[i] for i in keep])
        names |= {c.name for i in keep for c in prompts[i].calls}
    dev_lines = (src / "dev.jsonl").read_text(encoding="utf-8").splitlines()
    dev_keep = spaced(range(len(dev_lines)), n_dev)
    _dump_lines(out / "dev.jsonl", [dev_lines[i] for i in dev_keep])
    names |= {c["api"] for i in dev_keep for c in json.loads(dev_lines[i])["calling"]}
    tool_lines = (src / "tool.jsonl").read_text(encoding="utf-8").splitlines()
    kept = [ln for ln in tool_lines if json.loads(ln)["api_name"] in names]
    _dump_lines(out / "tool.jsonl", kept)


def _renamed(example: Any) -> bool:
    """True if the gold call's function name differs from the tool's listed api_name."""
    return any(t.name != t.metadata["api_name"] for t in example.tools if t.name in
               {c.name for c in example.calls})  # fmt: skip


def make_deer(src: Path, out: Path) -> None:
    """Write the ToolDEER part of the sample."""
    test = tooldeer.load_split(src, "test")
    valid = tooldeer.load_split(src, "valid")

    def by(examples: list, decision: str) -> list[int]:
        return [i for i, e in enumerate(examples) if e.metadata["decision"] == decision]

    renamed = [i for i in by(valid, "Call") if _renamed(valid[i])][:2]
    keep_test = sorted(spaced(by(test, "Call"), 60) + spaced(by(test, "NoCall"), 40))
    keep_valid = sorted(
        set(spaced(by(valid, "NoSearch"), 30) + spaced(by(valid, "Call"), 10)
            + spaced(by(valid, "NoCall"), 10) + renamed)
    )  # fmt: skip
    raw_test, raw_valid = read_json_list(src / "test.json"), read_json_list(src / "valid.json")
    _dump_list(out / "test.json", [raw_test[i] for i in keep_test])
    _dump_list(out / "valid.json", [raw_valid[i] for i in keep_valid])
    gold = {c.name for i in keep_test for c in test[i].calls}
    gold |= {c.name for i in keep_valid for c in valid[i].calls}
    tools = tooldeer.load_tools(src)
    raw_tools = read_json_list(src / "tool.json")
    _dump_list(out / "tool.json", [r for r, t in zip(raw_tools, tools) if t.name in gold])
    for name in tooldeer.BASELINES:
        raw = read_json_list(src / "baselines" / f"{name}.json")
        calls = [i for i, r in enumerate(raw) if r["is_call"]]
        nocalls = [i for i, r in enumerate(raw) if not r["is_call"]]
        keep = sorted(spaced(calls, 15) + spaced(nocalls, 10))
        _dump_list(out / "baselines" / f"{name}.json", [raw[i] for i in keep])


def make_sample(data_root: str | Path, out: str | Path) -> None:
    """Rebuild the whole sample from a full data root into `out`."""
    root, dest = Path(data_root), Path(out)
    make_seal(seal_tools.seal_dir(root), dest / "seal-tools")
    make_deer(tooldeer.deer_dir(root), dest / "tooldeer")
    (dest / "NOTICE").write_text(NOTICE, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", required=True, help="folder with seal-tools/, tooldeer/")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "sample"))
    args = parser.parse_args(argv)
    make_sample(args.data_root, args.out)
    print(f"sample written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
