"""Nothing dropped silently: a span sent again with the trace and span id of one already held or
stored, and other content, is refused in ``partial_success`` (HTTP protobuf and JSON, gRPC),
counted in ``GET /metrics``, and kept beside the first; the same span sent again is a retry,
accepted and adding nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from fastapi.testclient import TestClient
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

from tests.serve.conftest import RECEIVER_URL, Clock
from tests.serve.memory_store import MemoryStore
from tests.serve.otlp_bodies import (
    LLM,
    ROOT,
    TOOL,
    TRACE_A,
    TRACE_B,
    agent_span,
    json_body,
    llm_span,
    log_record,
    logs_body,
    protobuf_body,
    tool_span,
)
from tests.waiting import GUARD_S
from trailcheck.serve import Intake, create_app, decode_span, grpc_receiver, trace_service

PROTOBUF = {"Content-Type": "application/x-protobuf"}
JSON = {"Content-Type": "application/json"}


def _post(client: TestClient, encoding: str, *spans: Any) -> dict[str, Any]:
    """Post the spans in ``encoding``: the response's partial_success, as JSON fields."""
    if encoding == "protobuf":
        body, headers = protobuf_body(*spans), PROTOBUF
    else:
        body, headers = json_body(*spans), JSON
    response = client.post("/v1/traces", content=body, headers=headers)
    assert response.status_code == 200, response.text
    if encoding == "protobuf":
        reply: Any = ExportTraceServiceResponse.FromString(response.content)
        if not reply.HasField("partial_success"):
            return {}
        success = reply.partial_success
        return {"rejectedSpans": success.rejected_spans, "errorMessage": success.error_message}
    found: dict[str, Any] = response.json().get("partialSuccess", {})
    if "rejectedSpans" in found:
        found["rejectedSpans"] = int(found["rejectedSpans"])
    return found


def _metric(client: TestClient, outcome: str) -> int:
    text = client.get("/metrics").text
    line = f'trailcheck_serve_spans_total{{outcome="{outcome}"}} '
    return int(next(row for row in text.splitlines() if row.startswith(line)).split()[-1])


@pytest.mark.parametrize("encoding", ["protobuf", "json"])
def test_a_conflicting_span_is_refused_counted_and_kept_beside_the_first(
    client: TestClient, store: MemoryStore, encoding: str
) -> None:
    assert _post(client, encoding, agent_span(), tool_span()) == {}
    # The same ids, another tool: the sender must hear it was not kept as the span.
    success = _post(client, encoding, tool_span(tool="refund"), agent_span(TRACE_B))
    assert success["rejectedSpans"] == 1
    message = success["errorMessage"]
    assert f"trace {TRACE_A!r} span {TOOL!r}" in message
    assert "conflict" in message
    assert f"trailcheck pending show {TRACE_A}" in message
    # The first version is kept as the span, the rest of the request held, the other kept aside.
    first = store.pending[(TRACE_A, TOOL)]
    assert decode_span(first.payload, first.origin and first.origin.payload).name == (
        "execute_tool lookup"
    )
    assert (TRACE_B, ROOT) in store.pending
    [kept] = store.conflicts
    assert (kept.trace_id, kept.span_id, kept.against) == (TRACE_A, TOOL, "pending")
    origin = kept.origin.payload if kept.origin is not None else None
    assert decode_span(kept.payload, origin).name == "execute_tool refund"
    assert _metric(client, "conflicting") == 1
    assert _metric(client, "held") == 3


def test_the_same_conflicting_version_sent_twice_is_refused_twice_and_kept_once(
    client: TestClient, store: MemoryStore
) -> None:
    _post(client, "protobuf", tool_span())
    for _ in range(2):
        assert _post(client, "protobuf", tool_span(tool="refund"))["rejectedSpans"] == 1
    assert len(store.conflicts) == 1
    assert _metric(client, "conflicting") == 2


@pytest.mark.parametrize("again", ["protobuf", "json"])
def test_an_identical_resend_is_a_retry_in_either_encoding(
    client: TestClient, store: MemoryStore, again: str
) -> None:
    assert _post(client, "protobuf", agent_span(), tool_span()) == {}
    assert _post(client, again, agent_span(), tool_span()) == {}
    assert sorted(store.pending) == [(TRACE_A, ROOT), (TRACE_A, TOOL)]
    assert store.conflicts == []
    assert (_metric(client, "retried"), _metric(client, "conflicting")) == (2, 0)


def test_a_resend_after_the_trace_was_stored_is_a_retry_and_a_change_a_conflict(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    """The stored span carries the log records joined to it and what the conventions read:
    the same span sent again is still the same; one changed is a conflict against it."""
    spans = (agent_span(), llm_span(), tool_span())
    assert _post(client, "protobuf", *spans) == {}
    logs = client.post("/v1/logs", content=logs_body(log_record()), headers=PROTOBUF)
    assert logs.status_code == 200
    clock.advance(100)
    client.app.state.intake.sweep()  # type: ignore[attr-defined]
    assert len(store.traces[TRACE_A].spans[1].events) == 1  # the log record, joined
    assert _post(client, "json", *spans) == {}
    changed = llm_span()
    changed.name = "chat another-model"
    success = _post(client, "protobuf", changed)
    assert success["rejectedSpans"] == 1
    assert f"trace {TRACE_A!r} span {LLM!r}" in success["errorMessage"]
    assert [(c.span_id, c.against) for c in store.conflicts] == [(LLM, "stored")]
    assert store.pending == {}


@pytest.fixture
def grpc_intake(store: MemoryStore, clock: Clock) -> Iterator[tuple[Intake, grpc.Channel]]:
    intake = Intake(store, idle_timeout_ns=10**12, clock=clock)
    receiver = grpc_receiver(
        [trace_service(intake)], host="127.0.0.1", port=0, token=None, max_message_bytes=2**20
    )
    receiver.start()
    try:
        with grpc.insecure_channel(receiver.address) as channel:
            yield intake, channel
    finally:
        receiver.stop(0)


def test_grpc_reports_a_conflict_in_partial_success_and_takes_a_retry(
    grpc_intake: tuple[Intake, grpc.Channel], store: MemoryStore
) -> None:
    intake, channel = grpc_intake
    stub = TraceServiceStub(channel)

    def export(*spans: Any) -> Any:
        request = ExportTraceServiceRequest.FromString(protobuf_body(*spans))
        return stub.Export(request, timeout=GUARD_S)

    assert not export(agent_span(), tool_span()).HasField("partial_success")
    assert not export(tool_span()).HasField("partial_success")  # a retry
    reply = export(tool_span(tool="refund"))
    assert reply.partial_success.rejected_spans == 1
    assert f"trace {TRACE_A!r} span {TOOL!r}" in reply.partial_success.error_message
    assert [(c.span_id, c.against) for c in store.conflicts] == [(TOOL, "pending")]
    assert intake.counts.get("spans", "conflicting") == 1
    assert intake.counts.get("spans", "retried") == 1


def test_metrics_need_the_token_when_there_is_one(store: MemoryStore, clock: Clock) -> None:
    app = create_app(store, token="s3cret", sweep_interval_s=None, clock=clock)
    with TestClient(app, base_url=RECEIVER_URL) as client:
        assert client.get("/metrics").status_code == 401
        response = client.get("/metrics", headers={"Authorization": "Bearer s3cret"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert 'trailcheck_serve_spans_total{outcome="conflicting"} 0' in response.text
