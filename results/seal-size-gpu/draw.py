"""The Seal-Tools samples `toollearn train --dataset runs/data/seal-v2 --samples N` draws
(seed 0: `training.data.draw_dataset`), written as one dataset per N so the GPU machine gets
only those rows (the whole 173 MB pool does not fit a call). Trained there with every row
taken (`samples` unset), the run sees exactly this set; its 32 held-out rows are the first
32 of the seed's shuffle of it.
    python results/seal-size-gpu/draw.py runs/data/seal-v2 OUT N [N ...]"""

import json
import sys
from pathlib import Path

from toollearn.datagen.dataset import write_dataset
from toollearn.training.data import draw_dataset

pool, out, sizes = Path(sys.argv[1]), Path(sys.argv[2]), [int(n) for n in sys.argv[3:]]
for n in sizes:
    picked, record = draw_dataset(str(pool), 0, 1, n, 0)
    folder = out / f"seal-draw-{n}"
    leakage = json.loads((pool / "leakage.json").read_text())  # the pool's covers its rows
    write_dataset(
        folder, picked, config={"drawn_from": record, "seed": 0, "samples": n}, leakage=leakage
    )
    print(folder, json.dumps(record))
