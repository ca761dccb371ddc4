"""The OpenTelemetry ``gen_ai.evaluation.result`` event, as an OTLP log record: its attribute
names, its explanation, and the request that carries such records.

The event follows the GenAI semantic conventions: ``gen_ai.evaluation.name`` (what evaluated),
``gen_ai.evaluation.score.value``, ``gen_ai.evaluation.score.label`` (``pass`` or ``fail``) and
``gen_ai.evaluation.explanation``; ``error.type`` when the evaluation itself failed. The
record's ``event_name`` field names the event (the ``event.name`` attribute is deprecated in
favour of that field, so it is not set). Its trace and span ids are those of what was evaluated
when they are W3C hex; others are left empty. Every request names ``service.name`` trailcheck
and the trailcheck instrumentation scope with its version.

Scores of graded traces (:mod:`trailcheck.report.otel_results`) and online alert notices
(:mod:`trailcheck.online.delivery`) are both sent as these events, each adding its own
``trailcheck.*`` attributes. No prompt or answer content leaves this way: an explanation is only
a reason's first clause (:func:`explanation`), the arithmetic every reason starts with.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from importlib.metadata import version
from typing import Final, Literal

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import (
    SEVERITY_NUMBER_INFO,
    SEVERITY_NUMBER_WARN,
    LogRecord,
    ResourceLogs,
    ScopeLogs,
)
from opentelemetry.proto.resource.v1.resource_pb2 import Resource

__all__ = [
    "ERROR_TYPE",
    "EVALUATION_RESULT_EVENT",
    "GEN_AI_EVALUATION_EXPLANATION",
    "GEN_AI_EVALUATION_NAME",
    "GEN_AI_EVALUATION_SCORE_LABEL",
    "GEN_AI_EVALUATION_SCORE_VALUE",
    "LABEL_FAIL",
    "LABEL_PASS",
    "MAX_EXPLANATION",
    "SERVICE_NAME",
    "AttributeValue",
    "Severity",
    "evaluation_record",
    "explanation",
    "logs_export_request",
    "score_label",
]

EVALUATION_RESULT_EVENT: Final = "gen_ai.evaluation.result"
GEN_AI_EVALUATION_NAME: Final = "gen_ai.evaluation.name"
GEN_AI_EVALUATION_SCORE_VALUE: Final = "gen_ai.evaluation.score.value"
GEN_AI_EVALUATION_SCORE_LABEL: Final = "gen_ai.evaluation.score.label"
GEN_AI_EVALUATION_EXPLANATION: Final = "gen_ai.evaluation.explanation"
ERROR_TYPE: Final = "error.type"
SERVICE_NAME: Final = "service.name"

LABEL_PASS: Final = "pass"
LABEL_FAIL: Final = "fail"
# An explanation is one clause of arithmetic; anything longer is cut here.
MAX_EXPLANATION: Final = 200

AttributeValue = str | float | int
Severity = Literal["INFO", "WARN"]
_SEVERITY_NUMBERS: Final = {"INFO": SEVERITY_NUMBER_INFO, "WARN": SEVERITY_NUMBER_WARN}

_TRACE_ID = re.compile(r"[0-9a-fA-F]{32}")
_SPAN_ID = re.compile(r"[0-9a-fA-F]{16}")


def explanation(reason: str) -> str:
    """The first clause of ``reason``: its arithmetic, without what the rest may quote."""
    return reason.split(";", 1)[0].strip()[:MAX_EXPLANATION]


def score_label(passed: bool | None) -> str | None:
    """``pass``, ``fail``, or None when there is no verdict."""
    return None if passed is None else (LABEL_PASS if passed else LABEL_FAIL)


def _value(value: AttributeValue) -> AnyValue:
    if isinstance(value, str):
        return AnyValue(string_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    return AnyValue(double_value=value)


def _id_bytes(hex_id: str | None, pattern: re.Pattern[str]) -> bytes:
    """The OTLP bytes of a W3C hex id; empty for an id that is not one (or all zeros)."""
    if hex_id is None or not pattern.fullmatch(hex_id) or not hex_id.strip("0"):
        return b""
    return bytes.fromhex(hex_id)


def evaluation_record(
    attributes: Mapping[str, AttributeValue | None],
    *,
    now_ns: int,
    trace_id: str | None = None,
    span_id: str | None = None,
    severity: Severity = "INFO",
) -> LogRecord:
    """One ``gen_ai.evaluation.result`` record with ``attributes`` (those that are None left
    out, the others in order), at ``now_ns``, on the trace and span given."""
    return LogRecord(
        time_unix_nano=now_ns,
        observed_time_unix_nano=now_ns,
        severity_number=_SEVERITY_NUMBERS[severity],
        severity_text=severity,
        event_name=EVALUATION_RESULT_EVENT,
        trace_id=_id_bytes(trace_id, _TRACE_ID),
        span_id=_id_bytes(span_id, _SPAN_ID),
        attributes=[
            KeyValue(key=key, value=_value(value))
            for key, value in attributes.items()
            if value is not None
        ],
    )


def logs_export_request(records: Sequence[LogRecord]) -> ExportLogsServiceRequest:
    """One OTLP logs request holding ``records``, from the trailcheck service and scope."""
    resource = Resource(
        attributes=[KeyValue(key=SERVICE_NAME, value=AnyValue(string_value="trailcheck"))]
    )
    scope = InstrumentationScope(name="trailcheck", version=version("trailcheck"))
    return ExportLogsServiceRequest(
        resource_logs=[
            ResourceLogs(
                resource=resource, scope_logs=[ScopeLogs(scope=scope, log_records=records)]
            )
        ]
    )
