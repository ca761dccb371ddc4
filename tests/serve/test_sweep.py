"""sweep_pending on its own: what it completes, and the lock it holds per trace."""

from __future__ import annotations

import threading

import pytest

from tests.serve.memory_store import MemoryStore
from tests.serve.otlp_bodies import TRACE_A, TRACE_B, agent_span, protobuf_body
from trailcheck.serve import pending_span, sweep_pending
from trailcheck.serve.export import decode_export
from trailcheck.trace import Trace

pytestmark = pytest.mark.live


class LockCheckingStore(MemoryStore):
    """Records, at each completion, whether the sweep's lock was held."""

    def __init__(self, lock: threading.Lock) -> None:
        super().__init__()
        self.lock = lock
        self.held: list[bool] = []

    def complete_pending(self, trace_id: str, trace: Trace) -> None:
        self.held.append(self.lock.locked())
        super().complete_pending(trace_id, trace)


def test_the_lock_is_held_for_each_completion_and_released_after() -> None:
    lock = threading.Lock()
    store = LockCheckingStore(lock)
    spans = decode_export(protobuf_body(agent_span(TRACE_A), agent_span(TRACE_B)), "protobuf")
    store.add_pending([pending_span(span, 5) for span in spans])
    result = sweep_pending(store, now_ns=10, idle_timeout_ns=100, lock=lock)
    assert sorted(result.stored) == sorted([TRACE_A, TRACE_B])
    assert store.held == [True, True]
    assert not lock.locked()


def test_nothing_ready_completes_nothing() -> None:
    store = MemoryStore()
    spans = decode_export(protobuf_body(agent_span(end=None)), "protobuf")
    store.add_pending([pending_span(span, 5) for span in spans])
    result = sweep_pending(store, now_ns=10, idle_timeout_ns=100)
    assert (result.stored, result.quarantined) == ([], {})
    assert len(store.pending) == 1
