"""POST /v1/traces: protobuf and JSON, gzip, assembly across requests, and every refusal."""

from __future__ import annotations

import gzip

import orjson
import pytest
from fastapi.testclient import TestClient
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from tests.serve.conftest import IDLE_TIMEOUT_S, RECEIVER_URL, SECOND_NS, Clock
from tests.serve.memory_store import MemoryStore
from tests.serve.otlp_bodies import (
    LLM,
    ROOT,
    TOOL,
    TRACE_A,
    TRACE_B,
    agent_span,
    json_body,
    protobuf_body,
    string,
    tool_span,
)
from trailcheck.errors import RecordError
from trailcheck.importing.records import RawSpan
from trailcheck.serve import SweepResult, create_app, decode_span, sweep_pending
from trailcheck.serve.span_codec import SpanParts

PROTOBUF = {"Content-Type": "application/x-protobuf"}
JSON = {"Content-Type": "application/json"}
IDLE_NS = round(IDLE_TIMEOUT_S * SECOND_NS)


def sweep(store: MemoryStore, clock: Clock) -> None:
    sweep_pending(store, now_ns=clock(), idle_timeout_ns=IDLE_NS)


# --- accepted exports -------------------------------------------------------------------------


def test_protobuf_export_is_stored_and_assembled(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    response = client.post(
        "/v1/traces", content=protobuf_body(agent_span(), tool_span()), headers=PROTOBUF
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-protobuf"
    reply = ExportTraceServiceResponse.FromString(response.content)
    assert not reply.HasField("partial_success")
    assert sorted(span_id for _, span_id in store.pending) == [ROOT, TOOL]
    root = store.pending[(TRACE_A, ROOT)]
    assert root.root_ended
    assert root.received_ns == clock()
    assert not store.pending[(TRACE_A, TOOL)].root_ended
    assert decode_span(root.payload).name == "invoke_agent support"

    sweep(store, clock)
    trace = store.traces[TRACE_A]
    assert trace.input == "refund order 42"
    assert [call.name for call in trace.tool_calls] == ["lookup"]
    assert store.pending == {}


def test_json_export_gives_the_same_trace_as_protobuf(store: MemoryStore, clock: Clock) -> None:
    traces = []
    for body, headers in ((protobuf_body, PROTOBUF), (json_body, JSON)):
        memory = MemoryStore()
        app = create_app(memory, sweep_interval_s=None, clock=clock)
        with TestClient(app, base_url=RECEIVER_URL) as client:
            response = client.post(
                "/v1/traces", content=body(agent_span(), tool_span()), headers=headers
            )
        assert response.status_code == 200
        sweep(memory, clock)
        traces.append(memory.traces[TRACE_A])
    assert traces[0] == traces[1]
    assert traces[1].metadata["agent_name"] == "support"


def test_json_export_answers_an_empty_json_response(client: TestClient) -> None:
    response = client.post(
        "/v1/traces",
        content=json_body(agent_span()),
        headers={"Content-Type": "application/json; charset=utf-8"},
    )
    assert response.status_code == 200
    assert response.json() == {}


@pytest.mark.parametrize("headers", [PROTOBUF, JSON])
def test_gzip_bodies_are_accepted(
    client: TestClient, store: MemoryStore, clock: Clock, headers: dict[str, str]
) -> None:
    body = protobuf_body if headers is PROTOBUF else json_body
    response = client.post(
        "/v1/traces",
        content=gzip.compress(body(agent_span(), tool_span())),
        headers={**headers, "Content-Encoding": "gzip"},
    )
    assert response.status_code == 200
    sweep(store, clock)
    assert len(store.traces[TRACE_A].spans) == 2


def test_a_trace_split_over_two_requests_is_assembled_once_its_root_ends(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    # Children end first, so an SDK exports them in an earlier batch than the root.
    first = client.post("/v1/traces", content=protobuf_body(tool_span()), headers=PROTOBUF)
    assert first.status_code == 200
    sweep(store, clock)
    assert store.traces == {}  # no root yet and not idle: it waits
    clock.advance(2)
    second = client.post("/v1/traces", content=json_body(agent_span()), headers=JSON)
    assert second.status_code == 200
    sweep(store, clock)
    trace = store.traces[TRACE_A]
    assert sorted(span.span_id for span in trace.spans) == [ROOT, TOOL]
    assert trace.tree.root is not None
    assert trace.tree.root.span_id == ROOT
    assert store.pending == {}


def test_a_trace_whose_root_never_ends_completes_after_the_idle_timeout(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    body = protobuf_body(agent_span(end=None), tool_span())
    assert client.post("/v1/traces", content=body, headers=PROTOBUF).status_code == 200
    clock.advance(IDLE_TIMEOUT_S)
    sweep(store, clock)
    assert store.traces == {}  # exactly the timeout is not "more than" it
    clock.advance(0.001)
    sweep(store, clock)
    trace = store.traces[TRACE_A]
    assert trace.tree.root is not None
    assert trace.tree.root.end_ns is None
    assert len(trace.spans) == 2


def test_a_new_span_restarts_the_idle_timeout(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    client.post("/v1/traces", content=protobuf_body(agent_span(end=None)), headers=PROTOBUF)
    clock.advance(IDLE_TIMEOUT_S - 1)
    client.post("/v1/traces", content=protobuf_body(tool_span()), headers=PROTOBUF)
    clock.advance(2)
    sweep(store, clock)
    assert store.traces == {}
    clock.advance(IDLE_TIMEOUT_S)
    sweep(store, clock)
    assert len(store.traces[TRACE_A].spans) == 2


def test_an_orphan_span_is_quarantined_with_the_reason_after_the_idle_timeout(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    client.post("/v1/traces", content=protobuf_body(tool_span()), headers=PROTOBUF)
    clock.advance(IDLE_TIMEOUT_S + 1)
    result = sweep_pending(store, now_ns=clock(), idle_timeout_ns=IDLE_NS)
    assert result.stored == []
    reason = store.quarantined[TRACE_A]
    assert result.quarantined == {TRACE_A: reason}
    assert f"span {TOOL!r}" in reason
    assert "parent_span_id" in reason
    assert list(store.pending) == [(TRACE_A, TOOL)]  # kept: nothing acknowledged is lost
    assert store.traces == {}
    # Quarantined, it is not tried again by later sweeps.
    clock.advance(IDLE_TIMEOUT_S + 1)
    assert sweep_pending(store, now_ns=clock(), idle_timeout_ns=IDLE_NS) == SweepResult()


def test_two_traces_in_one_request_complete_separately(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    body = protobuf_body(agent_span(TRACE_A), agent_span(TRACE_B, end=None), tool_span(TRACE_B))
    assert client.post("/v1/traces", content=body, headers=PROTOBUF).status_code == 200
    sweep(store, clock)
    assert list(store.traces) == [TRACE_A]
    clock.advance(IDLE_TIMEOUT_S + 1)
    sweep(store, clock)
    assert sorted(store.traces) == sorted([TRACE_A, TRACE_B])


def test_a_retried_export_of_a_stored_trace_is_accepted_and_changes_nothing(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    body = protobuf_body(agent_span(), tool_span())
    client.post("/v1/traces", content=body, headers=PROTOBUF)
    sweep(store, clock)
    stored = store.traces[TRACE_A]
    again = client.post("/v1/traces", content=body, headers=PROTOBUF)
    assert again.status_code == 200
    assert not ExportTraceServiceResponse.FromString(again.content).HasField("partial_success")
    assert store.pending == {}
    assert store.traces[TRACE_A] is stored


def test_a_late_span_of_a_stored_trace_is_reported_as_partial_success(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    client.post("/v1/traces", content=protobuf_body(agent_span()), headers=PROTOBUF)
    sweep(store, clock)
    late = tool_span(span_id=LLM)
    body = protobuf_body(late, agent_span(TRACE_B))
    response = client.post("/v1/traces", content=body, headers=PROTOBUF)
    assert response.status_code == 200
    reply = ExportTraceServiceResponse.FromString(response.content)
    assert reply.partial_success.rejected_spans == 1
    assert TRACE_A in reply.partial_success.error_message
    assert "after their trace was complete" in reply.partial_success.error_message
    assert list(store.pending) == [(TRACE_B, ROOT)]  # the rest of the request is stored
    assert len(store.traces[TRACE_A].spans) == 1


def test_partial_success_in_json(client: TestClient, store: MemoryStore, clock: Clock) -> None:
    client.post("/v1/traces", content=json_body(agent_span()), headers=JSON)
    sweep(store, clock)
    response = client.post("/v1/traces", content=json_body(tool_span()), headers=JSON)
    assert response.status_code == 200
    partial = response.json()["partialSuccess"]
    assert partial["rejectedSpans"] == "1"
    assert TRACE_A in partial["errorMessage"]


def test_an_empty_export_is_accepted_and_stores_nothing(
    client: TestClient, store: MemoryStore
) -> None:
    response = client.post("/v1/traces", content=b"", headers=PROTOBUF)
    assert response.status_code == 200
    assert store.pending == {}
    assert store.add_calls == 0


# --- refusals ---------------------------------------------------------------------------------


def test_a_bad_attribute_is_400_naming_the_span_and_field_and_nothing_is_stored(
    client: TestClient, store: MemoryStore
) -> None:
    document = orjson.loads(json_body(agent_span(), tool_span()))
    bad = document["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    bad["attributes"].append({"key": "x", "value": {"doubleValue": "NaN"}})
    response = client.post("/v1/traces", content=orjson.dumps(document), headers=JSON)
    assert response.status_code == 400
    error = response.json()
    assert error["code"] == 3
    assert f"span {TOOL!r}" in error["message"]
    assert "resourceSpans[0].scopeSpans[0].spans[1].attributes" in error["message"]
    assert "nothing was stored" in error["message"]
    assert store.pending == {}
    assert store.add_calls == 0


def test_a_bad_span_id_in_protobuf_is_400_naming_the_field(
    client: TestClient, store: MemoryStore
) -> None:
    span = tool_span()
    span.span_id = b"\x01\x02"
    response = client.post(
        "/v1/traces", content=protobuf_body(agent_span(), span), headers=PROTOBUF
    )
    assert response.status_code == 400
    assert "spanId" in response.json()["message"]
    assert store.pending == {}


def test_an_undecodable_protobuf_body_is_400(client: TestClient, store: MemoryStore) -> None:
    response = client.post("/v1/traces", content=b"\x0a\xff\xff\xff", headers=PROTOBUF)
    assert response.status_code == 400
    assert "not an OTLP protobuf ExportTraceServiceRequest" in response.json()["message"]
    assert store.pending == {}


def test_invalid_json_is_400(client: TestClient, store: MemoryStore) -> None:
    response = client.post("/v1/traces", content=b'{"resourceSpans": [', headers=JSON)
    assert response.status_code == 400
    assert response.json()["message"].startswith("POST /v1/traces")
    assert store.pending == {}


def test_a_span_id_twice_in_one_request_is_400(client: TestClient, store: MemoryStore) -> None:
    body = protobuf_body(agent_span(), tool_span(), tool_span(tool="other"))
    response = client.post("/v1/traces", content=body, headers=PROTOBUF)
    assert response.status_code == 400
    assert "appears twice in one request" in response.json()["message"]
    assert store.pending == {}


def test_a_body_that_is_not_gzip_is_400(client: TestClient, store: MemoryStore) -> None:
    response = client.post(
        "/v1/traces",
        content=protobuf_body(agent_span()),
        headers={**PROTOBUF, "Content-Encoding": "gzip"},
    )
    assert response.status_code == 400
    assert "gzip" in response.json()["message"]
    assert store.pending == {}


def _big_span(size: int) -> object:
    span = agent_span()
    span.attributes.append(string("padding", "x" * size))
    return span


def test_an_oversized_body_is_413(client: TestClient, store: MemoryStore) -> None:
    body = protobuf_body(_big_span(70 * 1024))
    response = client.post("/v1/traces", content=body, headers=PROTOBUF)
    assert response.status_code == 413
    assert "the declared Content-Length is" in response.json()["message"]
    assert store.pending == {}


def test_an_oversized_body_without_content_length_is_413(
    client: TestClient, store: MemoryStore
) -> None:
    body = protobuf_body(_big_span(70 * 1024))

    def chunks() -> object:
        for start in range(0, len(body), 8192):
            yield body[start : start + 8192]

    response = client.post("/v1/traces", content=chunks(), headers=PROTOBUF)  # type: ignore[arg-type]
    assert response.status_code == 413
    assert response.json()["message"] == "the body is over the limit of 65536 bytes"
    assert store.pending == {}


def test_a_gzip_bomb_is_413_after_bounded_decompression(
    client: TestClient, store: MemoryStore
) -> None:
    bomb = gzip.compress(b"\0" * (32 * 1024 * 1024), compresslevel=9)
    assert len(bomb) < 64 * 1024
    response = client.post(
        "/v1/traces", content=bomb, headers={**PROTOBUF, "Content-Encoding": "gzip"}
    )
    assert response.status_code == 413
    assert "after gunzip" in response.json()["message"]
    assert store.pending == {}


def test_a_body_just_under_the_limit_after_gunzip_is_accepted(
    client: TestClient, store: MemoryStore
) -> None:
    body = protobuf_body(_big_span(60 * 1024))
    assert len(body) < 64 * 1024
    response = client.post(
        "/v1/traces",
        content=gzip.compress(body),
        headers={**PROTOBUF, "Content-Encoding": "gzip"},
    )
    assert response.status_code == 200
    assert list(store.pending) == [(TRACE_A, ROOT)]


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-ndjson", None])
def test_an_unsupported_content_type_is_415(
    client: TestClient, store: MemoryStore, content_type: str | None
) -> None:
    headers = {} if content_type is None else {"Content-Type": content_type}
    response = client.post("/v1/traces", content=protobuf_body(agent_span()), headers=headers)
    assert response.status_code == 415
    assert "application/x-protobuf or application/json" in response.json()["message"]
    assert store.pending == {}


def test_an_unsupported_content_encoding_is_415(client: TestClient, store: MemoryStore) -> None:
    response = client.post(
        "/v1/traces",
        content=protobuf_body(agent_span()),
        headers={**PROTOBUF, "Content-Encoding": "br"},
    )
    assert response.status_code == 415
    assert "Content-Encoding 'br'" in response.json()["message"]
    assert store.pending == {}


def test_a_failing_store_never_gets_a_200_but_a_retryable_503(
    store: MemoryStore, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    store.fail_writes = True
    app = create_app(store, sweep_interval_s=None, clock=clock)
    with TestClient(app, base_url=RECEIVER_URL) as client:
        response = client.post("/v1/traces", content=protobuf_body(agent_span()), headers=PROTOBUF)
        assert response.status_code == 503
        assert response.headers["retry-after"] == "1"
        assert response.json() == {
            "code": 14,
            "message": "the store could not take the spans (OSError); nothing was stored:"
            " retry later",
        }
        assert store.add_calls == 1
        assert store.pending == {}
        assert "storing 1 received span(s) failed" in caplog.text
        assert "disk full" in caplog.text
        store.fail_writes = False  # the database is back: the exporter's retry is stored
        retried = client.post("/v1/traces", content=protobuf_body(agent_span()), headers=PROTOBUF)
        assert retried.status_code == 200
        assert list(store.pending) == [(TRACE_A, ROOT)]


def test_a_span_the_codec_cannot_keep_is_400_not_a_store_failure(
    client: TestClient, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(parts: SpanParts, span: RawSpan) -> tuple[bytes, bytes | None]:
        raise RecordError("cannot keep the span as JSON: too big", span_id=span.span_id)

    monkeypatch.setattr(SpanParts, "encode", refuse)
    response = client.post("/v1/traces", content=protobuf_body(agent_span()), headers=PROTOBUF)
    assert response.status_code == 400
    assert response.json()["message"] == (
        f"span {ROOT!r}: cannot keep the span as JSON: too big; nothing was stored"
    )
    assert store.add_calls == 0
