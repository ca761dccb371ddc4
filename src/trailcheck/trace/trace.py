"""A trace: one run of an agent, with what it was asked, what it did and what it changed."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trailcheck.trace.derived import final_text, input_text, trace_duration_ns
from trailcheck.trace.integrity import check_trace
from trailcheck.trace.messages import Message
from trailcheck.trace.span import Span, Usage
from trailcheck.trace.tool_calls import ToolCall, derive_tool_calls
from trailcheck.trace.tree import SpanTree

# cached_property values live in the instance __dict__, which model_copy copies.
_DERIVED_VIEWS = ("tree", "tool_calls")


class Trace(BaseModel):
    """One agent run. Invariants (checked on construction): span ids are unique, every span
    belongs to this trace, and every parent id names a span of this trace."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trace_id: str = Field(min_length=1)
    input: str | list[Message] | None = None
    final_output: Any = None
    spans: list[Span] = Field(default_factory=list)
    state_before: dict[str, Any] | None = None
    state_after: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    usage: Usage | None = None

    @model_validator(mode="after")
    def _check_integrity(self) -> Self:
        check_trace(self.trace_id, self.spans)
        return self

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy; the derived views (``tree``, ``tool_calls``) are computed afresh for it, since
        ``update`` may replace the spans they were derived from."""
        copied = super().model_copy(update=update, deep=deep)
        for derived in _DERIVED_VIEWS:
            copied.__dict__.pop(derived, None)
        return copied

    @cached_property
    def tree(self) -> SpanTree:
        """Span-tree queries (children, ancestors, find, root)."""
        return SpanTree(self.spans)

    @cached_property
    def tool_calls(self) -> list[ToolCall]:
        """Every tool call, from tool spans and from the model's messages, one per call, in order
        (:mod:`trailcheck.trace.tool_calls`)."""
        return derive_tool_calls(self.spans)

    @property
    def input_text(self) -> str:
        """The user's input as text: the string input, or the user messages joined."""
        return input_text(self.input)

    @property
    def final_text(self) -> str:
        """The final output as text (JSON for structured output, empty when absent)."""
        return final_text(self.final_output)

    @property
    def duration_ns(self) -> int | None:
        """From the earliest span start to the latest end; ``None`` if a span has not ended."""
        return trace_duration_ns(self.spans)
