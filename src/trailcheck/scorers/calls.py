"""Which of a trace's tool calls a scorer looks at: the settings the call-based scorers share."""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

from trailcheck.trace import ToolCall, Trace

ErroredCalls = Literal["count", "skip"]
"""``count``: a call that errored is a call like any other; ``skip``: it is left out."""


def considered_calls(
    trace: Trace, *, ignore_tools: Collection[str], errored_calls: ErroredCalls
) -> list[ToolCall]:
    """The trace's tool calls in order, less ignored tools and (when skipped) errored calls."""
    return [
        call
        for call in trace.tool_calls
        if call.name not in ignore_tools and (errored_calls == "count" or call.succeeded)
    ]
