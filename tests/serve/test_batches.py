"""Big requests in batches: each batch of spans (log records) is one look-up of the stored traces,
one of the held spans and one write, under claims on its own trace ids only, so another request
and the sweep go on while a batch waits on the store; the sweep completes many traces per
transaction, in rounds."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from tests.serve.memory_store import MemoryStore
from tests.serve.otlp_bodies import (
    ROOT,
    TOOL,
    TRACE_A,
    TRACE_B,
    agent_span,
    log_record,
    logs_body,
    protobuf_body,
    tool_span,
)
from tests.waiting import GUARD_S
from trailcheck.serve import Intake, sweep_pending
from trailcheck.serve.receive import receive_logs, receive_traces
from trailcheck.store import PendingSpan, SpanConflict

SECOND = 10**9


def _trace_id(number: int) -> str:
    return f"{number + 1:032x}"


def _intake(store: MemoryStore, **options: int) -> Intake:
    return Intake(store, idle_timeout_ns=100 * SECOND, clock=lambda: SECOND, **options)


def test_a_big_request_is_written_in_batches_with_one_look_up_of_each_kind() -> None:
    store = MemoryStore()
    body = protobuf_body(*(agent_span(_trace_id(n)) for n in range(35)))
    accepted = receive_traces(_intake(store, batch_spans=10), body, "protobuf")
    assert accepted.stored == 35
    assert len(store.pending) == 35
    assert store.calls["stored_traces"] == 4  # 10 + 10 + 10 + 5
    assert store.calls["held_spans"] == 4
    assert store.calls["add_pending"] == 4


def test_log_records_are_written_in_batches_too() -> None:
    store = MemoryStore()
    body = logs_body(*(log_record(_trace_id(n), ROOT) for n in range(25)))
    accepted = receive_logs(_intake(store, batch_spans=10), body, "protobuf")
    assert accepted.stored == 25
    assert len(store.logs) == 25
    assert (store.calls["stored_traces"], store.calls["add_pending_logs"]) == (3, 3)


class GatedStore(MemoryStore):
    """A store whose write of a batch holding ``gated`` waits until ``release`` is set,
    having set ``entered``: a database slow for one request, held as long as the test likes."""

    def __init__(self, gated: str) -> None:
        super().__init__()
        self.gated = gated
        self.entered = threading.Event()
        self.release = threading.Event()

    def add_pending(
        self, spans: Sequence[PendingSpan], conflicts: Sequence[SpanConflict] = ()
    ) -> None:
        if any(span.trace_id == self.gated for span in spans):
            self.entered.set()
            assert self.release.wait(GUARD_S), "the test never released the gated write"
        super().add_pending(spans, conflicts)


def _in_thread(work: Callable[[], object]) -> threading.Event:
    """Run ``work`` in a thread; the event is set once it returned."""
    done = threading.Event()

    def run() -> None:
        work()
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return done


def test_a_request_and_the_sweep_go_on_while_another_request_waits_on_the_store() -> None:
    store = GatedStore(TRACE_A)
    intake = _intake(store)
    first = _in_thread(
        lambda: receive_traces(intake, protobuf_body(agent_span(TRACE_A)), "protobuf")
    )
    assert store.entered.wait(GUARD_S), "the first request never reached the store"
    # The first request is inside its batch's store work: the second one is not held up ...
    second = _in_thread(
        lambda: receive_traces(intake, protobuf_body(agent_span(TRACE_B)), "protobuf")
    )
    assert second.wait(GUARD_S), "the second request waited for the first one's batch"
    assert list(store.pending) == [(TRACE_B, ROOT)]
    # ... nor is the sweep of its trace.
    swept = _in_thread(intake.sweep)
    assert swept.wait(GUARD_S), "the sweep waited for the first request's batch"
    assert list(store.traces) == [TRACE_B]
    assert not first.is_set()
    store.release.set()
    assert first.wait(GUARD_S)
    assert list(store.pending) == [(TRACE_A, ROOT)]
    assert not intake.claims.holds(TRACE_A)


def test_a_request_waits_for_a_batch_of_the_same_trace_and_sees_what_it_wrote() -> None:
    """Two requests for one trace take turns: the second finds the first one's span held,
    so the same span id with other content is a conflict, not a second copy."""
    store = GatedStore(TRACE_A)
    intake = _intake(store)
    first = _in_thread(lambda: receive_traces(intake, protobuf_body(tool_span()), "protobuf"))
    assert store.entered.wait(GUARD_S)
    answers: list[object] = []
    body = protobuf_body(tool_span(tool="refund"))
    second = _in_thread(lambda: answers.append(receive_traces(intake, body, "protobuf")))
    store.release.set()
    assert first.wait(GUARD_S)
    assert second.wait(GUARD_S)
    assert list(store.pending) == [(TRACE_A, TOOL)]
    assert [(c.span_id, c.against) for c in store.conflicts] == [(TOOL, "pending")]


def test_the_sweep_completes_a_batch_of_traces_in_one_transaction() -> None:
    store = MemoryStore()
    receive_traces(
        _intake(store), protobuf_body(*(agent_span(_trace_id(n)) for n in range(5))), "protobuf"
    )
    result = sweep_pending(store, now_ns=2 * SECOND, idle_timeout_ns=100 * SECOND, batch_traces=2)
    assert sorted(result.stored) == sorted(_trace_id(n) for n in range(5))
    assert store.calls["complete_pending_traces"] == 3
    assert store.calls["pending_payloads_of"] == 3
    assert store.calls["complete_pending"] == 0


def test_the_server_sweeps_in_rounds_until_nothing_is_ready() -> None:
    store = MemoryStore()
    intake = _intake(store, sweep_round=2)
    receive_traces(intake, protobuf_body(*(agent_span(_trace_id(n)) for n in range(5))), "protobuf")
    result = intake.sweep()
    assert len(result.stored) == 5
    assert store.calls["ready_pending"] == 3  # 2, 2, then 1 (fewer than a round: done)
    assert intake.counts.get("traces", "stored") == 5


def test_the_spans_of_one_resource_share_one_origin_held_once() -> None:
    store = MemoryStore()
    receive_traces(_intake(store), protobuf_body(agent_span(), tool_span()), "protobuf")
    root, tool = store.pending[(TRACE_A, ROOT)], store.pending[(TRACE_A, TOOL)]
    assert root.origin is not None
    assert root.origin is tool.origin
    assert b"shop-agent" in root.origin.payload
    assert b"shop-agent" not in root.payload
