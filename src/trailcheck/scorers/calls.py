"""Which of a trace's tool calls a scorer looks at: the settings the call-based scorers share."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Literal

from trailcheck.trace import ToolCall, Trace

ErroredCalls = Literal["count", "skip"]
"""``count``: a call that errored is a call like any other; ``skip``: it is left out."""


def considered_calls(
    trace: Trace, *, ignore_tools: Collection[str], errored_calls: ErroredCalls
) -> Sequence[ToolCall]:
    """The trace's tool calls in order, less ignored tools and (when skipped) errored calls.
    With nothing left out, the trace's own sequence: read it, do not change it."""
    if not ignore_tools and errored_calls == "count":
        return trace.tool_calls
    return [
        call
        for call in trace.tool_calls
        if call.name not in ignore_tools and (errored_calls == "count" or call.succeeded)
    ]
