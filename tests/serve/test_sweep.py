"""sweep_pending on its own: what it completes, the claims it holds per batch, and how it takes
many ready traces: in batches, each one transaction, in turns per arrival."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tests.serve.memory_store import MemoryStore
from tests.serve.otlp_bodies import TRACE_A, TRACE_B, agent_span, protobuf_body
from trailcheck.serve import TraceClaims, pending_span, sweep_pending
from trailcheck.serve.export import decode_export
from trailcheck.trace import Trace

pytestmark = pytest.mark.live


class ClaimCheckingStore(MemoryStore):
    """Records, at each completion, which of its traces the sweep's claims held."""

    def __init__(self, claims: TraceClaims) -> None:
        super().__init__()
        self.claims = claims
        self.held: list[list[bool]] = []

    def complete_pending_traces(self, traces: Sequence[Trace]) -> None:
        self.held.append([self.claims.holds(trace.trace_id) for trace in traces])
        super().complete_pending_traces(traces)


def test_the_claims_are_held_for_each_batch_and_released_after() -> None:
    claims = TraceClaims()
    store = ClaimCheckingStore(claims)
    spans = decode_export(protobuf_body(agent_span(TRACE_A), agent_span(TRACE_B)), "protobuf")
    store.add_pending([pending_span(span, 5) for span in spans])
    result = sweep_pending(store, now_ns=10, idle_timeout_ns=100, claims=claims)
    assert sorted(result.stored) == sorted([TRACE_A, TRACE_B])
    assert store.held == [[True, True]]
    assert not claims.holds(TRACE_A)
    assert not claims.holds(TRACE_B)


def test_nothing_ready_completes_nothing() -> None:
    store = MemoryStore()
    spans = decode_export(protobuf_body(agent_span(end=None)), "protobuf")
    store.add_pending([pending_span(span, 5) for span in spans])
    result = sweep_pending(store, now_ns=10, idle_timeout_ns=100)
    assert (result.stored, result.quarantined) == ([], {})
    assert len(store.pending) == 1
