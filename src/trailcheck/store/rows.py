"""A trace as the rows the store keeps: its canonical content, its hash, the derived columns
that listing and filtering read, and on each span's row its score as a component call
(:func:`~trailcheck.components.score_spans`).

The canonical content is the trace's JSON with default-valued fields left out (as trailcheck
JSONL writes it) and object keys sorted, so two equal traces have the same bytes whatever the
order their attributes arrived in; its SHA-256 is the content hash that tells an identical
re-ingest (a no-op) from a conflicting one (refused). Numbers compare by their JSON text:
``25`` and ``25.0`` are different content.

PostgreSQL text cannot hold NUL; the canonical content escapes it (``\\u0000``), and the
derived text columns replace it with U+FFFD on both backends, so both store the same.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from trailcheck.components import SpanScore, score_spans
from trailcheck.store.limits import StoreLimitError, check_trace, content_json
from trailcheck.trace import Trace
from trailcheck.trace.session import session_id_from_metadata

__all__ = [
    "TraceRows",
    "canonical_content",
    "input_text",
    "score_columns",
    "session_column",
    "trace_rows",
]


@dataclass(frozen=True, slots=True)
class TraceRows:
    """The ``traces`` row of one trace and its ``spans`` rows."""

    trace_id: str
    content_hash: str
    trace: dict[str, Any]
    spans: list[dict[str, Any]]


def canonical_content(trace: Trace) -> bytes:
    """The trace's canonical JSON (see the module docstring); StoreLimitError when an integer
    in it cannot be written (:func:`~trailcheck.store.limits.content_json`)."""
    document = trace.model_dump(mode="json", exclude_defaults=True)
    try:
        return content_json(document)
    except StoreLimitError as error:
        raise StoreLimitError(f"trace {trace.trace_id!r}: {error.message}") from None


def _clean(text: str) -> str:
    return text.replace("\x00", "\ufffd") if "\x00" in text else text


def session_column(metadata: Mapping[str, Any]) -> str | None:
    """The ``session_id`` column of a trace with this metadata: its session
    (:mod:`trailcheck.trace.session`), cleaned like the other derived text."""
    found = session_id_from_metadata(metadata)
    return None if found is None else _clean(found)


def input_text(trace: Trace) -> str | None:
    """What the user asked: the input text, or the text of the user messages of the input."""
    if trace.input is None:
        return None
    if isinstance(trace.input, str):
        return _clean(trace.input)
    return _clean("\n".join(m.text for m in trace.input if m.role == "user" and m.text))


def _final_output(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return _clean(value)
    return _clean(orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode())


# The score columns of a span that is no component call.
_UNSCORED: dict[str, Any] = {
    "component": None,
    "outcome": None,
    "latency_ms": None,
    "error_kind": None,
    "scores": None,
    "reason": None,
}


def score_columns(score: SpanScore | None) -> dict[str, Any]:
    """The score columns of a span's row: its score as a component call, or NULLs."""
    if score is None:
        return _UNSCORED
    return {
        "component": _clean(score.component),
        "outcome": score.outcome,
        "latency_ms": score.latency_ms,
        "error_kind": None if score.error_kind is None else _clean(score.error_kind),
        "scores": orjson.dumps(score.values).decode(),
        "reason": _clean(score.reason),
    }


def trace_rows(trace: Trace, ingested_ns: int) -> TraceRows:
    """The rows of ``trace``, ingested at ``ingested_ns``; StoreLimitError, naming the span and
    field, when the store cannot hold one of its integers (:mod:`trailcheck.store.limits`)."""
    check_trace(trace)
    content = canonical_content(trace)
    digest = hashlib.sha256(content).hexdigest()
    scores = {score.span_id: score for score in score_spans(trace)}
    span_rows: list[dict[str, Any]] = []
    tools: list[str] = []
    started: int | None = None
    ended: int | None = None
    for span in trace.spans:
        tool_name = span.tool.name if span.tool is not None else None
        if tool_name is not None and tool_name not in tools:
            tools.append(tool_name)
        started = span.start_ns if started is None else min(started, span.start_ns)
        if span.end_ns is not None:
            ended = span.end_ns if ended is None else max(ended, span.end_ns)
        span_rows.append(
            {
                "trace_id": trace.trace_id,
                "span_id": span.span_id,
                "parent_id": span.parent_id,
                "name": _clean(span.name),
                "kind": span.kind,
                "tool_name": tool_name,
                "start_ns": span.start_ns,
                "end_ns": span.end_ns,
                "status": span.status.code,
                **score_columns(scores.get(span.span_id)),
            }
        )
    row = {
        "trace_id": trace.trace_id,
        "content_hash": digest,
        "content": content.decode(),
        "input_text": input_text(trace),
        "final_output": _final_output(trace.final_output),
        "started_ns": started,
        "ended_ns": ended,
        "tool_names": f" {' '.join(tools)} " if tools else " ",
        "span_count": len(span_rows),
        "ingested_ns": ingested_ns,
        "session_id": session_column(trace.metadata),
    }
    return TraceRows(trace.trace_id, digest, row, span_rows)
