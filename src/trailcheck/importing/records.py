"""What every importer yields: a Trace, or a Rejection that says exactly what was wrong and where.

Span-based formats (OTLP JSON, OTLP protobuf, one span per line, the in-process OpenTelemetry
collector) first decode their input into :class:`RawSpan` values, which ``assemble_traces`` groups
into traces and maps through the semantic conventions. Nothing is repaired on the way: a record that
cannot be represented faithfully is rejected, with the file, line (or span id) and field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from trailcheck.errors import RecordError
from trailcheck.trace import SpanEvent, StatusCode, Trace


@dataclass(frozen=True, slots=True)
class Rejection:
    """A record that was not imported, and why. A ``hint`` says what a bad value looks like
    instead; a reader may keep it on the first of a file's rejections it would repeat in."""

    source: str
    message: str
    line: int | None = None
    span_id: str | None = None
    field: str | None = None
    trace_id: str | None = None
    # For span-based inputs: whether the rejected part may have held spans. A metrics document in
    # a collector file holds none, so no trace lost a span to it and none is withheld for it.
    spans_lost: bool = True
    hint: str | None = None

    @classmethod
    def from_error(cls, error: RecordError, *, trace_id: str | None = None) -> Rejection:
        return cls(
            source=error.source or "<input>",
            message=error.message,
            line=error.line,
            span_id=error.span_id,
            field=error.field,
            trace_id=trace_id,
            hint=error.hint,
        )

    def as_error(self) -> RecordError:
        return RecordError(
            self.message,
            source=self.source,
            line=self.line,
            span_id=self.span_id,
            field=self.field,
            hint=self.hint,
        )

    def __str__(self) -> str:
        return str(self.as_error())


ImportItem = Trace | Rejection


@dataclass(frozen=True, slots=True)
class LogEvent:
    """A GenAI event log record (``gen_ai.*``) read as an event of the span it names; it is
    joined to that span before assembly (:mod:`trailcheck.importing.log_join`)."""

    trace_id: str
    span_id: str
    event: SpanEvent
    source: str
    line: int | None = None


@dataclass(frozen=True, slots=True)
class IgnoredLogs:
    """Log records of one export that were read and set aside: ``other`` records are not GenAI
    events; ``unlinked`` ones are, but name no span to join."""

    source: str
    other: int = 0
    unlinked: int = 0


OtelSpanKind = Literal["internal", "server", "client", "producer", "consumer"]


@dataclass(frozen=True, slots=True)
class SpanLink:
    """An OTLP span link: a span of this or another trace that this span relates to."""

    trace_id: str
    span_id: str
    trace_state: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    flags: int = 0
    dropped_attributes_count: int = 0


@dataclass(slots=True)
class RawSpan:
    """A span as a span-based source recorded it, before convention mapping.

    ``attributes`` hold plain Python values (OTLP AnyValues already decoded: arrays are lists,
    kvlists are dicts, bytes are base64 text). ``line`` is where the span was read and ``source``
    the file (or stream) it was read from, for errors; ``source`` is ``None`` where the caller's
    source applies, so errors name that.

    The fields after ``line`` are what OTLP records beside a span's attributes and trailcheck's
    :class:`~trailcheck.trace.Span` has no field for: the OpenTelemetry span kind, W3C trace
    state and flags, links, the counts of what the SDK dropped, and the instrumentation scope's
    and resource's details. :func:`~trailcheck.importing.spans.map_span` keeps them as
    reserved ``otel.*`` attributes (:mod:`trailcheck.importing.transport.otel_attributes`). Their
    defaults mean "not recorded", so a source without them leaves them out.
    """

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int
    end_ns: int | None
    status_code: StatusCode = "unset"
    status_message: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    resource: dict[str, Any] = field(default_factory=dict)
    scope_name: str | None = None
    line: int | None = None
    otel_kind: OtelSpanKind | None = None
    trace_state: str | None = None
    flags: int = 0
    links: list[SpanLink] = field(default_factory=list)
    dropped_attributes_count: int = 0
    dropped_events_count: int = 0
    dropped_links_count: int = 0
    scope_version: str | None = None
    scope_attributes: dict[str, Any] = field(default_factory=dict)
    scope_dropped_attributes_count: int = 0
    scope_schema_url: str | None = None
    resource_dropped_attributes_count: int = 0
    resource_schema_url: str | None = None
    source: str | None = None


def validation_record_error(error: ValidationError) -> RecordError:
    """A model's ValidationError as a RecordError: its first problem, with that field."""
    problems = error.errors(include_url=False)
    first = problems[0]
    cause = first.get("ctx", {}).get("error")
    message = str(cause) if isinstance(cause, ValueError) else first["msg"]
    if len(problems) > 1:
        message += f" (and {len(problems) - 1} more problem(s))"
    location = ".".join(str(part) for part in first["loc"])
    return RecordError(message, field=location or None)


# What a span-based reader yields, before log events are joined to their spans.
SpanItem = RawSpan | LogEvent | IgnoredLogs | Rejection
