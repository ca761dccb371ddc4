"""GenAI log events joined to the spans they name, before the spans are assembled into traces.

A :class:`~trailcheck.ingest.records.LogEvent` is appended to the events of the span with its
trace and span id, in input order (log records of one model call come in the order they were
emitted, which is the order of the conversation). An event whose span is not in the input is
counted, not rejected: the span may be in a file not imported, or dropped by the exporter.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from trailcheck.ingest.records import IgnoredLogs, LogEvent, RawSpan, Rejection, SpanItem

__all__ = ["LogTally", "join_log_events"]


@dataclass(slots=True)
class LogTally:
    """What became of the log records of an input: ``joined`` to a span; GenAI events whose
    span is not in the input (``unjoined``) or that name no span (``unlinked``); and ``other``
    records, which are not GenAI events."""

    joined: int = 0
    unjoined: int = 0
    unlinked: int = 0
    other: int = 0

    @property
    def read(self) -> int:
        return self.joined + self.unjoined + self.unlinked + self.other


def join_log_events(
    items: Iterable[SpanItem], tally: LogTally | None = None
) -> list[RawSpan | Rejection]:
    """The spans and Rejections of ``items``, each LogEvent appended to its span's events."""
    tally = LogTally() if tally is None else tally
    kept: list[RawSpan | Rejection] = []
    events: list[LogEvent] = []
    for item in items:
        if isinstance(item, LogEvent):
            events.append(item)
        elif isinstance(item, IgnoredLogs):
            tally.other += item.other
            tally.unlinked += item.unlinked
        else:
            kept.append(item)
    if not events:
        return kept
    spans = {(s.trace_id, s.span_id): s for s in kept if isinstance(s, RawSpan)}
    for log in events:
        span = spans.get((log.trace_id, log.span_id))
        if span is None:
            tally.unjoined += 1
            continue
        span.events.append(log.event)
        tally.joined += 1
    return kept
