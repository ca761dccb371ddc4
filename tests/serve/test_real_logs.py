"""A real recording sent as its SDK sends it: the official OpenAI instrumentation's spans and its
GenAI log records (its default mode puts the messages in log records), posted to a live server
over loopback (and sent over gRPC), in either order, into the real store (SQLite, and PostgreSQL
when one is running). The stored traces must equal what ``trailcheck import`` makes of the same
two files; a restart between the posts and the sweep loses nothing; a bad record stores nothing.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import pytest
from fastapi import FastAPI
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.logs.v1.logs_service_pb2_grpc import LogsServiceStub
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

from tests.serve.conftest import Clock
from tests.serve.live_server import live_server
from tests.serve.otlp_bodies import (
    REAL_PAIR,
    REFUND_ANSWER,
    REFUND_INPUT,
    imported_traces,
    real_body,
    refund_of,
)
from tests.waiting import GUARD_S
from trailcheck.serve import Intake, create_app, grpc_receiver, logs_service, trace_service
from trailcheck.store import Store
from trailcheck.trace import Trace

pytestmark = pytest.mark.live

SETTLE_S = 2.0
IDLE_TIMEOUT_S = 300.0
CONTENT_TYPES = {"protobuf": "application/x-protobuf", "json": "application/json"}
BOTH_ORDERS = [("traces", "logs"), ("logs", "traces")]


@dataclass
class Live:
    """A live server over a real store: the store, the server's clock and Intake, its URL."""

    store: Store
    clock: Clock
    intake: Intake
    base: str

    def post(
        self, signal: str, body: bytes, encoding: str = "protobuf", gzipped: bool = False
    ) -> httpx.Response:
        return _post(f"{self.base}/v1/{signal}", body, encoding, gzipped)

    def sweep(self) -> list[str]:
        return self.intake.sweep().stored


def _post(
    url: str, body: bytes, encoding: str = "protobuf", gzipped: bool = False
) -> httpx.Response:
    headers = {"Content-Type": CONTENT_TYPES[encoding]}
    if gzipped:
        body, headers["Content-Encoding"] = gzip.compress(body), "gzip"
    return httpx.post(url, content=body, headers=headers, timeout=GUARD_S)


def _app(store: Store, clock: Clock) -> FastAPI:
    return create_app(
        store, idle_timeout_s=IDLE_TIMEOUT_S, settle_s=SETTLE_S, sweep_interval_s=None, clock=clock
    )


@pytest.fixture
def live(store_url: str) -> Iterator[Live]:
    clock = Clock()
    with Store.open(store_url) as store:
        app = _app(store, clock)
        with live_server(app) as base:
            yield Live(store, clock, app.state.intake, base)


def _stored(store: Store, expected: dict[str, Trace]) -> dict[str, Trace]:
    return {trace_id: store.get_trace(trace_id) for trace_id in expected}


def _check_refund(trace: Trace) -> None:
    assert trace.input_text == REFUND_INPUT
    assert trace.final_text == REFUND_ANSWER
    calls = trace.tool_calls
    assert [call.name for call in calls] == ["lookup_order", "verify_identity", "issue_refund"]
    assert all(call.result is not None and call.succeeded for call in calls)


@pytest.mark.parametrize("order", BOTH_ORDERS, ids="-then-".join)
@pytest.mark.parametrize(
    ("encoding", "gzipped"), [("protobuf", False), ("json", False), ("protobuf", True)]
)
def test_the_recorded_spans_and_log_records_become_the_traces_import_makes(
    live: Live, order: tuple[str, str], encoding: str, gzipped: bool, tmp_path: Path
) -> None:
    bodies = {signal: real_body(signal, encoding) for signal in order}
    suffix = "pb" if encoding == "protobuf" else "json"
    for signal, body in bodies.items():  # the same two files, for trailcheck import
        (tmp_path / f"{REAL_PAIR}.{signal}.{suffix}").write_bytes(body)
    expected = imported_traces(tmp_path, suffix)
    for signal in order:
        response = live.post(signal, bodies[signal], encoding, gzipped)
        assert response.status_code == 200, response.text
        assert response.content in (b"", b"{}")  # nothing refused, nothing late
        assert live.sweep() == []  # the roots ended, but the trace settles first
    live.clock.advance(SETTLE_S)
    assert sorted(live.sweep()) == sorted(expected)
    stored = _stored(live.store, expected)
    assert stored == expected
    assert stored == imported_traces()  # and what the recorded protobuf files make
    _check_refund(refund_of(stored))
    for trace_id in expected:
        assert live.store.pending_payloads(trace_id) == []
        assert live.store.pending_log_payloads(trace_id) == []
    # The exporter retries both (its answers were lost): the stored traces hold every record.
    for signal in order:
        retried = live.post(signal, bodies[signal], encoding, gzipped)
        assert retried.status_code == 200
        assert retried.content in (b"", b"{}")
    assert live.store.ready_pending(live.clock() + 10**15, 0) == []


def test_log_records_after_their_trace_was_stored_are_late(live: Live) -> None:
    assert live.post("traces", real_body("traces")).status_code == 200
    live.clock.advance(SETTLE_S)
    stored_ids = live.sweep()
    assert len(stored_ids) == 4  # refund, missing_order, two_turns' two user turns
    without_logs = live.store.get_trace(refund_of(imported_traces()).trace_id)
    assert without_logs.input is None  # the messages were in the log records
    response = live.post("logs", real_body("logs"))
    assert response.status_code == 200
    reply = ExportLogsServiceResponse.FromString(response.content)
    assert reply.partial_success.rejected_log_records == 60
    message = reply.partial_success.error_message
    assert "60 GenAI log record(s) arrived after their trace was complete" in message
    # The message names three traces, then counts the others.
    assert all(trace_id in message for trace_id in sorted(stored_ids)[:3])
    assert "and 1 more" in message
    assert live.store.ready_pending(live.clock() + 10**15, 0) == []
    assert live.store.get_trace(without_logs.trace_id) == without_logs


def test_a_malformed_genai_record_refuses_the_export_and_stores_nothing(live: Live) -> None:
    request = ExportLogsServiceRequest.FromString(real_body("logs"))
    request.resource_logs[0].scope_logs[0].log_records[4].span_id = b"\x00\x01\x02"
    response = live.post("logs", request.SerializeToString())
    assert response.status_code == 400
    message = response.json()["message"]
    assert message.startswith(
        "POST /v1/logs: field 'resourceLogs[0].scopeLogs[0].logRecords[4].spanId'"
    )
    assert message.endswith("nothing was stored")
    for trace_id in imported_traces():
        assert live.store.pending_log_payloads(trace_id) == []


@pytest.mark.parametrize("order", BOTH_ORDERS, ids="-then-".join)
def test_a_restart_between_the_posts_and_the_sweep_loses_nothing(
    store_url: str, order: tuple[str, str]
) -> None:
    """The first signal goes to one server, which stops; the second to a new server over the
    same database (a new Store too, as after a process restart), which completes the traces."""
    expected = imported_traces()
    clock = Clock()
    first, second = order
    with Store.open(store_url) as store, live_server(_app(store, clock)) as base:
        assert _post(f"{base}/v1/{first}", real_body(first)).status_code == 200
    with Store.open(store_url) as store, live_server(_app(store, clock)) as base:
        assert _post(f"{base}/v1/{second}", real_body(second)).status_code == 200
    clock.advance(SETTLE_S)
    with Store.open(store_url) as store:
        with live_server(_app(store, clock)):
            pass  # the startup sweep of a third server
        assert _stored(store, expected) == expected


def test_logs_posted_then_a_restart_before_any_span_loses_nothing(store_url: str) -> None:
    expected = imported_traces()
    clock = Clock()
    with Store.open(store_url) as store, live_server(_app(store, clock)) as base:
        assert _post(f"{base}/v1/logs", real_body("logs")).status_code == 200
    clock.advance(SETTLE_S)  # nothing to settle: no span, and far from idle
    with Store.open(store_url) as store:
        app = _app(store, clock)
        with live_server(app) as base:
            assert app.state.intake.sweep().stored == []
            assert _post(f"{base}/v1/traces", real_body("traces")).status_code == 200
            clock.advance(SETTLE_S)
            assert sorted(app.state.intake.sweep().stored) == sorted(expected)
        assert _stored(store, expected) == expected


# --- OTLP/gRPC --------------------------------------------------------------------------------


@pytest.fixture
def grpc_call(
    store_url: str,
) -> Iterator[tuple[Store, Clock, grpc.Channel, Callable[[], list[str]]]]:
    clock = Clock()
    with Store.open(store_url) as store:
        app = _app(store, clock)
        intake = app.state.intake
        running = grpc_receiver(
            [trace_service(intake), logs_service(intake)],
            host="127.0.0.1",
            port=0,
            token=None,
            max_message_bytes=16 * 2**20,
        )
        running.start()
        try:
            with grpc.insecure_channel(running.address) as channel:
                yield store, clock, channel, lambda: list(intake.sweep().stored)
        finally:
            running.stop(0)


@pytest.mark.parametrize("order", BOTH_ORDERS, ids="-then-".join)
def test_the_grpc_logs_service_joins_the_records_as_over_http(
    grpc_call: tuple[Store, Clock, grpc.Channel, Callable[[], list[str]]], order: tuple[str, str]
) -> None:
    store, clock, channel, sweep = grpc_call
    expected = imported_traces()
    for signal in order:
        if signal == "logs":
            request = ExportLogsServiceRequest.FromString(real_body("logs"))
            reply = LogsServiceStub(channel).Export(
                request, timeout=GUARD_S, compression=grpc.Compression.Gzip
            )
            assert isinstance(reply, ExportLogsServiceResponse)
        else:
            spans = ExportTraceServiceRequest.FromString(real_body("traces"))
            reply = TraceServiceStub(channel).Export(spans, timeout=GUARD_S)
        assert not reply.HasField("partial_success")
    assert sweep() == []
    clock.advance(SETTLE_S)
    assert sorted(sweep()) == sorted(expected)
    assert _stored(store, expected) == expected
    _check_refund(refund_of(expected))


def test_the_grpc_logs_service_refuses_a_malformed_record_with_invalid_argument(
    grpc_call: tuple[Store, Clock, grpc.Channel, Callable[[], list[str]]],
) -> None:
    store, _, channel, _ = grpc_call
    request = ExportLogsServiceRequest.FromString(real_body("logs"))
    request.resource_logs[0].scope_logs[0].log_records[2].trace_id = b"\x01"
    with pytest.raises(grpc.RpcError) as raised:
        LogsServiceStub(channel).Export(request, timeout=GUARD_S)
    error = raised.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (error.details() or "").startswith(
        "/opentelemetry.proto.collector.logs.v1.LogsService/Export: field"
        " 'resourceLogs[0].scopeLogs[0].logRecords[2].traceId'"
    )
    for trace_id in imported_traces():
        assert store.pending_log_payloads(trace_id) == []
