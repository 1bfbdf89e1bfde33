"""Execute a list of calls whose arguments may reference each other's outputs (a DAG).

Seal-Tools answers several calls at once; a value `Ref(call=i, output=k)` means "the k-th
output of call i". Calls run in dependency order (ties broken by position), each `Ref` is
replaced by the producing call's output before validation, self/mutual references are
CYCLE errors, and references to nothing (or to a call that failed) are DANGLING_REFERENCE.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any, Protocol

from toollearn.core.types import ErrorKind, Ref, ToolCall
from toollearn.envs.result import CallResult, failed


class Executor(Protocol):
    def execute(self, call: ToolCall) -> CallResult: ...


def dependencies(calls: Sequence[ToolCall]) -> tuple[list[set[int]], dict[int, str]]:
    """Per call, the indices of calls it needs; plus {call: detail} for dangling refs."""
    deps: list[set[int]] = [set() for _ in calls]
    dangling: dict[int, str] = {}
    for i, call in enumerate(calls):
        for ref in call.refs():
            if ref.call is None or not 0 <= ref.call < len(calls):
                dangling.setdefault(i, f"{ref.id} is not a response of any call")
            else:
                deps[i].add(ref.call)
    return deps, dangling


def _cycle_members(deps: list[set[int]], remaining: set[int]) -> set[int]:
    """The remaining nodes that lie on a cycle (can reach themselves)."""
    members: set[int] = set()
    for start in remaining:
        stack, seen = list(deps[start] & remaining), set()
        while stack:
            node = stack.pop()
            if node == start:
                members.add(start)
                break
            if node not in seen:
                seen.add(node)
                stack.extend(deps[node] & remaining)
    return members


def execution_order(calls: Sequence[ToolCall]) -> tuple[list[int], set[int]]:
    """(topological order of the calls that can be ordered, calls on a cycle)."""
    deps, _ = dependencies(calls)
    users: list[list[int]] = [[] for _ in calls]
    indegree = [len(d) for d in deps]
    for i, d in enumerate(deps):
        for j in d:
            users[j].append(i)
    ready = [i for i, n in enumerate(indegree) if n == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for u in users[i]:
            indegree[u] -= 1
            if indegree[u] == 0:
                heapq.heappush(ready, u)
    remaining = set(range(len(calls))) - set(order)
    return order, _cycle_members(deps, remaining)


def _substitute(value: Any, results: dict[int, CallResult]) -> Any:
    if isinstance(value, Ref):
        res = results[value.call]  # type: ignore[index]
        k = value.output or 0
        if not res.ok:
            raise LookupError(f"{value.id}: call {value.call} ({res.call.name}) failed")
        if k >= len(res.outputs):
            raise LookupError(f"{value.id}: {res.call.name} has only {len(res.outputs)} output(s)")
        return res.outputs[k]
    if isinstance(value, list | tuple):
        return [_substitute(v, results) for v in value]
    if isinstance(value, dict):
        return {key: _substitute(v, results) for key, v in value.items()}
    return value


def run_plan(env: Executor, calls: Sequence[ToolCall]) -> tuple[list[CallResult], list[int]]:
    """Execute `calls` in DAG order. Returns (results in the calls' own order, the order run).

    Every call gets a result; a call whose inputs are missing is not run.
    """
    deps, dangling = dependencies(calls)
    order, cyclic = execution_order(calls)
    results: dict[int, CallResult] = {}
    for i in sorted(cyclic):
        others = sorted(deps[i] & cyclic)
        detail = f"call {i} ({calls[i].name}) is on a reference cycle with calls {others}"
        results[i] = failed(calls[i], ErrorKind.CYCLE, detail)
    ran: list[int] = []
    for i in order:
        results[i] = _run_one(env, calls, i, results, dangling.get(i))
        ran.append(i)
    for i in range(len(calls)):  # downstream of a cycle: never runnable
        if i not in results:
            detail = f"call {i} ({calls[i].name}) depends on a call on a reference cycle"
            results[i] = failed(calls[i], ErrorKind.DANGLING_REFERENCE, detail)
    return [results[i] for i in range(len(calls))], ran


def _run_one(
    env: Executor,
    calls: Sequence[ToolCall],
    i: int,
    results: dict[int, CallResult],
    dangling: str | None,
) -> CallResult:
    call = calls[i]
    if dangling:
        return failed(call, ErrorKind.DANGLING_REFERENCE, dangling)
    try:
        args = {k: _substitute(v, results) for k, v in call.arguments.items()}
    except LookupError as exc:
        return failed(call, ErrorKind.DANGLING_REFERENCE, str(exc))
    concrete = ToolCall(call.name, args, call.id, call.responses)
    res = env.execute(concrete)
    # keep the original (ref-holding) call in the record; arguments show what ran
    return CallResult(call, res.output, res.outputs, res.arguments or args, res.error,
                      res.detail, res.seconds)  # fmt: skip
