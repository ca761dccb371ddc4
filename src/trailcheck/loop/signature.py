"""What makes two failing traces the same failure, before their inputs are compared: the
tool-sequence signature, which is the order of calls with each call's argument shape.

A call's shape is its tool and its argument names with their JSON value types, never the
values: ``issue_refund(amount:number,order_id:text)``. Names are sorted; nested objects show
their own shape (``book(slot:{date:text,time:text})``), a list the types of its items
(``tag(ids:[text])``). Consecutive calls of the same shape collapse into one, marked ``+``
(``search(q:text)+``): a run that looped six times and one that looped nine are the same
failure. Calls are joined with `` > ``; a trace without calls has the signature ``(no calls)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from trailcheck.trace import Trace

NO_CALLS = "(no calls)"


def value_shape(value: Any) -> str:
    """The JSON type of ``value``, with the shape of what it contains."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, dict):
        inner = ",".join(f"{key}:{value_shape(value[key])}" for key in sorted(value))
        return f"{{{inner}}}"
    if isinstance(value, list | tuple):
        items = sorted({value_shape(item) for item in value})
        return f"[{'|'.join(items)}]"
    return type(value).__name__


def call_shape(name: str, arguments: Mapping[str, Any]) -> str:
    """``tool(name:type,...)``, names sorted."""
    inner = ",".join(f"{key}:{value_shape(arguments[key])}" for key in sorted(arguments))
    return f"{name}({inner})"


def calls_signature(calls: Iterable[tuple[str, Mapping[str, Any]]]) -> str:
    """The signature of ``(tool, arguments)`` calls in order (see the module): a trace's, or
    the calls a case expects."""
    shapes = [call_shape(name, arguments) for name, arguments in calls]
    if not shapes:
        return NO_CALLS
    parts: list[str] = []
    previous: str | None = None
    for shape in shapes:
        if shape == previous:
            if not parts[-1].endswith("+"):
                parts[-1] += "+"
            continue
        parts.append(shape)
        previous = shape
    return " > ".join(parts)


def tool_signature(trace: Trace) -> str:
    """The trace's calls as shapes, in order, runs of one shape collapsed (see the module)."""
    return calls_signature((call.name, call.arguments) for call in trace.tool_calls)
