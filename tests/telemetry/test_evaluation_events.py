"""The ``gen_ai.evaluation.result`` record both report and online send: attributes typed and
in order, absent ones left out, W3C ids only, and the trailcheck resource and scope."""

from __future__ import annotations

from opentelemetry.proto.logs.v1.logs_pb2 import SEVERITY_NUMBER_INFO, SEVERITY_NUMBER_WARN

from tests.telemetry.otlp_receiver import attributes
from trailcheck import __version__
from trailcheck.telemetry import evaluation_record, explanation, logs_export_request

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


def test_a_record_keeps_the_attributes_given_typed_and_in_order() -> None:
    record = evaluation_record(
        {"b.text": "x", "a.count": 3, "c.rate": 0.25, "d.absent": None},
        now_ns=7,
        trace_id=TRACE_ID,
        span_id="00f067aa0ba902b7",
    )
    assert [pair.key for pair in record.attributes] == ["b.text", "a.count", "c.rate"]
    assert attributes(record) == {"b.text": "x", "a.count": 3, "c.rate": 0.25}
    assert record.attributes[1].value.WhichOneof("value") == "int_value"
    assert record.attributes[2].value.WhichOneof("value") == "double_value"
    assert (record.event_name, record.time_unix_nano, record.observed_time_unix_nano) == (
        "gen_ai.evaluation.result",
        7,
        7,
    )
    assert (record.trace_id.hex(), record.span_id.hex()) == (TRACE_ID, "00f067aa0ba902b7")
    assert (record.severity_number, record.severity_text) == (SEVERITY_NUMBER_INFO, "INFO")


def test_a_warning_without_ids_is_on_no_trace() -> None:
    record = evaluation_record({}, now_ns=1, trace_id="trace-1", severity="WARN")
    assert (record.severity_number, record.severity_text) == (SEVERITY_NUMBER_WARN, "WARN")
    assert (record.trace_id, record.span_id) == (b"", b"")


def test_the_request_names_the_trailcheck_service_and_scope() -> None:
    request = logs_export_request([evaluation_record({}, now_ns=1)] * 2)
    (resource,) = request.resource_logs
    assert attributes(resource.resource) == {"service.name": "trailcheck"}
    (scope,) = resource.scope_logs
    assert (scope.scope.name, scope.scope.version) == ("trailcheck", __version__)
    assert len(scope.log_records) == 2


def test_an_explanation_is_the_first_clause_and_short() -> None:
    assert explanation("recall 1/2=0.500; missing lookup_order") == "recall 1/2=0.500"
    assert len(explanation("x" * 500)) == 200
