"""A trace: one run of an agent, with what it was asked, what it did and what it changed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import cached_property
from typing import Any, Self

import orjson
from pydantic import BaseModel, ConfigDict, Field, model_validator

from trailcheck.trace.messages import Message
from trailcheck.trace.span import Span, Usage
from trailcheck.trace.tool_calls import ToolCall, derive_tool_calls
from trailcheck.trace.tree import SpanTree

# cached_property values live in the instance __dict__, which model_copy copies.
_DERIVED_VIEWS = ("tree", "tool_calls")


def _check_no_parent_cycle(parent_of: dict[str, str | None]) -> None:
    """Every span reaches a root by following parents (all parents present). Linear: each span
    is walked once; a span marked False is on the chain being walked, True reaches a root."""
    reaches_root: dict[str, bool] = {}
    for span_id in parent_of:
        chain: list[str] = []
        current: str | None = span_id
        while current is not None and current not in reaches_root:
            reaches_root[current] = False
            chain.append(current)
            current = parent_of[current]
        if current is not None and not reaches_root[current]:
            cycle = [*chain[chain.index(current) :], current]
            raise ValueError(
                f"span {current!r} is its own ancestor: parent cycle {' -> '.join(cycle)}"
            )
        for member in chain:
            reaches_root[member] = True


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
        parent_of = {span.span_id: span.parent_id for span in self.spans}
        if len(parent_of) != len(self.spans):
            counts = Counter(span.span_id for span in self.spans)
            duplicates = sorted(span_id for span_id, n in counts.items() if n > 1)
            raise ValueError(f"duplicate span ids: {', '.join(duplicates)}")
        for span in self.spans:
            if span.trace_id != self.trace_id:
                raise ValueError(
                    f"span {span.span_id!r} belongs to trace {span.trace_id!r},"
                    f" not {self.trace_id!r}"
                )
            if span.parent_id is not None and span.parent_id not in parent_of:
                raise ValueError(
                    f"span {span.span_id!r} is an orphan: its parent {span.parent_id!r} is absent"
                )
        _check_no_parent_cycle(parent_of)
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
        if self.input is None:
            return ""
        if isinstance(self.input, str):
            return self.input
        return "\n".join(m.text for m in self.input if m.role == "user")

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
        if not self.spans or any(span.end_ns is None for span in self.spans):
            return None
        return max(s.end_ns or 0 for s in self.spans) - min(s.start_ns for s in self.spans)
