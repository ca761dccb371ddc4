"""Pending spans and log records of the OTLP endpoint: held durably, in arrival order, ready
when complete (settled, or idle), completed atomically."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests.store.builders import lookup_trace, refund_trace
from trailcheck.errors import InputError, UsageError
from trailcheck.store import (
    PendingLogEvent,
    PendingOrigin,
    PendingPayload,
    PendingSpan,
    Store,
    schema,
)
from trailcheck.store.pending_origins import ORIGIN_GRACE_NS

SECOND = 10**9


def _span(trace_id: str, span_id: str, at: int, *, root_ended: bool = False) -> PendingSpan:
    return PendingSpan(trace_id, span_id, f"{trace_id}/{span_id}".encode(), root_ended, at)


def _log(trace_id: str, span_id: str, key: str, at: int) -> PendingLogEvent:
    return PendingLogEvent(trace_id, span_id, key, f"{trace_id}/{span_id}/{key}".encode(), at)


def test_pending_spans_survive_a_restart_and_repeats_are_ignored(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.add_pending([_span("t1", "s1", 1), _span("t1", "s2", 2)])
        store.add_pending([_span("t1", "s2", 3), _span("t2", "s1", 4), _span("t2", "s1", 5)])
    with Store.open(store_url) as reopened:
        assert [p.span for p in reopened.pending_payloads("t1")] == [b"t1/s1", b"t1/s2"]
        assert [p.span for p in reopened.pending_payloads("t2")] == [b"t2/s1"]
        assert reopened.pending_payloads("t3") == []


def test_spans_come_back_in_arrival_order_not_id_order(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.add_pending([_span("t1", "zz", 1), _span("t1", "aa", 1), _span("t1", "mm", 1)])
        store.add_pending([_span("t1", "bb", 1)])  # the same clock reading: arrival still counts
        assert [p.span for p in store.pending_payloads("t1")] == [
            b"t1/zz",
            b"t1/aa",
            b"t1/mm",
            b"t1/bb",
        ]


def test_pending_log_records_survive_a_restart_in_order_and_repeats_are_ignored(
    store_url: str,
) -> None:
    with Store.open(store_url) as store:
        store.add_pending_logs([_log("t1", "s9", "k2", 1), _log("t1", "s1", "k1", 1)])
        # A retried export repeats its keys; the same key on another span is another record.
        store.add_pending_logs([_log("t1", "s1", "k1", 2), _log("t1", "s2", "k1", 2)])
    with Store.open(store_url) as reopened:
        assert reopened.pending_log_payloads("t1") == [b"t1/s9/k2", b"t1/s1/k1", b"t1/s2/k1"]
        assert reopened.pending_log_payloads("t2") == []


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


def test_an_ended_root_settles_and_log_records_count_as_arrivals(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.add_pending(
            [
                _span("quiet", "root", 100 * SECOND, root_ended=True),
                _span("chatty", "root", 100 * SECOND, root_ended=True),
                _span("open", "root", 100 * SECOND),
            ]
        )
        store.add_pending_logs(
            [
                _log("chatty", "llm", "k", 101 * SECOND),
                _log("open", "llm", "k", 101 * SECOND),
                _log("alone", "llm", "k", 90 * SECOND),
            ]
        )
        settle, idle = 2 * SECOND, 30 * SECOND
        assert store.ready_pending(101 * SECOND, idle, settle) == []
        assert store.ready_pending(102 * SECOND, idle, settle) == ["quiet"]  # exactly settled
        # Oldest first (the first arrival), ties by trace id.
        assert store.ready_pending(103 * SECOND, idle, settle) == ["chatty", "quiet"]
        assert store.ready_pending(101 * SECOND, idle) == ["chatty", "quiet"]  # no settle time
        # Idle: the newest arrival, span or log record, more than the timeout ago.
        assert store.ready_pending(121 * SECOND, idle, settle) == ["alone", "chatty", "quiet"]
        assert store.ready_pending(131 * SECOND, idle, settle) == ["alone", "chatty", "quiet"]
        assert store.ready_pending(131 * SECOND + 1, idle, settle) == [
            *("alone", "chatty", "open", "quiet")
        ]


def test_log_records_are_dropped_only_while_no_span_of_their_trace_is_held(
    store_url: str,
) -> None:
    with Store.open(store_url) as store:
        store.add_pending_logs([_log("t1", "s1", "a", 1), _log("t1", "s1", "b", 1)])
        store.add_pending_logs([_log("t2", "s1", "a", 1)])
        store.add_pending([_span("t2", "s1", 1)])
        assert store.drop_pending_logs("t2") == 0
        assert store.pending_log_payloads("t2") == [b"t2/s1/a"]
        assert store.drop_pending_logs("t1") == 2
        assert store.pending_log_payloads("t1") == []
        assert store.drop_pending_logs("t1") == 0


def test_completing_drops_the_log_records_with_the_spans(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.add_pending([_span("t1", "s1", 1, root_ended=True), _span("t2", "s1", 1)])
        store.add_pending_logs([_log("t1", "s1", "a", 1), _log("t2", "s1", "a", 1)])
        store.complete_pending("t1", refund_trace("t1"))
        assert store.pending_log_payloads("t1") == []
        assert store.pending_log_payloads("t2") == [b"t2/s1/a"]


def test_completing_ingests_the_trace_and_drops_its_spans(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.add_pending([_span("t1", "s1", 1, root_ended=True), _span("t2", "s1", 1)])
        store.complete_pending("t1", refund_trace("t1"))
        assert store.get_trace("t1") == refund_trace("t1")
        assert store.pending_payloads("t1") == []
        assert store.ready_pending(2, SECOND) == []
        assert [p.span for p in store.pending_payloads("t2")] == [b"t2/s1"]
        assert store.pending_traces()[0].trace_id == "t2"


def test_completing_an_identical_stored_trace_is_a_no_op_that_drops_the_spans(
    store_url: str,
) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1")])
        store.add_pending([_span("t1", "s1", 1, root_ended=True)])
        store.complete_pending("t1", refund_trace("t1"))
        assert store.pending_traces() == []
        assert len(store.list_traces()) == 1


def test_a_conflicting_completion_changes_nothing(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1")])
        store.add_pending([_span("t1", "s1", 1, root_ended=True)])
        with pytest.raises(InputError, match="trace 't1': refused"):
            store.complete_pending("t1", refund_trace("t1", answer="other"))
        assert store.get_trace("t1").final_output == "Refunded."
        assert [p.span for p in store.pending_payloads("t1")] == [b"t1/s1"]


def test_completion_names_its_own_trace(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.add_pending([_span("t1", "s1", 1)])
        with pytest.raises(UsageError, match="completed with trace 't2'"):
            store.complete_pending("t1", lookup_trace("t2"))
        assert [p.span for p in store.pending_payloads("t1")] == [b"t1/s1"]


def test_ready_traces_come_in_turns_per_arrival_and_a_limit_cuts_them(store_url: str) -> None:
    """A request of many traces (first received at 1 s) does not hold up one that came beside
    it (at 2 s): each arrival gives one trace per turn."""
    with Store.open(store_url) as store:
        store.add_pending([_span(f"big{n}", "root", SECOND, root_ended=True) for n in range(4)])
        store.add_pending([_span("good", "root", 2 * SECOND, root_ended=True)])
        store.add_pending([_span("later", "root", 3 * SECOND, root_ended=True)])
        ready = store.ready_pending(4 * SECOND, 100 * SECOND)
        assert ready == ["big0", "good", "later", "big1", "big2", "big3"]
        assert store.ready_pending(4 * SECOND, 100 * SECOND, limit=2) == ["big0", "good"]


def test_an_origin_is_held_once_and_comes_back_beside_each_span(store_url: str) -> None:
    shared, other = PendingOrigin("o1", b"resource one"), PendingOrigin("o2", b"resource two")
    with Store.open(store_url) as store:
        store.add_pending(
            [
                PendingSpan("t1", "s1", b"t1/s1", False, 1, shared),
                PendingSpan("t1", "s2", b"t1/s2", True, 1, shared),
                PendingSpan("t2", "s1", b"t2/s1", True, 1, other),
                PendingSpan("t2", "s2", b"t2/s2", True, 1),
            ]
        )
        store.add_pending([PendingSpan("t3", "s1", b"t3/s1", True, 2, shared)])
        assert store.pending_payloads("t1") == [
            PendingPayload(b"t1/s1", b"resource one"),
            PendingPayload(b"t1/s2", b"resource one"),
        ]
        found = store.pending_payloads_of(["t2", "t3", "none"])
        assert found == {
            "t2": [PendingPayload(b"t2/s1", b"resource two"), PendingPayload(b"t2/s2")],
            "t3": [PendingPayload(b"t3/s1", b"resource one")],
        }
        with store.engine.connect() as connection:
            held = connection.execute(select(schema.pending_origins.c.origin_key)).scalars()
            assert sorted(held) == ["o1", "o2"]


def test_an_origin_goes_once_no_span_names_it_after_its_grace(store_url: str) -> None:
    hour = ORIGIN_GRACE_NS
    with Store.open(store_url) as store:
        store.add_pending([PendingSpan("t1", "s1", b"x", True, 1, PendingOrigin("o1", b"r1"))])
        store.add_pending([PendingSpan("t2", "s1", b"x", True, 5, PendingOrigin("o2", b"r2"))])
        store.complete_pending("t1", refund_trace("t1"))
        assert store.drop_unused_origins(hour) == 0  # o1 named at 1 ns: its grace runs on
        assert store.drop_unused_origins(hour + 2) == 1  # o1 unnamed for the grace; o2 named
        store.complete_pending("t2", lookup_trace("t2"))
        # Named again after its last span went: its grace counts from the newest naming.
        store.add_pending([PendingSpan("t3", "s1", b"x", True, 9, PendingOrigin("o2", b"r2"))])
        store.complete_pending("t3", lookup_trace("t3"))
        assert store.drop_unused_origins(hour + 8) == 0
        assert store.drop_unused_origins(hour + 10) == 1


def test_held_spans_are_found_by_key_among_many(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.add_pending([_span(f"t{n}", "s1", 1) for n in range(1200)])
        keys = [(f"t{n}", "s1") for n in range(0, 1200, 2)] + [("t1", "other"), ("none", "s1")]
        found = store.held_spans(keys)
        assert sorted(found) == sorted((f"t{n}", "s1") for n in range(0, 1200, 2))
        assert found["t4", "s1"] == PendingPayload(b"t4/s1")


def test_many_traces_complete_in_one_transaction_or_none(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t3")])
        store.add_pending([_span(t, "s1", 1, root_ended=True) for t in ("t1", "t2", "t3")])
        store.add_pending_logs([_log("t1", "s1", "a", 1)])
        with pytest.raises(InputError, match="trace 't3': refused"):
            store.complete_pending_traces(
                [refund_trace("t1"), lookup_trace("t2"), refund_trace("t3", answer="other")]
            )
        assert store.stored_traces(["t1", "t2", "t3"]).keys() == {"t3"}
        assert len(store.pending_payloads_of(["t1", "t2", "t3"])) == 3
        store.complete_pending_traces([refund_trace("t1"), lookup_trace("t2")])
        assert store.stored_traces(["t1", "t2", "t3"]).keys() == {"t1", "t2", "t3"}
        assert store.pending_payloads_of(["t1", "t2"]) == {}
        assert store.pending_log_payloads_of(["t1"]) == {}
