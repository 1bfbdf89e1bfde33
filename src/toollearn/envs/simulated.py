"""Schema-simulated tools: deterministic fake responses that follow declared response fields.

Seal-Tools and ToolDEER tools are documentation only; to run their calls for real (nested
DAGs, multi-step episodes) each call gets one value per declared response field, derived
from a hash of (seed, tool, arguments, field) so the same call always returns the same
output and different arguments return different outputs.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from toollearn.core.types import Tool

# Seal-Tools spells types str/int/float/bool; JSON Schema string/integer/number/boolean.
_ALIASES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean",
            "list": "array", "dict": "object"}  # fmt: skip


def _digest(*parts: Any) -> bytes:
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8")).digest()


def fake_value(json_type: str | None, field: str, digest: bytes) -> Any:
    """A plausible value of `json_type` for response `field`, chosen by `digest`."""
    n = int.from_bytes(digest[:8], "big")
    t = _ALIASES.get(json_type or "", json_type or "string")
    if t == "integer":
        return n % 1000
    if t == "number":
        return round((n % 100000) / 100, 2)
    if t == "boolean":
        return bool(n & 1)
    if t == "array":
        return [f"{field}_{digest[8:11].hex()}", f"{field}_{digest[11:14].hex()}"]
    if t == "object":
        return {"id": digest[8:12].hex()}
    return f"{field}_{digest[8:11].hex()}"


def simulate(tool: Tool, arguments: dict[str, Any], seed: int = 0) -> dict[str, Any]:
    """The simulated output of `tool(**arguments)`: {response field: value} in declared order.

    A tool without declared responses returns {"result": <string>}.
    """
    fields = tool.responses or {"result": {"type": "string"}}
    out: dict[str, Any] = {}
    for name, spec in fields.items():
        json_type = spec.get("type") if isinstance(spec, dict) else None
        out[name] = fake_value(json_type, name, _digest(seed, tool.name, arguments, name))
    return out
