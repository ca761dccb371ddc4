"""Scores as ``gen_ai.evaluation.result`` log records: attributes, ids, resource, no content."""

from __future__ import annotations

from dataclasses import replace

import pytest
from opentelemetry.proto.logs.v1.logs_pb2 import SEVERITY_NUMBER_INFO

from tests.report.evaluated import ANSWER, INPUT, ROOT_ID, TRACE_ID, hex_trace
from tests.telemetry.otlp_receiver import attributes, running_receiver
from tests.waiting import GUARD_S
from trailcheck import __version__
from trailcheck.cases import Case
from trailcheck.report.otel_results import (
    EvaluationResult,
    emit_results,
    explanation,
    grade_results,
    logs_request,
)
from trailcheck.scorers import Grade, Score, ScorerFailure, grade
from trailcheck.telemetry.otlp_http import logs_target

pytestmark = pytest.mark.live


def test_a_score_becomes_one_info_event_on_the_root_span() -> None:
    score = Score(
        scorer="trajectory",
        value=0.5,
        passed=False,
        threshold=1.0,
        reason="in_order recall 1/2=0.500; missing lookup_order",
    )
    graded = Grade(trace_id=TRACE_ID, case_id="refund", status="failed", scores=(score,), reason="")
    request = logs_request(grade_results(hex_trace(), graded), run_id="r1", now_ns=42)
    (resource,) = request.resource_logs
    assert attributes(resource.resource) == {"service.name": "trailcheck"}
    (scope,) = resource.scope_logs
    assert (scope.scope.name, scope.scope.version) == ("trailcheck", __version__)
    (record,) = scope.log_records
    assert record.event_name == "gen_ai.evaluation.result"
    assert (record.severity_number, record.severity_text) == (SEVERITY_NUMBER_INFO, "INFO")
    assert record.time_unix_nano == record.observed_time_unix_nano == 42
    assert record.trace_id.hex() == TRACE_ID
    assert record.span_id.hex() == ROOT_ID
    assert attributes(record) == {
        "gen_ai.evaluation.name": "trajectory",
        "gen_ai.evaluation.score.value": 0.5,
        "gen_ai.evaluation.score.label": "fail",
        "gen_ai.evaluation.explanation": "in_order recall 1/2=0.500",
        "trailcheck.case.id": "refund",
        "trailcheck.run.id": "r1",
        "trailcheck.trace.id": TRACE_ID,
        "trailcheck.score.threshold": 1.0,
    }


def test_a_scorer_that_raised_is_sent_with_its_error_type_and_no_score() -> None:
    failure = ScorerFailure(scorer="custom", error_type="KeyError", message=INPUT, traceback="")
    graded = Grade(
        trace_id=TRACE_ID, case_id="refund", status="unscorable", failures=(failure,), reason=""
    )
    (record,) = (
        logs_request(grade_results(hex_trace(), graded), run_id="r1")
        .resource_logs[0]
        .scope_logs[0]
        .log_records
    )
    found = attributes(record)
    assert found["error.type"] == "KeyError"
    assert "gen_ai.evaluation.score.value" not in found
    assert "gen_ai.evaluation.score.label" not in found
    assert INPUT.encode() not in record.SerializeToString()


def test_ids_that_are_not_w3c_hex_leave_the_record_unparented() -> None:
    result = EvaluationResult(name="state", case_id="c", trace_id="trace-1", span_id="span-000")
    (record,) = logs_request([result], run_id="r").resource_logs[0].scope_logs[0].log_records
    assert (record.trace_id, record.span_id) == (b"", b"")
    assert attributes(record)["trailcheck.trace.id"] == "trace-1"
    zeros = EvaluationResult(name="state", case_id="c", trace_id="0" * 32, span_id="0" * 16)
    (record,) = logs_request([zeros], run_id="r").resource_logs[0].scope_logs[0].log_records
    assert (record.trace_id, record.span_id) == (b"", b"")


def test_the_explanation_is_the_arithmetic_not_what_the_reason_quotes() -> None:
    case = Case.model_validate(
        {"id": "refund", "input": INPUT, "reference_response": "Refund issued."}
    )
    graded = grade(hex_trace(), case)
    (response,) = [score for score in graded.scores if score.scorer == "response"]
    assert ANSWER.lower().rstrip(".") in response.reason.lower()  # the report keeps it
    (sent,) = [r for r in grade_results(hex_trace(), graded) if r.name == "response"]
    assert sent.explanation == "response 0/1=0.000"
    assert explanation("x" * 500 + "; y") == "x" * 200


def test_no_input_or_answer_text_in_the_exported_bytes() -> None:
    case = Case.model_validate(
        {
            "id": "refund",
            "input": INPUT,
            "expected_tools": ["lookup_order", "issue_refund"],
            "expected_arguments": [{"tool": "issue_refund", "arguments": {"order_id": "A-2"}}],
            "reference_response": "Refund issued.",
        }
    )
    trace = hex_trace()
    graded = grade(trace, case)
    reasons = " ".join(score.reason for score in graded.scores)
    assert "88812" in reasons  # the reasons quote the answer; the records must not
    body = logs_request(grade_results(trace, graded), run_id="r").SerializeToString()
    assert len(graded.scores) >= 4
    for text in (INPUT, ANSWER, ANSWER.lower(), "88812", "4242", "129.00", "A-1"):
        assert text.encode() not in body


def test_records_go_in_batches() -> None:
    results = [
        EvaluationResult(name="state", case_id=f"c{i}", trace_id=TRACE_ID, span_id=ROOT_ID)
        for i in range(5)
    ]
    with running_receiver() as receiver:
        target = replace(logs_target(receiver.endpoint), timeout_s=GUARD_S)  # a guard, not 10 s
        outcome = emit_results(results, target, run_id="r", batch_size=2)
    assert (outcome.sent, outcome.total, outcome.problem) == (5, 5, None)
    assert [
        len(r.request().resource_logs[0].scope_logs[0].log_records) for r in receiver.received
    ] == [2, 2, 1]
    assert [attributes(r)["trailcheck.case.id"] for r in receiver.records()] == [
        f"c{i}" for i in range(5)
    ]
