"""An ended OpenTelemetry SDK span as a :class:`~trailcheck.importing.records.RawSpan`.

The values come out as the OTLP importers decode them, so a span reads the same whether it was
exported to a file or collected in-process: ids as lowercase hex (32 and 16 digits), attribute
arrays as lists, maps as dicts, bytes as base64 text; a non-finite float is rejected (trailcheck
stores traces as JSON, which cannot hold it), as are a span without a context or a start time.

A span whose parent is remote (the agent ran inside a request traced by another process) is the
root of what this process saw: it is read with no parent, and the remote parent's id is kept in
the attribute ``trailcheck.otel.remote_parent_id``, so the trace assembles from what is here
while still saying where it hangs in the distributed trace.

What OTLP records beside the attributes is read too, into the RawSpan fields the importers fill
(kept as the reserved ``otel.*`` attributes of
:mod:`trailcheck.importing.transport.otel_attributes`):
the span kind, the W3C trace state, the flags as the OTLP exporters write them (the W3C trace flags
in bits 0-7; bit 8 set, since whether the parent is remote is known; bit 9 when it is), links
(each with its own context's flags), the dropped attribute, event and link counts (an event's in
its attributes), and the instrumentation scope's version, attributes and schema URL and the
resource's schema URL.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace import StatusCode as OtelStatusCode

from trailcheck.errors import RecordError
from trailcheck.importing.records import OtelSpanKind, RawSpan, SpanLink
from trailcheck.importing.transport.otel_attributes import event_attributes
from trailcheck.trace import SpanEvent, StatusCode, semconv

REMOTE_PARENT_ATTRIBUTE: Final = "trailcheck.otel.remote_parent_id"

# OTLP's SpanFlags: whether the parent's (or a link's) is_remote is known, and its value.
_HAS_IS_REMOTE: Final = 0x100
_IS_REMOTE: Final = 0x200

_SPAN_KINDS: Final[Mapping[SpanKind, OtelSpanKind]] = {
    SpanKind.INTERNAL: semconv.OTEL_SPAN_KIND_INTERNAL,
    SpanKind.SERVER: semconv.OTEL_SPAN_KIND_SERVER,
    SpanKind.CLIENT: semconv.OTEL_SPAN_KIND_CLIENT,
    SpanKind.PRODUCER: semconv.OTEL_SPAN_KIND_PRODUCER,
    SpanKind.CONSUMER: semconv.OTEL_SPAN_KIND_CONSUMER,
}

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
            attributes=event_attributes(
                _plain_mapping(
                    event.attributes or {}, f"events[{index}].attributes", source, span_id
                ),
                event.dropped_attributes,
                f"events[{index}].attributes",
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
        otel_kind=_SPAN_KINDS[span.kind],
        trace_state=context.trace_state.to_header() or None,
        flags=_flags(context.trace_flags, span.parent is not None and span.parent.is_remote),
        links=[
            _link(link, f"links[{index}]", source, span_id) for index, link in enumerate(span.links)
        ],
        dropped_attributes_count=span.dropped_attributes,
        dropped_events_count=span.dropped_events,
        dropped_links_count=span.dropped_links,
        scope_version=(scope.version or None) if scope is not None else None,
        scope_attributes=(
            _plain_mapping(scope.attributes or {}, "scope.attributes", source, span_id)
            if scope is not None
            else {}
        ),
        scope_schema_url=(scope.schema_url or None) if scope is not None else None,
        resource_schema_url=span.resource.schema_url or None,
    )


def _flags(trace_flags: int, is_remote: bool) -> int:
    """OTLP flags: the W3C trace flags, and whether the context they go with is remote (which
    is known here: bit 8)."""
    return trace_flags | _HAS_IS_REMOTE | (_IS_REMOTE if is_remote else 0)


def _link(link: Link, path: str, source: str, span_id: str) -> SpanLink:
    context = link.context
    return SpanLink(
        trace_id=f"{context.trace_id:032x}",
        span_id=f"{context.span_id:016x}",
        trace_state=context.trace_state.to_header() or None,
        attributes=_plain_mapping(link.attributes or {}, f"{path}.attributes", source, span_id),
        flags=_flags(context.trace_flags, context.is_remote),
        dropped_attributes_count=link.dropped_attributes,
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
