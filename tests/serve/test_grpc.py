"""OTLP/gRPC: TraceService/Export on a real gRPC server on 127.0.0.1 (a port the OS picks), called
with grpcio's generated client, meaning what POST /v1/traces means: the same Intake, decoder,
messages and refusals, in gRPC status codes."""

from __future__ import annotations

import gzip
import math
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from fastapi.testclient import TestClient
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from tests.serve.conftest import IDLE_TIMEOUT_S, RECEIVER_URL, SECOND_NS, Clock
from tests.serve.memory_store import MemoryStore
from tests.serve.otlp_bodies import (
    LLM,
    ROOT,
    TOOL,
    TRACE_A,
    TRACE_B,
    agent_span,
    protobuf_body,
    string,
    tool_span,
)
from tests.waiting import GUARD_S
from trailcheck.errors import UsageError
from trailcheck.serve import Intake, create_app, grpc_receiver, serve_forever, trace_service

pytestmark = pytest.mark.live

TOKEN = "grpc-token"
AUTH = (("authorization", f"Bearer {TOKEN}"),)
MAX_BYTES = 64 * 1024
EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


@dataclass
class Receiver:
    """A running receiver over the memory store, and a client channel to it."""

    intake: Intake
    address: str
    channel: grpc.Channel

    def export(self, *spans: Any, metadata: Any = AUTH, **options: Any) -> Any:
        request = ExportTraceServiceRequest.FromString(protobuf_body(*spans))
        stub = TraceServiceStub(self.channel)
        return stub.Export(request, metadata=metadata, timeout=GUARD_S, **options)

    def export_bytes(self, payload: bytes, **options: Any) -> bytes:
        """Call Export with raw bytes, as a client whose payload is not protobuf would."""
        call = self.channel.unary_unary(EXPORT)
        reply: bytes = call(payload, metadata=AUTH, timeout=GUARD_S, **options)
        return reply

    def sweep(self) -> None:
        self.intake.sweep()


@pytest.fixture
def receiver(store: MemoryStore, clock: Clock) -> Iterator[Receiver]:
    intake = Intake(store, idle_timeout_ns=round(IDLE_TIMEOUT_S * SECOND_NS), clock=clock)
    running = grpc_receiver(
        [trace_service(intake)],
        host="127.0.0.1",
        port=0,
        token=TOKEN,
        max_message_bytes=MAX_BYTES,
    )
    running.start()
    try:
        with grpc.insecure_channel(running.address) as channel:
            yield Receiver(intake, running.address, channel)
    finally:
        running.stop(0)


def _refusal(call: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as raised:
        call()
    return raised.value


# --- accepted exports -------------------------------------------------------------------------


def test_an_export_is_stored_durably_and_assembled(
    receiver: Receiver, store: MemoryStore, clock: Clock
) -> None:
    reply = receiver.export(agent_span(), tool_span())
    assert isinstance(reply, ExportTraceServiceResponse)
    assert not reply.HasField("partial_success")
    # Durable before the answer: the rows are in the store when the call returns.
    assert sorted(span_id for _, span_id in store.pending) == [ROOT, TOOL]
    assert store.pending[(TRACE_A, ROOT)].received_ns == clock()
    receiver.sweep()
    trace = store.traces[TRACE_A]
    assert trace.input == "refund order 42"
    assert [call.name for call in trace.tool_calls] == ["lookup"]
    assert store.pending == {}


def test_a_gzip_compressed_export_is_accepted(receiver: Receiver, store: MemoryStore) -> None:
    reply = receiver.export(agent_span(), tool_span(), compression=grpc.Compression.Gzip)
    assert not reply.HasField("partial_success")
    receiver.sweep()
    assert len(store.traces[TRACE_A].spans) == 2


def test_a_late_span_is_reported_as_partial_success_as_over_http(
    receiver: Receiver, store: MemoryStore
) -> None:
    receiver.export(agent_span())
    receiver.sweep()
    reply = receiver.export(tool_span(span_id=LLM), agent_span(TRACE_B))
    assert reply.partial_success.rejected_spans == 1
    assert TRACE_A in reply.partial_success.error_message
    assert "after their trace was complete" in reply.partial_success.error_message
    assert list(store.pending) == [(TRACE_B, ROOT)]  # the rest of the request is stored
    assert len(store.traces[TRACE_A].spans) == 1


def test_a_retried_export_of_a_stored_trace_is_accepted(
    receiver: Receiver, store: MemoryStore
) -> None:
    receiver.export(agent_span(), tool_span())
    receiver.sweep()
    reply = receiver.export(agent_span(), tool_span())
    assert not reply.HasField("partial_success")
    assert store.pending == {}


def test_an_empty_export_is_accepted_and_stores_nothing(
    receiver: Receiver, store: MemoryStore
) -> None:
    assert receiver.export_bytes(b"") == b""
    assert store.add_calls == 0


# --- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize("metadata", [(), (("authorization", "Bearer wrong"),)])
def test_a_missing_or_wrong_token_is_unauthenticated_and_stores_nothing(
    receiver: Receiver, store: MemoryStore, metadata: Any
) -> None:
    error = _refusal(lambda: receiver.export(agent_span(), metadata=metadata))
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert error.details() == "missing or wrong bearer token"
    assert store.add_calls == 0
    assert receiver.export(agent_span()) is not None  # the right token is let in
    assert list(store.pending) == [(TRACE_A, ROOT)]


def test_the_read_only_token_is_permission_denied_and_stores_nothing(
    store: MemoryStore, clock: Clock
) -> None:
    intake = Intake(store, idle_timeout_ns=round(IDLE_TIMEOUT_S * SECOND_NS), clock=clock)
    running = grpc_receiver(
        [trace_service(intake)],
        host="127.0.0.1",
        port=0,
        token=TOKEN,
        read_token="l00k-only",
        max_message_bytes=MAX_BYTES,
    )
    running.start()
    try:
        with grpc.insecure_channel(running.address) as channel:
            both = Receiver(intake, running.address, channel)
            viewer = (("authorization", "Bearer l00k-only"),)
            error = _refusal(lambda: both.export(agent_span(), metadata=viewer))
            assert error.code() == grpc.StatusCode.PERMISSION_DENIED
            assert error.details() == (
                "this token is read-only; this request needs the read-write token"
            )
            assert store.add_calls == 0
            assert both.export(agent_span()) is not None  # the read-write token is let in
    finally:
        running.stop(0)
    assert list(store.pending) == [(TRACE_A, ROOT)]


def _nan_attribute_span() -> Any:
    span = tool_span()
    span.attributes.append(KeyValue(key="x", value=AnyValue(double_value=math.nan)))
    return span


def test_a_bad_span_is_invalid_argument_with_the_http_message_and_stores_nothing(
    receiver: Receiver, store: MemoryStore, clock: Clock
) -> None:
    error = _refusal(lambda: receiver.export(agent_span(), _nan_attribute_span()))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    field = "resourceSpans[0].scopeSpans[0].spans[1].attributes[3].value"
    assert error.details() == (
        f"{EXPORT}: span {TOOL!r}: field {field!r}: doubleValue nan is not finite and cannot"
        " be stored; nothing was stored"
    )
    assert store.add_calls == 0
    # Word for word what POST /v1/traces answers, but for the source it names.
    with TestClient(
        create_app(MemoryStore(), sweep_interval_s=None, clock=clock), base_url=RECEIVER_URL
    ) as client:
        body = protobuf_body(agent_span(), _nan_attribute_span())
        response = client.post(
            "/v1/traces", content=body, headers={"Content-Type": "application/x-protobuf"}
        )
    http_message = response.json()["message"]
    assert error.details() == http_message.replace("POST /v1/traces", EXPORT)


def test_a_bad_span_id_is_invalid_argument_naming_the_field(
    receiver: Receiver, store: MemoryStore
) -> None:
    span = tool_span()
    span.span_id = b"\x01\x02"
    error = _refusal(lambda: receiver.export(agent_span(), span))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "spans[1].spanId" in (error.details() or "")
    assert store.pending == {}


def test_a_payload_that_is_not_protobuf_is_invalid_argument_not_internal(
    receiver: Receiver, store: MemoryStore
) -> None:
    error = _refusal(lambda: receiver.export_bytes(b"\x0a\xff\xff\xff"))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not an OTLP protobuf ExportTraceServiceRequest" in (error.details() or "")
    assert store.add_calls == 0


def test_a_span_id_twice_in_one_request_is_invalid_argument(
    receiver: Receiver, store: MemoryStore
) -> None:
    error = _refusal(lambda: receiver.export(agent_span(), tool_span(), tool_span(tool="other")))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "appears twice in one request" in (error.details() or "")
    assert store.add_calls == 0


def _big_span(size: int) -> Any:
    span = agent_span()
    span.attributes.append(string("padding", "x" * size))
    return span


def test_an_oversized_message_is_resource_exhausted_and_stores_nothing(
    receiver: Receiver, store: MemoryStore
) -> None:
    error = _refusal(lambda: receiver.export(_big_span(70 * 1024)))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert store.add_calls == 0
    assert receiver.export(_big_span(60 * 1024)) is not None  # under the limit it is taken
    assert list(store.pending) == [(TRACE_A, ROOT)]


def test_a_gzip_bomb_is_resource_exhausted_by_the_limit_after_decompression(
    receiver: Receiver, store: MemoryStore
) -> None:
    payload = protobuf_body(_big_span(32 * 1024 * 1024))
    assert len(gzip.compress(payload)) < MAX_BYTES
    error = _refusal(lambda: receiver.export_bytes(payload, compression=grpc.Compression.Gzip))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert store.add_calls == 0


def test_a_failing_store_is_unavailable_and_the_retry_is_stored(
    receiver: Receiver, store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    store.fail_writes = True
    error = _refusal(lambda: receiver.export(agent_span()))
    assert error.code() == grpc.StatusCode.UNAVAILABLE  # OTLP exporters retry UNAVAILABLE
    assert error.details() == (
        "the store could not take the spans (OSError); nothing was stored: retry later"
    )
    assert "disk full" in caplog.text
    assert store.pending == {}
    store.fail_writes = False
    receiver.export(agent_span())
    assert list(store.pending) == [(TRACE_A, ROOT)]


# --- binding ----------------------------------------------------------------------------------


def test_beyond_loopback_without_a_token_is_refused_before_binding(store: MemoryStore) -> None:
    intake = Intake(store, idle_timeout_ns=0, clock=lambda: 0)
    with pytest.raises(UsageError, match=r"refusing to listen on '0\.0\.0\.0' without a token"):
        grpc_receiver(
            [trace_service(intake)], host="0.0.0.0", port=0, token=None, max_message_bytes=1
        )


def test_a_taken_port_is_a_usage_error(receiver: Receiver, store: MemoryStore) -> None:
    intake = Intake(store, idle_timeout_ns=0, clock=lambda: 0)
    taken = int(receiver.address.rsplit(":", 1)[1])
    with pytest.raises(
        UsageError, match=re.escape(f"cannot listen for OTLP/gRPC on {receiver.address}")
    ):
        grpc_receiver(
            [trace_service(intake)],
            host="127.0.0.1",
            port=taken,
            token=TOKEN,
            max_message_bytes=MAX_BYTES,
        )
    assert receiver.export(agent_span()) is not None  # the first receiver still serves


def test_serve_forever_stops_the_grpc_receiver_when_the_http_server_fails(
    store: MemoryStore, clock: Clock
) -> None:
    app = create_app(store, sweep_interval_s=None, clock=clock)
    running = grpc_receiver(
        [trace_service(app.state.intake)],
        host="127.0.0.1",
        port=0,
        token=None,
        max_message_bytes=MAX_BYTES,
    )
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        http_port = holder.getsockname()[1]
        with pytest.raises(SystemExit):  # uvicorn's answer to a port it cannot bind
            serve_forever(app, host="127.0.0.1", port=http_port, token=None, grpc=running)
    with grpc.insecure_channel(running.address) as channel:
        call = channel.unary_unary(EXPORT)
        error = _refusal(lambda: call(b"", timeout=GUARD_S))
    assert error.code() == grpc.StatusCode.UNAVAILABLE  # nothing listens there any more
    assert store.add_calls == 0
