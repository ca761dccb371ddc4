"""GenAI log events joined to the spans they name, before the spans are assembled into traces.

A :class:`~trailcheck.importing.records.LogEvent` is appended to the events of the span with its
trace and span id, in input order (log records of one model call come in the order they were
emitted, which is the order of the conversation). An event whose span is not in the input is
counted, not rejected: the span may be in a file not imported, or dropped by the exporter.

Some instrumentations log a model call's messages against the step that wraps the call, not the
call's own span (OpenLLMetry's LangChain instrumentation with content as log events names the
LangGraph ``execute_task model`` span, whose one child is the ``chat`` span:
langgraph-1.2.24-traceloop-0.62.4-events in the conformance corpus). Log events joined to a span
that is not a model call, whose only model call child records no input messages of its own, are
that child's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from trailcheck.importing.records import IgnoredLogs, LogEvent, RawSpan, Rejection, SpanItem
from trailcheck.importing.spans import span_kind
from trailcheck.trace import semconv

__all__ = ["LogTally", "join_log_events"]


@dataclass(slots=True)
class LogTally:
    """What became of the log records of an input: ``joined`` to a span; GenAI events whose
    span is not in the input (``unjoined``) or that name no span (``unlinked``); and ``other``
    records, which are not GenAI events."""

    joined: int = 0
    unjoined: int = 0
    unlinked: int = 0
    other: int = 0

    @property
    def read(self) -> int:
        return self.joined + self.unjoined + self.unlinked + self.other


def join_log_events(
    items: Iterable[SpanItem], tally: LogTally | None = None
) -> list[RawSpan | Rejection]:
    """The spans and Rejections of ``items``, each LogEvent appended to its span's events."""
    tally = LogTally() if tally is None else tally
    kept: list[RawSpan | Rejection] = []
    events: list[LogEvent] = []
    for item in items:
        if isinstance(item, LogEvent):
            events.append(item)
        elif isinstance(item, IgnoredLogs):
            tally.other += item.other
            tally.unlinked += item.unlinked
        else:
            kept.append(item)
    if not events:
        return kept
    spans = {(s.trace_id, s.span_id): s for s in kept if isinstance(s, RawSpan)}
    joined: dict[tuple[str, str], list[LogEvent]] = {}
    for log in events:
        key = (log.trace_id, log.span_id)
        if key not in spans:
            tally.unjoined += 1
            continue
        joined.setdefault(key, []).append(log)
        tally.joined += 1
    model_calls = _model_calls_by_parent(spans.values()) if joined else {}
    for key, logs in joined.items():
        target = _model_call_of(spans[key], model_calls) or spans[key]
        target.events.extend(log.event for log in logs)
    return kept


def _model_calls_by_parent(spans: Iterable[RawSpan]) -> dict[tuple[str, str], list[RawSpan]]:
    by_parent: dict[tuple[str, str], list[RawSpan]] = {}
    for span in spans:
        if span.parent_id is not None and span_kind(span.attributes) == "llm":
            by_parent.setdefault((span.trace_id, span.parent_id), []).append(span)
    return by_parent


def _model_call_of(
    span: RawSpan, model_calls: dict[tuple[str, str], list[RawSpan]]
) -> RawSpan | None:
    """The model call ``span`` wraps when it is not one itself: its only model call child,
    when that records no input messages of its own."""
    children = model_calls.get((span.trace_id, span.span_id), [])
    if len(children) != 1 or span_kind(span.attributes) == "llm":
        return None
    return None if _records_input_messages(children[0]) else children[0]


def _records_input_messages(span: RawSpan) -> bool:
    attributes = span.attributes
    if semconv.GEN_AI_INPUT_MESSAGES in attributes:
        return True
    prefix = semconv.LLM_INPUT_MESSAGES + "."
    return any(key.startswith(prefix) for key in attributes)
