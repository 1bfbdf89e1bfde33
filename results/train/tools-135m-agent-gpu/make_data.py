"""The GPU run's data: `runs/data/umi-tool-calls` (the general-format turns of the alpha-UMi
training trajectories) without the samples of the umi dev set's 120 trajectories, so that dev
set (results/umi-stop-gate/dev-set) stays held out and can choose between the GPU adapters.

    python results/train/tools-135m-agent-gpu/make_data.py runs/data/umi-tool-calls \
        results/umi-stop-gate/dev-set/trajectories_dev.json runs/data/umi-tool-calls-nodev
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path


def main(src: str, dev_file: str, out: str) -> None:
    dev = {t["instruction"].strip() for t in json.loads(Path(dev_file).read_text())}
    lines = Path(src, "data.jsonl").read_text(encoding="utf-8").splitlines()
    kept, dropped, dev_hit = [], 0, set()
    for line in lines:
        query = json.loads(line)["metadata"]["query"].strip()  # the trajectory's instruction
        if query in dev:
            dropped += 1
            dev_hit.add(query)
        else:
            kept.append(line)
    Path(out).mkdir(parents=True, exist_ok=True)
    text = "\n".join(kept) + "\n"
    Path(out, "data.jsonl").write_text(text, encoding="utf-8")
    stats = {
        "source": src,
        "source_sha256": hashlib.sha256(Path(src, "data.jsonl").read_bytes()).hexdigest(),
        "dev": dev_file,
        "dev_trajectories": len(dev),
        "dev_trajectories_found": len(dev_hit),
        "samples_in": len(lines),
        "samples_dropped": dropped,
        "samples_kept": len(kept),
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
    Path(out, "stats.json").write_text(json.dumps(stats, indent=2) + "\n")
    print(json.dumps(stats, indent=2))


if __name__ == "__main__":
    main(*sys.argv[1:4])
