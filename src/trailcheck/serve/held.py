"""What the store holds of a pending or quarantined trace, decoded for a person to read.

The store keeps the endpoint's payloads as opaque bytes (:mod:`trailcheck.store.quarantine`);
this decodes them with the endpoint's codecs (:mod:`trailcheck.serve.span_codec`,
:mod:`trailcheck.serve.log_codec`), so ``trailcheck pending show`` can show the spans and GenAI
log records of a trace the sweep quarantined, and the conflicting versions of its spans kept
beside the first (:mod:`trailcheck.store.span_conflicts`). A payload that does not decode (a
damaged row, a codec version this release cannot read) is listed with the reason, not
skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trailcheck.errors import RecordError
from trailcheck.importing.records import LogEvent, RawSpan
from trailcheck.serve.log_codec import decode_log_event
from trailcheck.serve.span_codec import decode_span
from trailcheck.store import PendingTrace, Store

__all__ = ["ConflictingSpan", "HeldTrace", "held_trace"]


@dataclass(frozen=True)
class ConflictingSpan:
    """A conflicting version of a span, kept: the span as received, what held the first
    version (``pending`` or ``stored``), and when it was received."""

    span: RawSpan
    against: str
    received_ns: int


@dataclass(frozen=True)
class HeldTrace:
    """A held trace (``trace``: its counts, arrival times, and the reason when quarantined),
    its spans and GenAI log records in arrival order, the conflicting versions of its spans
    kept, and the payloads that do not decode."""

    trace: PendingTrace
    spans: list[RawSpan] = field(default_factory=list)
    logs: list[LogEvent] = field(default_factory=list)
    conflicts: list[ConflictingSpan] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)


def held_trace(store: Store, trace_id: str) -> HeldTrace:
    """The held trace ``trace_id``, decoded; UsageError when the store holds none of that id."""
    held = HeldTrace(store.pending_trace(trace_id))
    for number, span in enumerate(store.pending_payloads(trace_id), start=1):
        try:
            held.spans.append(decode_span(span.span, span.origin))
        except RecordError as error:
            held.unreadable.append(f"span payload {number}: {error}")
    for number, version in enumerate(store.span_conflicts(trace_id), start=1):
        try:
            decoded = decode_span(version.payload.span, version.payload.origin)
        except RecordError as error:
            held.unreadable.append(f"conflicting version {number}: {error}")
        else:
            held.conflicts.append(ConflictingSpan(decoded, version.against, version.received_ns))
    for number, payload in enumerate(store.pending_log_payloads(trace_id), start=1):
        try:
            held.logs.append(decode_log_event(payload))
        except RecordError as error:
            held.unreadable.append(f"log record payload {number}: {error}")
    return held
