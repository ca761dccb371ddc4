"""A case's tool faults applied to an environment's tools, for one trial.

Each tool with faults is wrapped so that its ``n``-th call in the trial (counted from 1) meets
the first fault that applies to it: an ``error`` raises :class:`ToolError` (the agent reads it
as the tool's result), a ``result`` is returned without running the tool. Calls no fault
applies to run the tool. The wrapper keeps the tool's name, signature and docstring, so the
declaration a model sees and the recorded span are the tool's own.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Callable, Sequence
from typing import Any

from trailcheck.cases import ToolFault
from trailcheck.environment import ToolError
from trailcheck.errors import UsageError

_NOT_FAULTY: Any = object()


def tool_name(tool: Callable[..., Any]) -> str:
    """The name a tool is called by: its function name (a bound method's too)."""
    name = getattr(tool, "__name__", None)
    if not isinstance(name, str):
        raise UsageError(f"a tool is a function or a method with a name, got {tool!r}")
    return name


def with_faults(
    tools: Sequence[Callable[..., Any]], faults: Sequence[ToolFault]
) -> list[Callable[..., Any]]:
    """``tools`` with ``faults`` applied; a fault naming no tool of the list is a UsageError."""
    by_tool: dict[str, list[ToolFault]] = {}
    for fault in faults:
        by_tool.setdefault(fault.tool, []).append(fault)
    names = {tool_name(tool) for tool in tools}
    unknown = sorted(set(by_tool) - names)
    if unknown:
        raise UsageError(
            f"faults name {', '.join(map(repr, unknown))}, which the environment does not have;"
            f" its tools: {', '.join(sorted(names)) or 'none'}"
        )
    return [
        _faulty(tool, by_tool[tool_name(tool)]) if tool_name(tool) in by_tool else tool
        for tool in tools
    ]


def _faulty(tool: Callable[..., Any], faults: list[ToolFault]) -> Callable[..., Any]:
    calls = itertools.count(1)

    def injected() -> Any:
        number = next(calls)
        for fault in faults:
            if fault.applies_to(number):
                if fault.error is not None:
                    raise ToolError(fault.error)
                return fault.result
        return _NOT_FAULTY

    if inspect.iscoroutinefunction(tool):

        @functools.wraps(tool)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            outcome = injected()
            return await tool(*args, **kwargs) if outcome is _NOT_FAULTY else outcome

        return call_async

    @functools.wraps(tool)
    def call(*args: Any, **kwargs: Any) -> Any:
        outcome = injected()
        return tool(*args, **kwargs) if outcome is _NOT_FAULTY else outcome

    return call
