"""A real client: the OpenTelemetry SDK's own OTLP/gRPC exporter (opentelemetry-exporter-otlp-
proto-grpc, a dev dependency only) sending an instrumented agent run, gzip-compressed and with a
bearer token, to the receiver on 127.0.0.1 over a SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.serve.conftest import Clock
from tests.waiting import GUARD_S
from trailcheck.serve import GrpcReceiver, Intake, grpc_receiver, trace_service
from trailcheck.store import Store

TOKEN = "sdk-token"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[GrpcReceiver, Intake, Store]]:
    with Store.open(f"sqlite:///{tmp_path / 'grpc.db'}") as store:
        # A clock that stands still: the sweep the test calls completes the ended trace (settle
        # 0) whatever the wall clock does meanwhile.
        intake = Intake(store, idle_timeout_ns=300 * 10**9, clock=Clock())
        receiver = grpc_receiver(
            [trace_service(intake)],
            host="127.0.0.1",
            port=0,
            token=TOKEN,
            max_message_bytes=16 * 2**20,
        )
        receiver.start()
        try:
            yield receiver, intake, store
        finally:
            receiver.stop(0)


def _agent_run() -> tuple[str, tuple[ReadableSpan, ...]]:
    """One instrumented run, GenAI conventions: an agent span with a tool call under it."""
    recorded = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "shop-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(recorded))
    tracer = provider.get_tracer("tests")
    with tracer.start_as_current_span("invoke_agent support") as root:
        root.set_attributes(
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "support",
                "input.value": "refund order 42",
            }
        )
        with tracer.start_as_current_span("execute_tool lookup") as tool:
            tool.set_attributes(
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "lookup",
                    "gen_ai.tool.call.id": "call-1",
                }
            )
    provider.shutdown()
    spans = recorded.get_finished_spans()
    return format(root.get_span_context().trace_id, "032x"), spans


def _exporter(receiver: GrpcReceiver, token: str) -> OTLPSpanExporter:
    return OTLPSpanExporter(
        endpoint=receiver.address,
        insecure=True,
        headers={"authorization": f"Bearer {token}"},
        compression=grpc.Compression.Gzip,
        timeout=GUARD_S,  # a guard: the export is answered at once, or retried until then
    )


def test_the_sdks_grpc_exporter_delivers_a_run_that_becomes_a_stored_trace(
    served: tuple[GrpcReceiver, Intake, Store],
) -> None:
    receiver, intake, store = served
    trace_id, spans = _agent_run()
    exporter = _exporter(receiver, TOKEN)
    try:
        assert exporter.export(spans) == SpanExportResult.SUCCESS
    finally:
        exporter.shutdown()
    assert len(store.pending_payloads(trace_id)) == 2  # durable before the exporter's success
    assert trace_id in intake.sweep().stored
    trace = store.get_trace(trace_id)
    assert trace.input == "refund order 42"
    assert [call.name for call in trace.tool_calls] == ["lookup"]


def test_the_sdks_exporter_with_a_wrong_token_fails_and_nothing_is_stored(
    served: tuple[GrpcReceiver, Intake, Store],
) -> None:
    receiver, _, store = served
    trace_id, spans = _agent_run()
    exporter = _exporter(receiver, "wrong")
    try:
        assert exporter.export(spans) == SpanExportResult.FAILURE
    finally:
        exporter.shutdown()
    assert store.pending_payloads(trace_id) == []
