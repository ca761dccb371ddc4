"""Nothing accepted is lost across a restart: a new app over the same store completes the
pending spans an earlier one accepted (here the in-memory store; the real one in
test_store_integration)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.serve.conftest import IDLE_TIMEOUT_S, RECEIVER_URL, Clock
from tests.serve.memory_store import MemoryStore
from tests.serve.otlp_bodies import TRACE_A, TRACE_B, agent_span, protobuf_body, tool_span
from trailcheck.serve import DEFAULT_SETTLE_S, create_app

PROTOBUF = {"Content-Type": "application/x-protobuf"}


def test_a_new_app_completes_what_the_old_one_accepted(store: MemoryStore, clock: Clock) -> None:
    first = create_app(store, idle_timeout_s=IDLE_TIMEOUT_S, sweep_interval_s=None, clock=clock)
    with TestClient(first, base_url=RECEIVER_URL) as client:
        ended = protobuf_body(agent_span(TRACE_A), tool_span(TRACE_A))
        assert client.post("/v1/traces", content=ended, headers=PROTOBUF).status_code == 200
        running = protobuf_body(agent_span(TRACE_B, end=None))
        assert client.post("/v1/traces", content=running, headers=PROTOBUF).status_code == 200
    # The first app stopped before sweeping again: both traces are only pending.
    assert store.traces == {}
    assert len(store.pending) == 3

    clock.advance(DEFAULT_SETTLE_S)  # TRACE_A's root ended, and nothing more of it came
    second = create_app(store, idle_timeout_s=IDLE_TIMEOUT_S, sweep_interval_s=None, clock=clock)
    with TestClient(second, base_url=RECEIVER_URL):
        pass  # the startup sweep
    assert list(store.traces) == [TRACE_A]
    assert len(store.traces[TRACE_A].spans) == 2
    assert list(store.pending) == [(TRACE_B, agent_span().span_id.hex())]

    clock.advance(IDLE_TIMEOUT_S + 1)
    third = create_app(store, idle_timeout_s=IDLE_TIMEOUT_S, sweep_interval_s=None, clock=clock)
    with TestClient(third, base_url=RECEIVER_URL):
        pass
    assert sorted(store.traces) == sorted([TRACE_A, TRACE_B])
    assert store.pending == {}


def test_the_sweep_on_the_app_state_completes_ready_traces(
    store: MemoryStore, clock: Clock
) -> None:
    app = create_app(store, sweep_interval_s=None, clock=clock)
    with TestClient(app, base_url=RECEIVER_URL) as client:
        client.post("/v1/traces", content=protobuf_body(agent_span()), headers=PROTOBUF)
        assert store.traces == {}
        assert app.state.intake.sweep().stored == []  # its log records may still be coming
        clock.advance(DEFAULT_SETTLE_S)
        result = app.state.intake.sweep()
    assert result.stored == [TRACE_A]
    assert list(store.traces) == [TRACE_A]
