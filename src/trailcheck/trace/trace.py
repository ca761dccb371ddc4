"""A trace: one run of an agent, with what it was asked, what it did and what it changed."""

from __future__ import annotations

from typing import Any

import orjson

from trailcheck.trace.derived import computed_once
from trailcheck.trace.integrity import check_trace
from trailcheck.trace.kinds import NonEmpty
from trailcheck.trace.messages import Message
from trailcheck.trace.record import Record
from trailcheck.trace.span import Span, Usage
from trailcheck.trace.tool_calls import ToolCall, derive_tool_calls
from trailcheck.trace.tree import SpanTree


# dict=True gives each trace an instance ``__dict__`` for its derived views (``tree``,
# ``tool_calls``), computed on first read and kept; a copy computes its own (model_copy makes a
# new struct). gc=True: that ``__dict__`` may hold anything.
class Trace(Record, frozen=True, dict=True, gc=True):
    """One agent run. Invariants (checked whenever one is made): span ids are unique, every span
    belongs to this trace, and every parent id names a span of this trace."""

    trace_id: NonEmpty
    input: str | list[Message] | None = None
    final_output: Any = None
    spans: list[Span] = []
    state_before: dict[str, Any] | None = None
    state_after: dict[str, Any] | None = None
    metadata: dict[str, Any] = {}
    usage: Usage | None = None

    def __post_init__(self) -> None:
        if not self.trace_id:
            raise ValueError("a trace has an id")
        check_trace(self.trace_id, self.spans)

    @computed_once
    def tree(self) -> SpanTree:
        """Span-tree queries (children, ancestors, find, root)."""
        return SpanTree(self.spans)

    @computed_once
    def tool_calls(self) -> list[ToolCall]:
        """Every tool call, from tool spans and from the model's messages, one per call, in order
        (:mod:`trailcheck.trace.tool_calls`)."""
        return derive_tool_calls(self.spans)

    @property
    def input_text(self) -> str:
        """The user's input as text: the string input, or the user messages joined."""
        if self.input is None or isinstance(self.input, str):
            return self.input or ""
        return "\n".join(message.text for message in self.input if message.role == "user")

    @property
    def final_text(self) -> str:
        """The final output as text (JSON for structured output, empty when absent)."""
        if self.final_output is None:
            return ""
        if isinstance(self.final_output, str):
            return self.final_output
        return orjson.dumps(self.final_output).decode()

    @property
    def duration_ns(self) -> int | None:
        """From the earliest span start to the latest end; ``None`` if a span has not ended."""
        spans = self.spans
        if not spans or any(span.end_ns is None for span in spans):
            return None
        return max(span.end_ns or 0 for span in spans) - min(span.start_ns for span in spans)
