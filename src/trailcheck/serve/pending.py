"""The seam between the ingest endpoint and the store: spans and GenAI log records wait as
*pending* rows until their trace is complete, then are assembled into one Trace and completed.

A span (:class:`trailcheck.store.PendingSpan`: its ids, payload, its origin (resource and scope,
held once for the spans sharing it), whether it is a root that has ended, and when it was
received) or a log record (:class:`trailcheck.store.PendingLogEvent`: its trace and span ids,
key, payload and when it was received) is written to the store before the endpoint answers 200,
so what was accepted survives a restart; a conflicting version of a span received before
(:class:`trailcheck.store.SpanConflict`) is kept beside it. The sweep
(:mod:`trailcheck.serve.sweep`) later turns the pending spans of ready traces, with their log
records joined to them, into stored Traces, or quarantines a trace with the reason, its pending
rows kept.

Everything that concerns many spans or traces is one call for all of them (the store answers
each with a few queries, however many there are), never one call per trace.
``PendingSpanStore`` lists exactly what the endpoint and the sweep call;
``trailcheck.store.Store`` implements it, and tests use an in-memory fake.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from trailcheck.store import PendingLogEvent, PendingPayload, PendingSpan, SpanConflict
from trailcheck.trace import Trace

__all__ = ["PendingSpanStore"]


class PendingSpanStore(Protocol):
    """What the endpoint and the sweep need from a store."""

    def add_pending(
        self, spans: Sequence[PendingSpan], conflicts: Sequence[SpanConflict] = ()
    ) -> None:
        """Store the spans and their origins, and keep the conflicting versions, in one
        transaction, durable when this returns; a repeated ``(trace_id, span_id)`` is ignored,
        and so is a version already kept."""

    def add_pending_logs(self, events: Sequence[PendingLogEvent]) -> None:
        """Store the log records in one transaction, in order, durable when this returns; a
        repeated ``(trace_id, span_id, record_key)`` is ignored."""

    def stored_traces(self, trace_ids: Sequence[str]) -> dict[str, Trace]:
        """The stored traces among ``trace_ids``, by id."""

    def held_spans(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], PendingPayload]:
        """The pending spans among ``keys`` (trace id, span id), by key."""

    def ready_pending(
        self, now_ns: int, idle_timeout_ns: int, settle_ns: int = 0, limit: int | None = None
    ) -> list[str]:
        """At most ``limit`` trace ids, not quarantined, with a ``root_ended`` span and nothing
        (span or log record) received after ``now_ns - settle_ns``, or with nothing received
        for more than ``idle_timeout_ns`` before ``now_ns``: in turns, each group of traces
        first received at one time giving one per turn, groups oldest first."""

    def pending_payloads_of(self, trace_ids: Sequence[str]) -> dict[str, list[PendingPayload]]:
        """The pending spans of each of the traces that has any, in the order received."""

    def pending_log_payloads_of(self, trace_ids: Sequence[str]) -> dict[str, list[bytes]]:
        """The payloads of the pending log records of each of the traces that has any, in the
        order received."""

    def drop_pending_logs(self, trace_id: str) -> int:
        """Delete the trace's pending log records if none of its spans is pending; how many."""

    def complete_pending(self, trace_id: str, trace: Trace) -> None:
        """In one transaction: store ``trace`` and delete the trace's pending spans and log
        records; when it raises, nothing changed."""

    def complete_pending_traces(self, traces: Sequence[Trace]) -> None:
        """:meth:`complete_pending` for every trace, in one transaction: when it raises (any of
        them failing), nothing changed."""

    def quarantine_pending(self, trace_id: str, reason: str) -> None:
        """Set the trace aside with ``reason``, durably: ``ready_pending`` no longer names it,
        and its pending spans and log records stay as they are."""

    def drop_unused_origins(self, now_ns: int) -> int:
        """Delete the origins no pending span or kept version names, and no span named for a
        long while (an hour) before ``now_ns``; how many."""
