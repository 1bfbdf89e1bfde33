"""Add each record's candidate names to a committed run made with a fine-tuned retriever
(the same model, retrieved again), checking them against the recorded retrieval_missed."""

import json
import sys
from pathlib import Path

from toollearn.evaluation.runners import seal_tools

run = Path(sys.argv[1])
config = json.loads((run / "config.json").read_text())
records = [json.loads(x) for x in (run / "predictions.jsonl").read_text().splitlines()]
examples = [
    e
    for e in seal_tools.load_prompts("all", "../shared/data")
    if e.id in {r["id"] for r in records}
]
examples = seal_tools.retrieve_candidates(examples, config["candidates"], "../shared/data")
by_id = {e.id: e for e in examples}
for r in records:
    ex = by_id[r["id"]]
    assert ex.metadata["retrieval_missed"] == r["retrieval_missed"], r["id"]
    r["candidates"] = [t.name for t in ex.tools]
text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
(run / "predictions.jsonl").write_text(text)
print(len(records), "records")
