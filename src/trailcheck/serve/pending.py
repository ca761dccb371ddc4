"""The seam between the ingest endpoint and the store: spans and GenAI log records wait as
*pending* rows until their trace is complete, then are assembled into one Trace and completed.

A span (:class:`trailcheck.store.PendingSpan`: its ids, payload, whether it is a root that has
ended, and when it was received) or a log record (:class:`trailcheck.store.PendingLogEvent`: its
trace and span ids, key, payload and when it was received) is written to the store before the
endpoint answers 200, so what was accepted survives a restart; the sweep
(:mod:`trailcheck.serve.sweep`) later turns the pending spans of a ready trace, with its log
records joined to them, into a stored Trace, or quarantines the trace with the reason, its
pending rows kept.
``PendingSpanStore`` lists exactly what the endpoint and the sweep call;
``trailcheck.store.Store`` implements it, and tests use an in-memory fake.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from trailcheck.store import PendingLogEvent, PendingSpan
from trailcheck.trace import Trace

__all__ = ["PendingSpanStore"]


class PendingSpanStore(Protocol):
    """What the endpoint and the sweep need from a store."""

    def add_pending(self, spans: Sequence[PendingSpan]) -> None:
        """Store the spans in one transaction, durable when this returns; a repeated
        ``(trace_id, span_id)`` is ignored."""

    def add_pending_logs(self, events: Sequence[PendingLogEvent]) -> None:
        """Store the log records in one transaction, in order, durable when this returns; a
        repeated ``(trace_id, span_id, record_key)`` is ignored."""

    def ready_pending(self, now_ns: int, idle_timeout_ns: int, settle_ns: int = 0) -> list[str]:
        """The trace ids, not quarantined, with a ``root_ended`` span and nothing (span or log
        record) received after ``now_ns - settle_ns``, or with nothing received for more than
        ``idle_timeout_ns`` before ``now_ns``."""

    def pending_payloads(self, trace_id: str) -> list[bytes]:
        """The payloads of the trace's pending spans."""

    def pending_log_payloads(self, trace_id: str) -> list[bytes]:
        """The payloads of the trace's pending log records, in the order received."""

    def drop_pending_logs(self, trace_id: str) -> int:
        """Delete the trace's pending log records if none of its spans is pending; how many."""

    def complete_pending(self, trace_id: str, trace: Trace) -> None:
        """In one transaction: store ``trace`` and delete the trace's pending spans and log
        records; when it raises, nothing changed."""

    def quarantine_pending(self, trace_id: str, reason: str) -> None:
        """Set the trace aside with ``reason``, durably: ``ready_pending`` no longer names it,
        and its pending spans and log records stay as they are."""

    def get_trace(self, trace_id: str) -> Trace | None:
        """The stored trace with this id: None, or ``trailcheck.store.UnknownTraceError``
        (what ``Store`` raises), when there is none."""
