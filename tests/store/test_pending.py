"""Pending spans of the OTLP endpoint: held durably, ready when complete, completed atomically."""

from __future__ import annotations

import pytest

from tests.store.builders import lookup_trace, refund_trace
from trailcheck.errors import UsageError
from trailcheck.store import PendingSpan, Store

SECOND = 10**9


def _span(trace_id: str, span_id: str, at: int, *, root_ended: bool = False) -> PendingSpan:
    return PendingSpan(trace_id, span_id, f"{trace_id}/{span_id}".encode(), root_ended, at)


def test_pending_spans_survive_a_restart_and_repeats_are_ignored(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.add_pending([_span("t1", "s1", 1), _span("t1", "s2", 2)])
        store.add_pending([_span("t1", "s2", 3), _span("t2", "s1", 4), _span("t2", "s1", 5)])
    with Store.open(store_url) as reopened:
        assert reopened.pending_payloads("t1") == [b"t1/s1", b"t1/s2"]
        assert reopened.pending_payloads("t2") == [b"t2/s1"]
        assert reopened.pending_payloads("t3") == []


def test_a_trace_is_ready_when_its_root_ended_or_it_went_idle(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.add_pending(
            [
                _span("ended", "child", 100 * SECOND),
                _span("ended", "root", 101 * SECOND, root_ended=True),
                _span("idle", "a", 10 * SECOND),
                _span("busy", "a", 10 * SECOND),
                _span("busy", "b", 99 * SECOND),
            ]
        )
        # Idle timeout 30 s at t=101 s: "idle" last heard at 10 s, "busy" at 99 s.
        assert store.ready_pending(101 * SECOND, 30 * SECOND) == ["idle", "ended"]
        assert sorted(store.ready_pending(200 * SECOND, 30 * SECOND)) == ["busy", "ended", "idle"]


def test_completing_ingests_the_trace_and_drops_its_spans(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.add_pending([_span("t1", "s1", 1, root_ended=True), _span("t2", "s1", 1)])
        store.complete_pending("t1", refund_trace("t1"), None)
        assert store.get_trace("t1") == refund_trace("t1")
        assert store.pending_payloads("t1") == []
        assert store.ready_pending(2, SECOND) == []
        assert store.pending_payloads("t2") == [b"t2/s1"]
        assert store.rejected_traces() == []


def test_a_rejection_is_recorded_and_drops_the_spans(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.add_pending([_span("t1", "s1", 1), _span("t1", "s2", 2)])
        store.complete_pending("t1", None, "span 's2': orphan: parent 's0' never arrived")
        [rejected] = store.rejected_traces()
        assert (rejected.trace_id, rejected.span_count) == ("t1", 2)
        assert "never arrived" in rejected.reason
        assert store.pending_payloads("t1") == []
        assert store.list_traces() == []


def test_a_conflicting_completion_is_rejected_and_the_stored_trace_kept(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1")])
        store.add_pending([_span("t1", "s1", 1, root_ended=True)])
        store.complete_pending("t1", refund_trace("t1", answer="other"), None)
        [rejected] = store.rejected_traces()
        assert "trace 't1': refused" in rejected.reason
        assert store.get_trace("t1").final_output == "Refunded."
        assert store.pending_payloads("t1") == []


@pytest.mark.parametrize(
    ("trace_given", "rejection", "message"),
    [
        (True, "and a reason", "either the trace or a rejection"),
        (False, None, "either the trace or a rejection"),
    ],
)
def test_completion_takes_exactly_one_outcome(
    store_url: str, trace_given: bool, rejection: str | None, message: str
) -> None:
    with Store.open(store_url) as store:
        store.add_pending([_span("t1", "s1", 1)])
        with pytest.raises(UsageError, match=message):
            store.complete_pending("t1", lookup_trace("t1") if trace_given else None, rejection)
        with pytest.raises(UsageError, match="completed with trace 't2'"):
            store.complete_pending("t1", lookup_trace("t2"), None)
        assert store.pending_payloads("t1") == [b"t1/s1"]
