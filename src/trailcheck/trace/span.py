"""One unit of work inside a trace: an agent step, a model call, a tool call, a guard check."""

from __future__ import annotations

from typing import Any

import msgspec

from trailcheck.trace.kinds import Amount, Count, Int64, NonEmpty, SpanKind, StatusCode, TimeNs
from trailcheck.trace.messages import Message
from trailcheck.trace.record import Record


class Status(Record, frozen=True):
    """The outcome of a span, as OpenTelemetry records it."""

    code: StatusCode = "unset"
    message: str | None = None


class SpanEvent(Record, frozen=True):
    """A timestamped event inside a span (an exception, a retry, a log line)."""

    name: str
    time_ns: Int64
    attributes: dict[str, Any] = {}


class Usage(Record, frozen=True):
    """Tokens, cost and latency. Every figure is optional: sources record different subsets."""

    input_tokens: Count | None = None
    output_tokens: Count | None = None
    cost_usd: Amount | None = None
    latency_ms: Amount | None = None


class ToolInvocation(Record, frozen=True):
    """What a tool span records: the call as requested and its outcome, as the source gave it.

    ``result`` is kept exactly as recorded (often a JSON string); ``ToolCall`` parses it.
    ``sequence`` is an explicit order from the source, used to break ties of start time.
    """

    name: NonEmpty
    call_id: str | None = None
    arguments: dict[str, Any] = {}
    result: Any = None
    error: str | None = None
    sequence: Int64 | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a tool invocation names its tool")


class ModelInvocation(Record, frozen=True):
    """What an llm span records: the model, the conversation it saw and what it answered."""

    model: str | None = None
    provider: str | None = None
    input_messages: list[Message] | None = None
    output_messages: list[Message] | None = None
    usage: Usage | None = None


_UNSET = Status()


class Span(Record, frozen=True, kw_only=True):
    """A span. ``attributes`` keeps the source's attributes verbatim; ``tool`` and ``llm`` hold
    what trailcheck understood of them, so grading never depends on one vendor's naming."""

    trace_id: NonEmpty
    span_id: NonEmpty
    parent_id: str | None = None
    name: str
    kind: SpanKind = "other"
    start_ns: TimeNs
    end_ns: TimeNs | None = None
    status: Status = _UNSET
    attributes: dict[str, Any] = {}
    events: list[SpanEvent] = []
    tool: ToolInvocation | None = None
    llm: ModelInvocation | None = None

    def __post_init__(self) -> None:
        """A span has ids; it ends no earlier than it starts; a tool span, and only a tool span, has
        ``tool``; only an llm span has ``llm``. ``ValueError`` naming the span otherwise."""
        if not self.trace_id or not self.span_id:
            raise ValueError(f"span {self.span_id!r} of trace {self.trace_id!r}: an id is empty")
        if self.end_ns is not None and self.end_ns < self.start_ns:
            raise ValueError(
                f"span {self.span_id!r}: end_ns {self.end_ns} < start_ns {self.start_ns}"
            )
        if (self.kind == "tool") != (self.tool is not None):
            raise ValueError(
                f"span {self.span_id!r}: a tool span needs 'tool' (its name, arguments, result)"
                " and only a tool span may have it"
            )
        if self.llm is not None and self.kind != "llm":
            raise ValueError(f"span {self.span_id!r}: only an llm span may have 'llm'")
        if self.status is not _UNSET and self.status == _UNSET:
            # The default, made anew: encoded, a field is left out only when it is the
            # default object itself.
            msgspec.structs.force_setattr(self, "status", _UNSET)

    @property
    def duration_ns(self) -> int | None:
        """Nanoseconds from start to end; ``None`` while the span has not ended."""
        return None if self.end_ns is None else self.end_ns - self.start_ns

    @property
    def failed(self) -> bool:
        """True when the span's status is error, or its tool recorded an error."""
        return self.status.code == "error" or (
            self.tool is not None and self.tool.error is not None
        )
