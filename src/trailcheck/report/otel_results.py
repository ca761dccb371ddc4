"""Scores back into the telemetry pipeline: one OpenTelemetry ``gen_ai.evaluation.result`` event
per score, parented to the span it grades, sent as OTLP log records.

The event and its request are :mod:`trailcheck.telemetry.evaluation_events`'s:
``gen_ai.evaluation.name`` is the scorer, with the score's value, its label (``pass`` or
``fail``) and its explanation; a scorer that raised is sent with ``error.type`` and no score.
Its trace and span ids are the graded trace's and its root span's, so a backend shows the
verdict on the run it judges; ids that are not W3C hex are left empty, and
``trailcheck.trace.id`` always names the trace.

No prompt or answer content leaves this way. A reason can quote the answer (the response
scorer's ``got "..."``), argument values or a judge's evidence, so the explanation is only its
first clause, the arithmetic every reason starts with (``in_order recall 2/3=0.667``); the full
reason stays in the report.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from trailcheck.run.runner import RunResult
from trailcheck.scorers import Grade, Score, ScorerFailure
from trailcheck.telemetry.evaluation_events import (
    ERROR_TYPE,
    EVALUATION_RESULT_EVENT,
    GEN_AI_EVALUATION_EXPLANATION,
    GEN_AI_EVALUATION_NAME,
    GEN_AI_EVALUATION_SCORE_LABEL,
    GEN_AI_EVALUATION_SCORE_VALUE,
    AttributeValue,
    evaluation_record,
    explanation,
    logs_export_request,
    score_label,
)
from trailcheck.telemetry.otlp_http import BATCH_SIZE, ExportOutcome, OtlpTarget, post_logs
from trailcheck.trace import Trace

__all__ = [
    "EVALUATION_RESULT_EVENT",
    "EvaluationResult",
    "emit_results",
    "explanation",
    "grade_results",
    "logs_request",
    "new_run_id",
    "trial_results",
]

# --- trailcheck's own attributes of a score --------------------------------------------------

TRAILCHECK_CASE_ID = "trailcheck.case.id"
TRAILCHECK_RUN_ID = "trailcheck.run.id"
TRAILCHECK_TRACE_ID = "trailcheck.trace.id"
TRAILCHECK_TRIAL_ATTEMPT = "trailcheck.trial.attempt"
TRAILCHECK_SCORE_THRESHOLD = "trailcheck.score.threshold"


@dataclass(frozen=True, slots=True)
class EvaluationResult:
    """One score of one graded trace (or one scorer that raised: ``error_type``, no value), as
    it is exported. Holds ids, numbers and the explanation only, never trace content."""

    name: str
    case_id: str
    trace_id: str
    span_id: str | None
    value: float | None = None
    passed: bool | None = None
    threshold: float | None = None
    explanation: str | None = None
    error_type: str | None = None
    attempt: int | None = None


def new_run_id() -> str:
    """A fresh id for one command's results (32 hex characters), so they can be grouped."""
    return uuid.uuid4().hex


def _from_scores(
    scores: Sequence[Score],
    failures: Sequence[ScorerFailure],
    *,
    case_id: str,
    trace: Trace | None,
    trace_id: str,
    attempt: int | None = None,
) -> list[EvaluationResult]:
    root = None if trace is None else trace.tree.root
    span_id = None if root is None else root.span_id
    results = [
        EvaluationResult(
            name=score.scorer,
            case_id=case_id,
            trace_id=trace_id,
            span_id=span_id,
            value=score.value,
            passed=score.passed,
            threshold=score.threshold,
            explanation=explanation(score.reason),
            attempt=attempt,
        )
        for score in scores
    ]
    results += [
        EvaluationResult(
            name=failure.scorer,
            case_id=case_id,
            trace_id=trace_id,
            span_id=span_id,
            error_type=failure.error_type,
            attempt=attempt,
        )
        for failure in failures
    ]
    return results


def grade_results(trace: Trace, grade: Grade) -> list[EvaluationResult]:
    """The results of ``grade``, anchored on ``trace`` (the trace it graded)."""
    return _from_scores(
        grade.scores,
        grade.failures,
        case_id=grade.case_id,
        trace=trace,
        trace_id=grade.trace_id,
    )


def trial_results(result: RunResult) -> list[EvaluationResult]:
    """The results of every scored trial of a run, in report order, anchored on its trace."""
    traces = {trace.trace_id: trace for trace in result.traces}
    results: list[EvaluationResult] = []
    for trial in result.report.trials():
        if trial.trace_id is None:
            continue  # no trace, nothing was graded
        results += _from_scores(
            trial.scores,
            trial.scorer_failures,
            case_id=trial.case_id,
            trace=traces.get(trial.trace_id),
            trace_id=trial.trace_id,
            attempt=trial.attempt,
        )
    return results


def _attributes(result: EvaluationResult, run_id: str) -> dict[str, AttributeValue | None]:
    return {
        GEN_AI_EVALUATION_NAME: result.name,
        GEN_AI_EVALUATION_SCORE_VALUE: None if result.value is None else float(result.value),
        GEN_AI_EVALUATION_SCORE_LABEL: score_label(result.passed),
        GEN_AI_EVALUATION_EXPLANATION: result.explanation,
        ERROR_TYPE: result.error_type,
        TRAILCHECK_CASE_ID: result.case_id,
        TRAILCHECK_RUN_ID: run_id,
        TRAILCHECK_TRACE_ID: result.trace_id,
        TRAILCHECK_TRIAL_ATTEMPT: result.attempt,
        TRAILCHECK_SCORE_THRESHOLD: None if result.threshold is None else float(result.threshold),
    }


def logs_request(
    results: Sequence[EvaluationResult], *, run_id: str, now_ns: int | None = None
) -> ExportLogsServiceRequest:
    """One OTLP logs request holding one ``gen_ai.evaluation.result`` record per result."""
    now = time.time_ns() if now_ns is None else now_ns
    return logs_export_request(
        [
            evaluation_record(
                _attributes(result, run_id),
                now_ns=now,
                trace_id=result.trace_id,
                span_id=result.span_id,
            )
            for result in results
        ]
    )


def _batches(
    results: Sequence[EvaluationResult], run_id: str, size: int
) -> Iterator[tuple[int, bytes]]:
    for start in range(0, len(results), size):
        batch = results[start : start + size]
        yield len(batch), logs_request(batch, run_id=run_id).SerializeToString()


def emit_results(
    results: Sequence[EvaluationResult],
    target: OtlpTarget,
    *,
    run_id: str,
    batch_size: int = BATCH_SIZE,
) -> ExportOutcome:
    """Send ``results`` to ``target``, ``batch_size`` records a request. Best effort: never
    raises for the network or the receiver; the outcome says what was sent, or one warning."""
    return post_logs(target, _batches(results, run_id, batch_size), total=len(results))
