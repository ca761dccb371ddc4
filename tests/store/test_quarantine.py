"""The quarantine: a pending trace set aside with its reason, its spans and log records kept,
skipped by ready_pending until it is retried, and dropped whole on request."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect

from trailcheck.errors import UsageError
from trailcheck.store import (
    PendingLogEvent,
    PendingOrigin,
    PendingPayload,
    PendingSpan,
    SpanConflict,
    Store,
)
from trailcheck.store.quarantine import MAX_REASON_CHARS

SECOND = 10**9


def _held(store: Store) -> None:
    """Two traces whose roots ended at 1 s and 2 s, one with a log record."""
    store.add_pending(
        [
            PendingSpan("t1", "root", b"t1/root", True, 1 * SECOND),
            PendingSpan("t1", "tool", b"t1/tool", False, 1 * SECOND),
            PendingSpan("t2", "root", b"t2/root", True, 2 * SECOND),
        ]
    )
    store.add_pending_logs([PendingLogEvent("t1", "tool", "k", b"t1/log", 3 * SECOND)])


def test_the_table_comes_with_its_migration(store_url: str) -> None:
    with Store.open(store_url) as store:
        assert "m006_quarantined_traces" in store.migrations_applied
        with store.engine.connect() as connection:
            assert "quarantined_traces" in inspect(connection).get_table_names()


def test_a_quarantined_trace_keeps_its_rows_and_is_never_ready(store_url: str) -> None:
    with Store.open(store_url) as store:
        _held(store)
        store.quarantine_pending("t1", "span 'tool': field 'end_ns': too late")
        assert store.ready_pending(100 * SECOND, SECOND) == ["t2"]
        assert [p.span for p in store.pending_payloads("t1")] == [b"t1/root", b"t1/tool"]
        assert store.pending_log_payloads("t1") == [b"t1/log"]
        [first, second] = store.pending_traces()
        assert (first.trace_id, first.span_count, first.log_count) == ("t1", 2, 1)
        assert (first.first_received_ns, first.last_received_ns) == (SECOND, 3 * SECOND)
        assert (first.quarantined, first.root_ended) == (True, True)
        assert first.reason == "span 'tool': field 'end_ns': too late"
        assert first.quarantined_ns is not None
        assert (second.trace_id, second.quarantined, second.reason) == ("t2", False, None)
    # Durable: a restarted server's sweep skips it too.
    with Store.open(store_url) as reopened:
        assert reopened.ready_pending(100 * SECOND, SECOND) == ["t2"]


def test_quarantining_again_keeps_the_first_reason_and_cleans_the_text(store_url: str) -> None:
    with Store.open(store_url) as store:
        _held(store)
        store.quarantine_pending("t1", "first\x00reason")
        store.quarantine_pending("t1", "second")
        store.quarantine_pending("t2", "x" * (MAX_REASON_CHARS * 2))
        first, second = store.pending_traces()
        assert first.reason == "first\ufffdreason"
        assert second.reason is not None
        assert len(second.reason) == MAX_REASON_CHARS
        assert second.reason.endswith("…")


def test_retry_sends_it_back_to_the_sweep(store_url: str) -> None:
    with Store.open(store_url) as store:
        _held(store)
        store.quarantine_pending("t1", "orphan")
        released = store.retry_quarantined("t1")
        assert (released.trace_id, released.span_count, released.reason) == ("t1", 2, "orphan")
        assert store.ready_pending(100 * SECOND, SECOND) == ["t1", "t2"]
        assert not store.pending_trace("t1").quarantined
        with pytest.raises(UsageError, match="'t1' is pending, not quarantined"):
            store.retry_quarantined("t1")
        with pytest.raises(UsageError, match="no pending or quarantined trace 'nope'"):
            store.retry_quarantined("nope")


def test_drop_deletes_a_held_trace_whole_and_says_what_went(store_url: str) -> None:
    with Store.open(store_url) as store:
        _held(store)
        store.quarantine_pending("t1", "orphan")
        dropped = store.drop_pending("t1")
        assert (dropped.trace_id, dropped.span_count, dropped.log_count) == ("t1", 2, 1)
        assert dropped.reason == "orphan"
        assert store.pending_payloads("t1") == []
        assert store.pending_log_payloads("t1") == []
        assert [trace.trace_id for trace in store.pending_traces()] == ["t2"]
        pending = store.drop_pending("t2")  # a trace only pending can be dropped too
        assert (pending.span_count, pending.reason) == (1, None)
        assert store.pending_traces() == []
        with pytest.raises(UsageError, match="no pending or quarantined trace 't1'"):
            store.drop_pending("t1")


def test_a_quarantined_trace_with_nothing_held_is_still_listed(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.quarantine_pending("gone", "its log records were dropped meanwhile")
        [held] = store.pending_traces()
        assert (held.trace_id, held.span_count, held.log_count) == ("gone", 0, 0)
        assert held.first_received_ns is None
        assert store.drop_pending("gone").reason is not None


def test_a_conflicting_version_is_kept_once_with_its_origin_and_counted(store_url: str) -> None:
    origin = PendingOrigin("o1", b"resource")
    version = SpanConflict("t1", "tool", "d1", b"t1/tool v2", "pending", 4 * SECOND, origin)
    with Store.open(store_url) as store:
        _held(store)
        store.add_pending([], [version])
        store.add_pending([], [version])  # the same version again
        store.add_pending([], [SpanConflict("t9", "s", "d2", b"t9/s v2", "stored", 5)])
        [kept] = store.span_conflicts("t1")
        assert (kept.span_id, kept.against, kept.received_ns) == ("tool", "pending", 4 * SECOND)
        assert kept.payload == PendingPayload(b"t1/tool v2", b"resource")
        counts = {t.trace_id: (t.state, t.conflict_count) for t in store.pending_traces()}
        assert counts == {"t1": ("pending", 1), "t2": ("pending", 0), "t9": ("conflicts", 1)}
        assert store.drop_pending("t1").conflict_count == 1
        assert store.span_conflicts("t1") == []
