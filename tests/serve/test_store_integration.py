"""The endpoint over the real Store (SQLite, and PostgreSQL when one is running): assembly
across requests, restart durability, late spans, and quarantined traces."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import text

from tests.serve.conftest import IDLE_TIMEOUT_S, RECEIVER_URL, Clock
from tests.serve.otlp_bodies import (
    LLM,
    ROOT,
    TOOL,
    TRACE_A,
    TRACE_B,
    agent_span,
    json_body,
    protobuf_body,
    tool_span,
)
from trailcheck.serve import create_app
from trailcheck.store import Store

PROTOBUF = {"Content-Type": "application/x-protobuf"}
JSON = {"Content-Type": "application/json"}


SETTLE_S = 2.0


def _app(store: Store, clock: Clock) -> TestClient:
    return TestClient(
        create_app(
            store,
            idle_timeout_s=IDLE_TIMEOUT_S,
            settle_s=SETTLE_S,
            sweep_interval_s=None,
            clock=clock,
        ),
        base_url=RECEIVER_URL,
    )


def test_a_split_trace_is_assembled_into_the_store(store_url: str) -> None:
    clock = Clock()
    with Store.open(store_url) as store, _app(store, clock) as client:
        first = client.post("/v1/traces", content=protobuf_body(tool_span()), headers=PROTOBUF)
        assert first.status_code == 200
        assert store.ready_pending(clock(), 10**9) == []
        response = client.post("/v1/traces", content=json_body(agent_span()), headers=JSON)
        assert response.status_code == 200
        intake = client.app.state.intake  # type: ignore[attr-defined]
        assert intake.sweep().stored == []  # the root ended just now: it settles first
        clock.advance(SETTLE_S)
        result = intake.sweep()
        assert result.stored == [TRACE_A]
        trace = store.get_trace(TRACE_A)
        assert sorted(span.span_id for span in trace.spans) == [ROOT, TOOL]
        assert [call.name for call in trace.tool_calls] == ["lookup"]
        assert trace.input == "refund order 42"
        assert store.pending_payloads(TRACE_A) == []


def test_pending_spans_survive_a_restart_of_server_and_store(store_url: str) -> None:
    clock = Clock()
    with Store.open(store_url) as store, _app(store, clock) as client:
        body = protobuf_body(agent_span(TRACE_A), tool_span(TRACE_A), agent_span(TRACE_B, end=None))
        assert client.post("/v1/traces", content=body, headers=PROTOBUF).status_code == 200
    # Process gone: a fresh Store over the same database, a fresh app.
    clock.advance(IDLE_TIMEOUT_S + 1)
    with Store.open(store_url) as store:
        with _app(store, clock):
            pass  # the startup sweep
        assert len(store.get_trace(TRACE_A).spans) == 2
        assert len(store.get_trace(TRACE_B).spans) == 1
        assert store.ready_pending(clock(), 0) == []


def test_late_spans_and_retries_against_the_real_store(store_url: str) -> None:
    clock = Clock()
    with Store.open(store_url) as store, _app(store, clock) as client:
        first = protobuf_body(agent_span(), tool_span())
        client.post("/v1/traces", content=first, headers=PROTOBUF)
        clock.advance(SETTLE_S)
        assert client.app.state.intake.sweep().stored == [TRACE_A]  # type: ignore[attr-defined]
        retry = client.post("/v1/traces", content=first, headers=PROTOBUF)
        assert retry.status_code == 200
        assert retry.content == b""  # an empty ExportTraceServiceResponse
        late = client.post("/v1/traces", content=json_body(tool_span(span_id=LLM)), headers=JSON)
        assert late.status_code == 200
        assert late.json()["partialSuccess"]["rejectedSpans"] == "1"
        assert store.ready_pending(clock() + 10**15, 0) == []
        assert len(store.get_trace(TRACE_A).spans) == 2


def test_a_trace_that_does_not_assemble_is_quarantined_with_its_spans(store_url: str) -> None:
    clock = Clock()
    with Store.open(store_url) as store, _app(store, clock) as client:
        client.post("/v1/traces", content=protobuf_body(tool_span()), headers=PROTOBUF)
        clock.advance(IDLE_TIMEOUT_S + 1)
        intake = client.app.state.intake  # type: ignore[attr-defined]
        result = intake.sweep()
        assert list(result.quarantined) == [TRACE_A]
        [held] = store.pending_traces()
        assert (held.trace_id, held.span_count, held.quarantined) == (TRACE_A, 1, True)
        assert held.reason == result.quarantined[TRACE_A]
        assert "parent_span_id" in held.reason
        assert len(store.pending_payloads(TRACE_A)) == 1
        assert intake.sweep().quarantined == {}  # not tried again
        # The parent arrives late; a retry then completes the trace.
        client.post("/v1/traces", content=protobuf_body(agent_span()), headers=PROTOBUF)
        store.retry_quarantined(TRACE_A)
        clock.advance(SETTLE_S)
        assert intake.sweep().stored == [TRACE_A]
        assert len(store.get_trace(TRACE_A).spans) == 2
        assert store.pending_traces() == []


def test_a_database_error_is_a_retryable_503_and_nothing_is_claimed_stored(
    store_url: str,
) -> None:
    clock = Clock()
    with Store.open(store_url) as store, _app(store, clock) as client:
        with store.engine.begin() as connection:
            connection.execute(text("DROP TABLE pending_spans"))
        response = client.post("/v1/traces", content=protobuf_body(agent_span()), headers=PROTOBUF)
        assert response.status_code == 503
        assert response.headers["retry-after"] == "1"
        assert "nothing was stored" in response.json()["message"]
