"""An ended OpenTelemetry SDK span as a :class:`~trailcheck.ingest.records.RawSpan`.

The values come out as the OTLP importers decode them, so a span reads the same whether it was
exported to a file or collected in-process: ids as lowercase hex (32 and 16 digits), attribute
arrays as lists, maps as dicts, bytes as base64 text; a non-finite float is rejected (trailcheck
stores traces as JSON, which cannot hold it), as are a span without a context or a start time.

A span whose parent is remote (the agent ran inside a request traced by another process) is the
root of what this process saw: it is read with no parent, and the remote parent's id is kept in
the attribute ``trailcheck.otel.remote_parent_id``, so the trace assembles from what is here
while still saying where it hangs in the distributed trace.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import StatusCode as OtelStatusCode

from trailcheck.errors import RecordError
from trailcheck.ingest.records import RawSpan
from trailcheck.trace import SpanEvent, StatusCode

REMOTE_PARENT_ATTRIBUTE: Final = "trailcheck.otel.remote_parent_id"

_STATUS_CODES: Final[Mapping[OtelStatusCode, StatusCode]] = {
    OtelStatusCode.UNSET: "unset",
    OtelStatusCode.OK: "ok",
    OtelStatusCode.ERROR: "error",
}


def is_local_root(span: ReadableSpan) -> bool:
    """True for a span with no parent in this process: no parent, or a remote one."""
    return span.parent is None or span.parent.is_remote


def raw_span_from_otel(span: ReadableSpan, source: str) -> RawSpan:
    """The RawSpan of an ended SDK span; :class:`RecordError` naming the field when it is bad."""
    context = span.context
    if context is None:
        raise RecordError("the span has no span context", source=source, field="context")
    span_id = f"{context.span_id:016x}"
    if span.start_time is None:
        raise RecordError(
            "the span has no start time", source=source, span_id=span_id, field="start_time"
        )
    attributes = _plain_mapping(span.attributes or {}, "attributes", source, span_id)
    parent_id: str | None = None
    if span.parent is not None:
        if span.parent.is_remote:
            attributes[REMOTE_PARENT_ATTRIBUTE] = f"{span.parent.span_id:016x}"
        else:
            parent_id = f"{span.parent.span_id:016x}"
    events = [
        SpanEvent(
            name=event.name,
            time_ns=event.timestamp,
            attributes=_plain_mapping(
                event.attributes or {}, f"events[{index}].attributes", source, span_id
            ),
        )
        for index, event in enumerate(span.events)
    ]
    scope = span.instrumentation_scope
    return RawSpan(
        trace_id=f"{context.trace_id:032x}",
        span_id=span_id,
        parent_id=parent_id,
        name=span.name,
        start_ns=span.start_time,
        end_ns=span.end_time,
        status_code=_STATUS_CODES[span.status.status_code],
        status_message=span.status.description,
        attributes=attributes,
        events=events,
        resource=_plain_mapping(span.resource.attributes, "resource", source, span_id),
        scope_name=scope.name if scope is not None else None,
    )


def _plain_mapping(
    values: Mapping[str, Any], path: str, source: str, span_id: str
) -> dict[str, Any]:
    return {key: _plain(value, f"{path}.{key}", source, span_id) for key, value in values.items()}


def _plain(value: Any, path: str, source: str, span_id: str) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, float) and not math.isfinite(value):
        raise RecordError(
            f"{value!r} is not finite and cannot be stored",
            source=source,
            span_id=span_id,
            field=path,
        )
    if isinstance(value, Mapping):
        return _plain_mapping(value, path, source, span_id)
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_plain(item, f"{path}[{i}]", source, span_id) for i, item in enumerate(value)]
    return value
