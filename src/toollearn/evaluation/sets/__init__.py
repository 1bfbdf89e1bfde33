"""Evaluation sets written by hand for one tool file each (`eval calls --set NAME`).

Each folder holds `tools.json` (the tool file, as `examples/` ships it), `dev.jsonl` and
`test.jsonl`: requests people would write, with their gold calls, never generated and never
trained on (`README.md` in each). A line is the `--examples` format (`evaluation.examples`).
"""
