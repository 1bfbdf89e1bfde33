"""Human-readable rendering of a Trace: decisions, calls, observations, errors, answer."""

from __future__ import annotations

from toollearn.core.types import Step, Trace, unlink_refs


def _clip(text: str, n: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 3] + "..."


def _call_text(step: Step) -> str:
    parts = []
    for c in step.calls:
        args = ", ".join(f"{k}={unlink_refs(v)!r}" for k, v in c.arguments.items())
        parts.append(f"{c.name}({args})")
    return "; ".join(parts)


def format_step(i: int, step: Step, width: int = 160) -> str:
    """One line per step: index, role/kind, and what matters for that kind."""
    head = f"[{i}] {step.role}/{step.kind}"
    if step.kind == "decision":
        body = ", ".join(f"{k}={v!r}" for k, v in step.data.items()) or step.content
        if step.role == "gate" and step.data:  # the call gate's verdict first
            body = f"{step.content}: {body}"
    elif step.kind == "observation":
        who = step.calls[0].name if step.calls else "?"
        body = f"{who} -> {step.content}"
    elif step.calls:
        body = f"{_call_text(step)}   <- {step.content!r}"
    else:
        body = repr(step.content)
    if step.error is not None:
        body += f"   !! {step.error.value}: {step.detail}"
    if (step.data or {}).get("retried"):  # the repair loop asked this answer again
        head += f" (asked again: {step.data['retried']})"
    return _clip(f"{head}: {body}", width)


def format_trace(trace: Trace, width: int = 160) -> str:
    """The whole Trace as text (no prompts: use --json for the exact record)."""
    lines = [f"query: {trace.query}"]
    lines += [format_step(i, s, width) for i, s in enumerate(trace.steps)]
    meta = trace.meta
    lines.append(f"outcome: {meta.get('outcome', '?')}   errors: {meta.get('n_errors', 0)}"
                 f"   seconds: {meta.get('seconds', '?')}")  # fmt: skip
    lines.append(f"answer: {trace.answer}")
    return "\n".join(lines)
