"""trailcheck's own telemetry out: ``gen_ai.evaluation.result`` events as OTLP log records, and
posting them over OTLP/HTTP, best effort.

Shared by the report commands (a run's or a score's results, ``--emit-otel``) and online
alerting (a notice sent to ``otel``), which sit in different layers above this one.
"""

from trailcheck.telemetry.evaluation_events import (
    EVALUATION_RESULT_EVENT,
    evaluation_record,
    explanation,
    logs_export_request,
)
from trailcheck.telemetry.otlp_http import ExportOutcome, OtlpTarget, logs_target, post_logs

__all__ = [
    "EVALUATION_RESULT_EVENT",
    "ExportOutcome",
    "OtlpTarget",
    "evaluation_record",
    "explanation",
    "logs_export_request",
    "logs_target",
    "post_logs",
]
