"""The reserved otel.* attributes map_span adds for what OTLP records beside a span's attributes."""

from __future__ import annotations

from typing import Any

import pytest

from trailcheck.errors import RecordError
from trailcheck.importing.records import RawSpan, SpanLink
from trailcheck.importing.spans import map_span
from trailcheck.trace import semconv


def raw(**fields: Any) -> RawSpan:
    values: dict[str, Any] = {
        "trace_id": "t1",
        "span_id": "s1",
        "parent_id": None,
        "name": "work",
        "start_ns": 1,
        "end_ns": 2,
    }
    return RawSpan(**{**values, **fields})


def test_a_span_without_otlp_details_gets_no_reserved_attributes() -> None:
    assert map_span(raw(attributes={"k": 1}), "in").attributes == {"k": 1}


def test_every_detail_lands_under_its_reserved_name() -> None:
    span = map_span(
        raw(
            otel_kind="producer",
            trace_state="a=1",
            flags=1,
            links=[SpanLink("t2", "s9", attributes={"why": "batch"})],
            dropped_attributes_count=1,
            dropped_events_count=2,
            dropped_links_count=3,
            scope_name="lib",
            scope_version="2.0",
            scope_attributes={"x": True},
            scope_dropped_attributes_count=4,
            scope_schema_url="https://s/1",
            resource_dropped_attributes_count=5,
            resource_schema_url="https://s/2",
        ),
        "in",
    )
    assert span.attributes == {
        semconv.OTEL_SPAN_KIND: "producer",
        semconv.OTEL_TRACE_STATE: "a=1",
        semconv.OTEL_FLAGS: 1,
        semconv.OTEL_LINKS: [
            {"trace_id": "t2", "span_id": "s9", "trace_state": None, "attributes": {"why": "batch"}}
        ],
        semconv.OTEL_DROPPED_ATTRIBUTES_COUNT: 1,
        semconv.OTEL_DROPPED_EVENTS_COUNT: 2,
        semconv.OTEL_DROPPED_LINKS_COUNT: 3,
        semconv.OTEL_SCOPE_NAME: "lib",
        semconv.OTEL_SCOPE_VERSION: "2.0",
        semconv.OTEL_SCOPE_ATTRIBUTES: {"x": True},
        semconv.OTEL_SCOPE_DROPPED_ATTRIBUTES_COUNT: 4,
        semconv.OTEL_SCOPE_SCHEMA_URL: "https://s/1",
        semconv.OTEL_RESOURCE_DROPPED_ATTRIBUTES_COUNT: 5,
        semconv.OTEL_RESOURCE_SCHEMA_URL: "https://s/2",
    }


@pytest.mark.parametrize(
    ("attributes", "fields"),
    [
        ({"otel.scope.name": "lib"}, {"scope_name": "lib"}),
        ({"otel.flags": 1}, {"flags": 1}),
    ],
)
def test_a_source_attribute_that_agrees_is_kept(
    attributes: dict[str, Any], fields: dict[str, Any]
) -> None:
    assert map_span(raw(attributes=attributes, **fields), "in").attributes == attributes


@pytest.mark.parametrize(
    ("attributes", "fields", "key"),
    [
        ({"otel.scope.name": "other"}, {"scope_name": "lib"}, "otel.scope.name"),
        # True == 1 in Python, but they are different JSON values: one would be lost.
        ({"otel.flags": True}, {"flags": 1}, "otel.flags"),
        ({"otel.links": []}, {"links": [SpanLink("t2", "s2")]}, "otel.links"),
    ],
)
def test_a_source_attribute_that_disagrees_rejects_the_span(
    attributes: dict[str, Any], fields: dict[str, Any], key: str
) -> None:
    with pytest.raises(RecordError) as caught:
        map_span(raw(attributes=attributes, line=7, source="part2.jsonl", **fields), "import")
    error = caught.value
    assert (error.source, error.line, error.span_id, error.field) == (
        "part2.jsonl",
        7,
        "s1",
        f"attributes.{key}",
    )
    assert f"the source records attribute {key!r}" in error.message
    assert "rename the source attribute so neither is lost" in error.message
