"""A batch of received spans sorted against what the store holds: new, a retry, late, or a
conflicting version.

A span whose trace and span id the store does not hold is **new**: it is held pending. One it
holds already, pending or in a stored trace, is compared with that first version:

- the same content (where it was read aside: a resend over gRPC of what came over HTTP is the
  same span) is a **retry** of what was accepted before, and accepted again, adding nothing;
- other content is a **conflict**: the first version stays (it was acknowledged), and this one
  is refused in the response and kept beside it (:class:`~trailcheck.store.SpanConflict`), never
  dropped unseen.

A span of a stored trace that the trace does not hold is **late**: a stored trace is whole. A
stored span is compared with what the conventions make of the received one
(:func:`~trailcheck.importing.spans.map_span`): its record (parent, name, times, status,
attributes) and its events, which the stored span may follow with the GenAI log records joined
to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

from trailcheck.errors import RecordError
from trailcheck.importing.records import RawSpan
from trailcheck.importing.spans import map_span
from trailcheck.serve.span_codec import content_digest, decode_span, same_span
from trailcheck.store import PendingPayload, PendingSpan, SpanConflict
from trailcheck.trace import Span, Trace

__all__ = ["Arrivals", "sort_arrivals"]


@dataclass
class Arrivals:
    """What became of a batch: the spans to hold, how many were retries, the late ones, and
    the conflicting versions to keep."""

    fresh: list[PendingSpan] = field(default_factory=list)
    retried: int = 0
    late: list[PendingSpan] = field(default_factory=list)
    conflicts: list[SpanConflict] = field(default_factory=list)


def sort_arrivals(
    batch: Sequence[PendingSpan],
    stored: Mapping[str, Trace],
    held: Mapping[tuple[str, str], PendingPayload],
    source: str,
) -> Arrivals:
    """Sort ``batch`` against the ``stored`` traces among its trace ids and the ``held``
    spans among its keys; ``source`` is what errors name a span's origin when it has none."""
    arrivals = Arrivals()
    stored_spans: dict[str, dict[str, Span]] = {}
    for span in batch:
        trace = stored.get(span.trace_id)
        if trace is not None:
            spans = stored_spans.get(span.trace_id)
            if spans is None:
                spans = stored_spans[span.trace_id] = {s.span_id: s for s in trace.spans}
            first = spans.get(span.span_id)
            if first is None:
                arrivals.late.append(span)
            else:
                _compare(arrivals, span, "stored", partial(_same_as_stored, first, source))
            continue
        payload = held.get((span.trace_id, span.span_id))
        if payload is None:
            arrivals.fresh.append(span)
        else:
            _compare(arrivals, span, "pending", partial(_same_as_held, payload))
    return arrivals


def _compare(
    arrivals: Arrivals,
    span: PendingSpan,
    against: Literal["pending", "stored"],
    same: Callable[[RawSpan], bool],
) -> None:
    """A retry when ``same(span)``, else a conflicting version kept against the first."""
    raw = _decoded(span)
    if same(raw):
        arrivals.retried += 1
        return
    arrivals.conflicts.append(
        SpanConflict(
            trace_id=span.trace_id,
            span_id=span.span_id,
            digest=content_digest(raw),
            payload=span.payload,
            against=against,
            received_ns=span.received_ns,
            origin=span.origin,
        )
    )


def _decoded(span: PendingSpan) -> RawSpan:
    return decode_span(span.payload, None if span.origin is None else span.origin.payload)


def _same_as_held(payload: PendingPayload, raw: RawSpan) -> bool:
    try:
        first = decode_span(payload.span, payload.origin)
    except RecordError:
        return False  # a damaged first version: the new one is not it
    return same_span(first, raw)


def _same_as_stored(first: Span, source: str, raw: RawSpan) -> bool:
    try:
        mapped = map_span(raw, source)
    except RecordError:
        return False  # the stored one was read; this one cannot be
    record = ("parent_id", "name", "start_ns", "end_ns", "status", "attributes")
    if any(getattr(mapped, name) != getattr(first, name) for name in record):
        return False
    return first.events[: len(mapped.events)] == mapped.events
