"""The reserved ``otel.*`` attributes: what OTLP records beside a span's attributes, kept on the
span so an import loses none of it.

OTLP gives a span a kind (client, server, ...), a W3C trace state and flags, links to other
spans, counts of the attributes, events and links the SDK dropped, and an instrumentation scope
(name, version, attributes) and resource with details of their own. trailcheck's
:class:`~trailcheck.trace.Span` has no field for these, so :func:`otel_attributes` writes them
under the names in :mod:`trailcheck.trace.semconv` (``otel.span.kind``, ``otel.links``, ...),
each only when the source records it (a count only when it is not 0). An event's dropped
attribute count goes into that event's attributes, as ``otel.dropped_attributes_count``.

A source attribute can carry one of these names itself (a span converted from Zipkin or Jaeger
often has ``otel.scope.name``). When its value is the one OTLP records, nothing is lost and it is
kept; when the two differ, keeping either would silently drop the other, so the span is rejected
(:func:`with_reserved`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from trailcheck.errors import RecordError
from trailcheck.importing.records import RawSpan, SpanLink
from trailcheck.importing.transport.otlp_values import shown
from trailcheck.trace import semconv

_WHAT: Final[Mapping[str, str]] = {
    semconv.OTEL_SPAN_KIND: "OpenTelemetry span kind",
    semconv.OTEL_TRACE_STATE: "trace state",
    semconv.OTEL_FLAGS: "trace flags",
    semconv.OTEL_LINKS: "links",
    semconv.OTEL_DROPPED_ATTRIBUTES_COUNT: "dropped attribute count",
    semconv.OTEL_DROPPED_EVENTS_COUNT: "dropped event count",
    semconv.OTEL_DROPPED_LINKS_COUNT: "dropped link count",
    semconv.OTEL_SCOPE_NAME: "instrumentation scope name",
    semconv.OTEL_SCOPE_VERSION: "instrumentation scope version",
    semconv.OTEL_SCOPE_ATTRIBUTES: "instrumentation scope attributes",
    semconv.OTEL_SCOPE_DROPPED_ATTRIBUTES_COUNT: "scope's dropped attribute count",
    semconv.OTEL_SCOPE_SCHEMA_URL: "scope's schema URL",
    semconv.OTEL_RESOURCE_DROPPED_ATTRIBUTES_COUNT: "resource's dropped attribute count",
    semconv.OTEL_RESOURCE_SCHEMA_URL: "resource's schema URL",
}


def otel_attributes(raw: RawSpan) -> dict[str, Any]:
    """The reserved attributes of what ``raw`` records beyond trailcheck's Span fields."""
    found: dict[str, Any] = {}
    if raw.otel_kind is not None:
        found[semconv.OTEL_SPAN_KIND] = raw.otel_kind
    _set_text(found, semconv.OTEL_TRACE_STATE, raw.trace_state)
    _set_count(found, semconv.OTEL_FLAGS, raw.flags)
    if raw.links:
        found[semconv.OTEL_LINKS] = [link_attribute(link) for link in raw.links]
    _set_count(found, semconv.OTEL_DROPPED_ATTRIBUTES_COUNT, raw.dropped_attributes_count)
    _set_count(found, semconv.OTEL_DROPPED_EVENTS_COUNT, raw.dropped_events_count)
    _set_count(found, semconv.OTEL_DROPPED_LINKS_COUNT, raw.dropped_links_count)
    _set_text(found, semconv.OTEL_SCOPE_NAME, raw.scope_name)
    _set_text(found, semconv.OTEL_SCOPE_VERSION, raw.scope_version)
    if raw.scope_attributes:
        found[semconv.OTEL_SCOPE_ATTRIBUTES] = dict(raw.scope_attributes)
    _set_count(
        found, semconv.OTEL_SCOPE_DROPPED_ATTRIBUTES_COUNT, raw.scope_dropped_attributes_count
    )
    _set_text(found, semconv.OTEL_SCOPE_SCHEMA_URL, raw.scope_schema_url)
    _set_count(
        found,
        semconv.OTEL_RESOURCE_DROPPED_ATTRIBUTES_COUNT,
        raw.resource_dropped_attributes_count,
    )
    _set_text(found, semconv.OTEL_RESOURCE_SCHEMA_URL, raw.resource_schema_url)
    return found


def link_attribute(link: SpanLink) -> dict[str, Any]:
    """One entry of ``otel.links``."""
    entry: dict[str, Any] = {
        "trace_id": link.trace_id,
        "span_id": link.span_id,
        "trace_state": link.trace_state or None,
        "attributes": dict(link.attributes),
    }
    _set_count(entry, "flags", link.flags)
    _set_count(entry, "dropped_attributes_count", link.dropped_attributes_count)
    return entry


def event_attributes(attributes: dict[str, Any], dropped_count: int, path: str) -> dict[str, Any]:
    """An event's attributes with its dropped attribute count, when it is not 0."""
    reserved: dict[str, Any] = {}
    _set_count(reserved, semconv.OTEL_DROPPED_ATTRIBUTES_COUNT, dropped_count)
    return with_reserved(attributes, reserved, path)


def with_reserved(
    attributes: dict[str, Any], reserved: dict[str, Any], path: str
) -> dict[str, Any]:
    """``attributes`` with the ``reserved`` ones added. A RecordError (field ``{path}.{key}``)
    when the source already records one of those keys with another value."""
    if not reserved:
        return attributes
    for key, value in reserved.items():
        if key in attributes and not _same(attributes[key], value):
            what = _WHAT.get(key, "OTLP field")
            raise RecordError(
                f"the source records attribute {key!r} as {shown(attributes[key])}, but that is"
                f" the reserved name under which trailcheck keeps the span's {what}"
                f" ({shown(value)}); rename the source attribute so neither is lost",
                field=f"{path}.{key}",
            )
    return {**attributes, **reserved}


def _set_text(target: dict[str, Any], key: str, value: str | None) -> None:
    if value:
        target[key] = value


def _set_count(target: dict[str, Any], key: str, value: int) -> None:
    if value:
        target[key] = value


def _same(left: Any, right: Any) -> bool:
    """Equal as JSON values: ``1``, ``1.0`` and ``True`` are three different values."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(_same, left, right))
    return bool(left == right)
