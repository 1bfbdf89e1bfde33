"""TRL's fused LM head, made to score only the labelled positions on a CPU as well.

TRL 1.16's SFTTrainer projects hidden states through the LM head in tiles and returns per-token
log-probabilities. On Triton devices it scores only the positions whose label is not -100; on
any other device it scores every position and masks the rest (so that a compiler such as
Neuron's sees fixed tile shapes). An eager CPU has no such reason, and in toollearn's data most
positions are prompt (tool docs, tool results): a 135M model's 49,152-word head over all of them
is a large share of a CPU step. Inside `compact_cpu_scoring()` the CPU takes the compact path:
the same loss and gradients (bit for bit in `tests/training/test_compact_head.py`), measured in
`benchmarks/compact_head.py`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_SWITCH = "_use_triton"  # trl.trainer.utils' test for the compact path (device -> bool)


@contextmanager
def compact_cpu_scoring() -> Iterator[Callable[[Any], bool]]:
    """Within the block, TRL's fused LM head scores only labelled positions on a CPU too.
    Yields the test in force: whether a device (a torch.device) scores compactly (TRL's own,
    with a warning, if TRL no longer has the switch)."""
    import trl.trainer.utils as trl_utils

    original: Callable[[Any], bool] | None = getattr(trl_utils, _SWITCH, None)
    if original is None:
        warnings.warn(f"trl.trainer.utils has no {_SWITCH}: every position is scored on a CPU",
                      stacklevel=3)  # fmt: skip
        yield lambda device: False
        return

    def compact(device: Any) -> bool:
        return device.type == "cpu" or original(device)

    setattr(trl_utils, _SWITCH, compact)
    try:
        yield compact
    finally:
        setattr(trl_utils, _SWITCH, original)
