"""The score of one span as a component call: which component, how it went, and the values its
kind is scored on.

``outcome`` is ``ok`` (the span did its job), ``error`` (it failed: an error status or a tool
error) or ``invalid`` (it ended without an error, but a check on it failed: arguments or a result
that do not fit their declared schema, a model's output that does not parse). A component's
success rate counts ``ok``. ``error_kind`` names what went wrong: the error's type (``error.type``,
the ``exception`` event's ``exception.type``, the ``Type`` of a tool error written ``Type:
message``, else ``error``), or the check that failed (:data:`CHECK_KINDS`).
"""

from __future__ import annotations

import re
from typing import Any, Final, Literal

import msgspec

from trailcheck.trace import Span
from trailcheck.trace.record import Record
from trailcheck.trace.semconv import ERROR_TYPE, EXCEPTION_EVENT, EXCEPTION_TYPE

__all__ = [
    "CHECK_KINDS",
    "COMPONENT_KINDS",
    "ComponentKind",
    "Outcome",
    "SpanScore",
    "error_kind_of",
    "latency_ms_of",
]

ComponentKind = Literal["tool", "agent", "llm", "retriever"]
Outcome = Literal["ok", "error", "invalid"]
COMPONENT_KINDS: Final[tuple[ComponentKind, ...]] = ("tool", "agent", "llm", "retriever")
CHECK_KINDS: Final = (
    "invalid_arguments",
    "invalid_result",
    "invalid_output",
    "unparsed_output",
)

# "TimeoutError: upstream took 30s" → "TimeoutError"; a sentence is not a type.
_TYPED_ERROR: Final = re.compile(r"^([A-Za-z_][\w.]{0,99}):\s")


class SpanScore(Record, frozen=True, kw_only=True):
    """One span scored as a call of ``component`` (a tool's, sub-agent's, retriever's or
    model's name). ``values`` are the numbers its kind is scored on (docs/components.md);
    ``reason`` says how each was reached."""

    trace_id: str
    span_id: str
    kind: ComponentKind
    component: str
    start_ns: int
    latency_ms: float | None = None
    outcome: Outcome = "ok"
    error_kind: str | None = None
    values: dict[str, float] = msgspec.field(default_factory=dict)
    reason: str = ""

    @property
    def succeeded(self) -> bool:
        return self.outcome == "ok"


def latency_ms_of(span: Span) -> float | None:
    """The span's duration in milliseconds; a model call's recorded latency when the span has
    not ended; ``None`` when neither is known."""
    duration = span.duration_ns
    if duration is not None:
        return duration / 1e6
    usage = span.llm.usage if span.llm is not None else None
    return None if usage is None else usage.latency_ms


def error_kind_of(span: Span) -> str:
    """The type of a failed span's error (see the module)."""
    declared = span.attributes.get(ERROR_TYPE)
    if isinstance(declared, str) and declared:
        return declared
    for event in span.events:
        if event.name == EXCEPTION_EVENT:
            raised: Any = event.attributes.get(EXCEPTION_TYPE)
            if isinstance(raised, str) and raised:
                return raised
    for text in (span.tool.error if span.tool is not None else None, span.status.message):
        typed = _TYPED_ERROR.match(text or "")
        if typed is not None:
            return typed[1]
    return "error"
