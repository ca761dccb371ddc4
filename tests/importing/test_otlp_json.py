"""OTLP/JSON documents and collector JSON Lines into RawSpans and Traces."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.importing.otlp_json_documents import TRACE_A, TRACE_B, document, span, split
from trailcheck.importing.otlp import decode_otlp_json, read_otlp_json
from trailcheck.importing.records import RawSpan, Rejection
from trailcheck.importing.transport.otlp_json import decode_otlp_json_spans, looks_like_otlp_json
from trailcheck.trace import SpanEvent, Trace


def raw_spans(data: bytes) -> tuple[list[RawSpan], list[Rejection]]:
    return split(list(decode_otlp_json_spans(data, "in.json")))


def traces(data: bytes) -> tuple[list[Trace], list[Rejection]]:
    return split(list(decode_otlp_json(data, "in.json")))


def only_rejection(data: bytes) -> Rejection:
    spans, rejections = raw_spans(data)
    assert spans == []
    assert len(rejections) == 1, rejections
    return rejections[0]


# --- the fixtures: what an agent run looks like after import ----------------------------------


def test_genai_agent_run(fixtures: Path) -> None:
    with (fixtures / "otlp" / "genai_agent_run.json").open("rb") as stream:
        (trace,), rejections = split(list(read_otlp_json(stream, "genai_agent_run.json")))
    assert rejections == []
    assert trace.trace_id == TRACE_A
    calls = [(c.name, c.call_id, c.arguments, c.result, c.error) for c in trace.tool_calls]
    assert calls == [
        (
            "lookup_order",
            "call_1",
            {"order_id": "A-1001"},
            {"order_id": "A-1001", "status": "shipped", "late": True},
            None,
        ),
        (
            "issue_refund",
            "call_2",
            {"order_id": "A-1001", "amount": 250.0},
            None,
            "refund limit exceeded",
        ),
    ]
    assert trace.input_text == "Where is my order A-1001? Refund it if it is late."
    assert trace.final_text.startswith("Order A-1001 has shipped")
    assert trace.usage is not None
    assert (trace.usage.input_tokens, trace.usage.output_tokens) == (412 + 530, 58 + 41)
    assert trace.metadata["agent_name"] == "support_agent"
    assert trace.metadata["otel.resource"] == {
        "service.name": "support-shop",
        "service.version": "1.4.0",
        "telemetry.sdk.language": "python",
        "deployment.regions": ["eu-west-1", "us-east-1"],
        "host.canary": False,
        "sampling.ratio": 0.25,
        "build": {"commit": "9f2c1e7", "number": 1234},
    }
    refund = trace.tree.get("e1d2e3f405060708")
    assert (refund.status.code, refund.status.message) == ("error", "refund limit exceeded")
    assert refund.events == [
        SpanEvent(
            name="exception",
            time_ns=1718000001890000000,
            attributes={
                "exception.type": "RefundLimitExceeded",
                "exception.message": "refund limit exceeded: 250.0 > 100.0",
                "exception.escaped": True,
            },
        )
    ]
    root = trace.tree.root
    assert root is not None
    assert (root.span_id, root.kind, root.start_ns, root.end_ns) == (
        "b7ad6b7169203331",
        "agent",
        1718000000000000000,
        1718000004200000000,
    )
    assert [s.kind for s in trace.tree.children(root.span_id)] == ["llm", "tool", "tool", "llm"]


def test_genai_raw_spans_keep_scope_resource_and_line(fixtures: Path) -> None:
    spans, rejections = raw_spans((fixtures / "otlp" / "genai_agent_run.json").read_bytes())
    assert rejections == []
    assert [(s.span_id, s.scope_name, s.line) for s in spans] == [
        ("b7ad6b7169203331", "support_shop.agent", 1),
        ("c1d2e3f405060708", "support_shop.agent", 1),
        ("f1d2e3f405060708", "support_shop.agent", 1),
        ("d1d2e3f405060708", "support_shop.tools", 1),
        ("e1d2e3f405060708", "support_shop.tools", 1),
    ]
    assert spans[0].parent_id is None
    assert spans[1].attributes["gen_ai.usage.input_tokens"] == 412
    assert all(s.resource["service.name"] == "support-shop" for s in spans)


def test_openinference_run(fixtures: Path) -> None:
    (trace,), rejections = traces((fixtures / "otlp" / "openinference_run.json").read_bytes())
    assert rejections == []
    assert [(c.name, c.arguments, c.result) for c in trace.tool_calls] == [
        ("lookup_order", {"order_id": "A-1001"}, {"status": "shipped"})
    ]
    assert trace.input == "Where is my order A-1001?"
    assert trace.final_output == "Order A-1001 has shipped."
    llm = trace.tree.get("1112131415161718").llm
    assert llm is not None
    assert llm.model == "gpt-4o-mini"
    assert llm.output_messages is not None
    assert llm.output_messages[0].tool_calls[0].name == "lookup_order"


def test_collector_file_export_jsonl(fixtures: Path) -> None:
    data = (fixtures / "otlp" / "collector_file_export.jsonl").read_bytes()
    spans, rejections = raw_spans(data)
    assert rejections == []
    # Uppercase hex becomes lowercase; each span carries its own line.
    assert [(s.trace_id[:4], s.span_id, s.line) for s in spans] == [
        ("4bf9", "a000000000000001", 1),
        ("4bf9", "a000000000000002", 1),
        ("00f0", "b000000000000001", 2),
        ("00f0", "b000000000000002", 2),
        ("4bf9", "a000000000000003", 3),
    ]
    assert [s.status_code for s in spans] == ["ok", "unset", "unset", "ok", "ok"]
    found, rejections = traces(data)
    assert rejections == []
    by_id = {trace.trace_id: trace for trace in found}
    # Trace A's spans come from lines 1 and 3: one trace.
    weather = by_id["4bf92f3577b34da6a3ce929d0e0e4736"]
    assert len(weather.spans) == 3
    assert [(c.name, c.arguments, c.result) for c in weather.tool_calls] == [
        ("get_weather", {"city": "Oslo", "days": 3}, {"forecast": ["rain", "rain", "sun"]})
    ]
    search = by_id["00f067aa0ba902b700f067aa0ba902b7"]
    assert [(c.name, c.arguments, c.result) for c in search.tool_calls] == [
        ("search", {"q": "weather"}, "sunny")
    ]


def test_looks_like_otlp_json(fixtures: Path) -> None:
    for name in ("genai_agent_run.json", "openinference_run.json", "collector_file_export.jsonl"):
        assert looks_like_otlp_json((fixtures / "otlp" / name).read_bytes()[:4096])
    assert not looks_like_otlp_json(b'{"trace_id": "a", "span_id": "b"}\n')
    assert not looks_like_otlp_json(b"\n\x05hello")
    assert not looks_like_otlp_json(b"")


# --- a bad span: rejected where it is, its trace withheld, the others imported -----------------


def test_malformed_span_rejects_its_trace_only(fixtures: Path) -> None:
    data = (fixtures / "otlp" / "malformed_span.json").read_bytes()
    found, rejections = traces(data)
    assert [trace.trace_id for trace in found] == ["2" * 32]
    assert [c.name for c in found[0].tool_calls] == ["ping"]
    bad, withheld = rejections
    assert (bad.source, bad.line, bad.span_id, bad.trace_id) == (
        "in.json",
        1,
        "c000000000000002",
        "1" * 32,
    )
    assert bad.field == "resourceSpans[0].scopeSpans[0].spans[1].attributes[2].value"
    assert "intValue" in bad.message
    assert "'12x'" in bad.message
    assert withheld.trace_id == "1" * 32
    assert "not imported" in withheld.message
    assert "1 readable span(s)" in withheld.message


def test_unreadable_line_withholds_every_trace_in_one_rejection(fixtures: Path) -> None:
    found, rejections = traces((fixtures / "otlp" / "truncated_line.jsonl").read_bytes())
    assert found == []
    assert [(r.line, r.trace_id) for r in rejections] == [(2, None), (2, None)]
    unreadable, withheld = rejections
    assert "not valid JSON" in unreadable.message
    assert withheld.message.startswith(
        "2 traces withheld because line 2 could not be read (rejected above): a span on it may"
        " belong to any trace, so the 2 readable span(s) of"
    )
    assert repr("2" * 32) in withheld.message
    assert repr("1" * 32) in withheld.message


def test_base64_ids_are_rejected_with_a_hint(fixtures: Path) -> None:
    rejection = only_rejection((fixtures / "otlp" / "base64_ids.json").read_bytes())
    assert rejection.field == "resourceSpans[0].scopeSpans[0].spans[0].traceId"
    assert rejection.message == "must be 32 hex digits, got 'CvdlGRbNQ92ESOshHIAxnA=='"
    assert rejection.hint is not None
    assert "looks like base64" in str(rejection)
    assert rejection.trace_id is None


def test_unreadable_trace_id_withholds_every_trace() -> None:
    data = document(span(), span(trace_id="not-hex", span_id="c1d2e3f405060708"))
    found, rejections = traces(data)
    assert found == []
    bad, withheld = rejections
    assert (bad.trace_id, bad.span_id) == (None, "c1d2e3f405060708")
    assert bad.field == "resourceSpans[0].scopeSpans[0].spans[1].traceId"
    assert withheld.trace_id is None
    assert withheld.message.startswith(
        "1 trace withheld because line 1 (resourceSpans[0].scopeSpans[0].spans[1].traceId)"
        " could not be read"
    )
    assert f"1 readable span(s) of {TRACE_A!r}" in withheld.message


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"spanId": "xyz"}, "spanId", "must be 16 hex digits"),
        ({"spanId": None}, "spanId", "is missing"),
        ({"parentSpanId": "00000000000000000"}, "parentSpanId", "16 hex digits"),
        ({"parentSpanId": "0000000000000000"}, "parentSpanId", "all zeros"),
        ({"startTimeUnixNano": None}, "startTimeUnixNano", "no start time"),
        ({"startTimeUnixNano": "12.5"}, "startTimeUnixNano", "decimal string"),
        ({"endTimeUnixNano": -1}, "endTimeUnixNano", "out of range"),
        ({"name": 3}, "name", "must be a string"),
        ({"status": {"code": 7}}, "status.code", "must be 0, 1, 2"),
        ({"status": {"code": 2, "message": 5}}, "status.message", "must be a string"),
        ({"status": "ok"}, "status", "must be an object"),
        ({"attributes": {"a": 1}}, "attributes", "must be an array"),
        (
            {"attributes": [{"key": "k", "value": {"doubleValue": "Infinity"}}]},
            "attributes[0].value",
            "not finite",
        ),
        (
            {"events": [{"timeUnixNano": "x", "name": "e"}]},
            "events[0].timeUnixNano",
            "decimal string",
        ),
        (
            {"events": [{"name": "e", "attributes": [{"key": "a"}, {"key": "a"}]}]},
            "events[0].attributes[1].key",
            "duplicate key",
        ),
    ],
)
def test_bad_span_fields(fields: dict[str, Any], field: str, message: str) -> None:
    rejection = only_rejection(document(span(**fields)))
    assert rejection.field == f"resourceSpans[0].scopeSpans[0].spans[0].{field}"
    assert message in rejection.message
    assert rejection.trace_id == TRACE_A
    assert rejection.span_id == (None if field == "spanId" else "b7ad6b7169203331")
    assert rejection.line == 1


def test_bad_resource_rejects_the_traces_under_it_only() -> None:
    bad_resource = {"attributes": [{"key": "service.name", "value": {"intValue": "x"}}]}
    good = {"scopeSpans": [{"spans": [span(trace_id=TRACE_B)]}]}
    bad = {
        "resource": bad_resource,
        "scopeSpans": [{"spans": [span(), span(span_id="c1d2e3f405060708")]}],
    }
    data = orjson.dumps({"resourceSpans": [bad, good]})
    found, rejections = traces(data)
    assert [trace.trace_id for trace in found] == [TRACE_B]
    (rejection,) = rejections  # one per trace that lost spans; TRACE_A lost all of its spans
    assert rejection.trace_id == TRACE_A
    assert rejection.field == "resourceSpans[0].resource.attributes[0].value"


def test_bad_scope_rejects_its_spans() -> None:
    entry = {"scopeSpans": [{"scope": {"name": 5}, "spans": [span()]}]}
    rejection = only_rejection(orjson.dumps({"resourceSpans": [entry]}))
    assert (rejection.field, rejection.trace_id) == (
        "resourceSpans[0].scopeSpans[0].scope.name",
        TRACE_A,
    )


def test_pre_1_0_field_names_are_rejected_not_ignored() -> None:
    entry = {"instrumentationLibrarySpans": [{"spans": [span()]}]}
    rejection = only_rejection(orjson.dumps({"resourceSpans": [entry]}))
    assert (rejection.field, rejection.trace_id) == (
        "resourceSpans[0].instrumentationLibrarySpans",
        None,
    )
    assert "scopeSpans" in rejection.message


@pytest.mark.parametrize(
    ("data", "line", "message"),
    [
        (b"[1, 2]", 1, "an OTLP/JSON export is an object, got list"),
        (b'{"resourceSpans": {}}', 1, "must be an array"),
        (b'{\n  "resourceSpans": [\n    {,}\n  ]\n}\n', 3, "not valid JSON"),
    ],
)
def test_unreadable_documents(data: bytes, line: int, message: str) -> None:
    rejection = only_rejection(data)
    assert (rejection.line, rejection.trace_id) == (line, None)
    assert message in rejection.message


# --- the encoding's rules ---------------------------------------------------------------------


def test_omitted_and_null_fields_take_protobuf_defaults_and_unknown_ones_are_ignored() -> None:
    data = document(
        span(
            name=None,
            endTimeUnixNano=None,
            attributes=None,
            parentSpanId=None,
            status=None,
            kind=2,
            traceState="x=1",
            flags=1,
            links=[{"traceId": TRACE_B, "spanId": "0102030405060708"}],
            droppedAttributesCount=3,
            futureField={"a": 1},
        )
    )
    (raw,), rejections = raw_spans(data)
    assert rejections == []
    assert (raw.name, raw.end_ns, raw.parent_id, raw.status_code, raw.attributes) == (
        "",
        None,
        None,
        "unset",
        {},
    )
    nulls = orjson.dumps(
        {
            "resourceSpans": [
                {
                    "resource": None,
                    "scopeSpans": [
                        {"scope": None, "spans": [span(status={"code": None, "message": None})]}
                    ],
                }
            ]
        }
    )
    (raw,), rejections = raw_spans(nulls)
    assert rejections == []
    assert (raw.resource, raw.scope_name, raw.status_code, raw.status_message) == (
        {},
        None,
        "unset",
        None,
    )


def test_numbers_as_numbers_or_strings_and_status_as_name() -> None:
    data = document(
        span(
            startTimeUnixNano=1718000000000000000,
            endTimeUnixNano="9223372036854775807",
            parentSpanId="",
            status={"code": "STATUS_CODE_ERROR", "message": "boom"},
            events=[{"timeUnixNano": 1718000000000000001, "name": "retry"}],
        )
    )
    (raw,), _ = raw_spans(data)
    assert (raw.start_ns, raw.end_ns, raw.parent_id) == (1718000000000000000, 2**63 - 1, None)
    assert (raw.status_code, raw.status_message) == ("error", "boom")
    assert raw.events == [SpanEvent(name="retry", time_ns=1718000000000000001)]


@pytest.mark.parametrize(
    ("changed", "field"),
    [
        ({"endTimeUnixNano": "18446744073709551615"}, "endTimeUnixNano"),
        ({"startTimeUnixNano": 2**63}, "startTimeUnixNano"),
        ({"events": [{"timeUnixNano": str(2**63), "name": "retry"}]}, "events[0].timeUnixNano"),
    ],
)
def test_a_legal_uint64_time_beyond_what_the_store_holds_is_rejected_naming_it(
    changed: dict[str, object], field: str
) -> None:
    """OTLP times are unsigned 64-bit, the store's integers signed: a time after 2^63-1 ns is
    refused here, at decoding, rather than breaking the store later."""
    spans, [rejection] = raw_spans(document(span(**changed)))
    assert spans == []
    assert rejection.field == f"resourceSpans[0].scopeSpans[0].spans[0].{field}"
    assert "is later than trailcheck can store" in rejection.message
    assert "at most 9223372036854775807" in rejection.message


def test_document_start_line_and_empty_inputs() -> None:
    (raw,), _ = raw_spans(b"\n\n  " + document(span()) + b"\n")
    assert raw.line == 3
    assert raw_spans(b"") == ([], [])
    assert raw_spans(b"  \n\n") == ([], [])
    # An export request that says it has no spans; {} says nothing (see the rejections below).
    assert raw_spans(b'{"resourceSpans": []}') == ([], [])
    assert raw_spans(b'{"resourceSpans": null}') == ([], [])


def test_jsonl_skips_blank_lines_and_rejects_each_bad_line() -> None:
    data = b"\n".join([document(span()), b"", b"not json", document(span(trace_id=TRACE_B)), b""])
    spans, rejections = raw_spans(data)
    assert [(s.trace_id, s.line) for s in spans] == [(TRACE_A, 1), (TRACE_B, 4)]
    assert [(r.line, r.trace_id) for r in rejections] == [(3, None)]
    assert "not valid JSON" in rejections[0].message


def test_rejections_carry_source_and_print_their_location() -> None:
    rejection = only_rejection(document(span(spanId="xyz")))
    assert str(rejection).startswith(
        "in.json:1: field 'resourceSpans[0].scopeSpans[0].spans[0].spanId': must be 16 hex digits"
    )


def test_read_matches_decode() -> None:
    data = document(span(), span(trace_id=TRACE_B))
    assert list(read_otlp_json(io.BytesIO(data), "in.json")) == list(
        decode_otlp_json(data, "in.json")
    )


# --- collector files: which lines are read, and which traces a bad one withholds ----------------


def test_a_broken_first_line_is_reported_there_and_the_other_lines_are_read() -> None:
    second = document(span())
    third = document(span(trace_id=TRACE_B))
    data = second[:40] + b"\n" + second + b"\n" + third + b"\n"
    spans, rejections = raw_spans(data)
    assert [(s.trace_id, s.line) for s in spans] == [(TRACE_A, 2), (TRACE_B, 3)]
    (broken,) = rejections
    assert (broken.line, broken.trace_id) == (1, None)
    assert broken.message.startswith("not valid JSON")
    # The line may have held a span of either trace: both are withheld, in one Rejection.
    found, rejections = traces(data)
    assert found == []
    assert [(r.line, r.trace_id) for r in rejections] == [(1, None), (1, None)]
    assert rejections[1].message.startswith("2 traces withheld because line 1 could not be read")


@pytest.mark.parametrize(
    ("line", "found"),
    [
        (b'{"resourceMetrics": [{"scopeMetrics": []}]}', "found keys 'resourceMetrics'"),
        (b"{}", "it is an empty object"),
    ],
)
def test_a_document_of_another_signal_is_rejected_and_withholds_no_trace(
    line: bytes, found: str
) -> None:
    data = b"\n".join([document(span()), line, document(span(trace_id=TRACE_B))])
    imported, rejections = traces(data)
    assert [trace.trace_id for trace in imported] == [TRACE_A, TRACE_B]
    (rejection,) = rejections
    assert (rejection.line, rejection.trace_id, rejection.spans_lost) == (2, None, False)
    assert rejection.message == f"not an OTLP trace export: no resourceSpans; {found}"


def test_a_document_with_unknown_keys_may_hold_spans_and_withholds_every_trace() -> None:
    data = b"\n".join([document(span()), b'{"spans": []}'])
    imported, rejections = traces(data)
    assert imported == []
    unknown, withheld = rejections
    assert unknown.message == "not an OTLP trace export: no resourceSpans; found keys 'spans'"
    assert (unknown.line, unknown.spans_lost) == (2, True)
    assert withheld.message.startswith("1 trace withheld because line 2 could not be read")


# --- snake_case keys: protobuf field names, not OTLP/JSON ones --------------------------------


def test_snake_case_resource_spans_is_not_an_otlp_trace_export() -> None:
    rejection = only_rejection(orjson.dumps({"resource_spans": [{"scope_spans": []}]}))
    assert rejection.line == 1
    assert rejection.message == (
        "not an OTLP trace export: no resourceSpans; found keys 'resource_spans'; OTLP/JSON"
        " spells field names in lowerCamelCase ('resourceSpans')"
    )


@pytest.mark.parametrize(
    ("entry", "field", "camel"),
    [
        ({"scope_spans": [{"spans": [span()]}]}, "resourceSpans[0].scope_spans", "scopeSpans"),
        (
            {"scopeSpans": [{"spans": [span()], "schema_url": "x"}]},
            "resourceSpans[0].scopeSpans[0].schema_url",
            "schemaUrl",
        ),
        (
            {"scopeSpans": [{"spans": [{**span(), "start_time_unix_nano": "5"}]}]},
            "resourceSpans[0].scopeSpans[0].spans[0].start_time_unix_nano",
            "startTimeUnixNano",
        ),
        (
            {
                "scopeSpans": [
                    {"spans": [span(attributes=[{"key": "k", "value": {"string_value": "v"}}])]}
                ]
            },
            "resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.string_value",
            "stringValue",
        ),
    ],
)
def test_snake_case_keys_are_rejected_at_any_level(
    entry: dict[str, Any], field: str, camel: str
) -> None:
    found, rejections = traces(orjson.dumps({"resourceSpans": [entry]}))
    assert found == []
    assert rejections[0].field == field
    assert rejections[0].message == (
        f"is a protobuf field name; OTLP/JSON spells field names in lowerCamelCase ({camel!r})"
    )


# --- what OTLP records beside the attributes is kept ------------------------------------------


def test_span_details_are_kept_as_reserved_attributes(fixtures: Path) -> None:
    (trace,), rejections = traces((fixtures / "otlp" / "span_details.json").read_bytes())
    assert rejections == []
    scope_and_resource = {
        "otel.scope.name": "openai.agents",
        "otel.scope.version": "0.4.2",
        "otel.scope.attributes": {"instrumentation.mode": "auto"},
        "otel.scope.dropped_attributes_count": 2,
        "otel.scope.schema_url": "https://opentelemetry.io/schemas/1.27.0",
        "otel.resource.dropped_attributes_count": 1,
        "otel.resource.schema_url": "https://opentelemetry.io/schemas/1.26.0",
    }
    root = trace.tree.get("a1a2a3a4a5a6a7a8")
    assert root.attributes == {
        "gen_ai.operation.name": "invoke_agent",
        "otel.span.kind": "server",
        "otel.trace_state": "vendor=abc,other=1",
        "otel.flags": 769,
        "otel.links": [
            {
                "trace_id": TRACE_A,
                "span_id": "b7ad6b7169203331",
                "trace_state": "k=v",
                "attributes": {"link.reason": "follows request"},
                "flags": 1,
                "dropped_attributes_count": 3,
            },
            {
                "trace_id": TRACE_B,
                "span_id": "c1c2c3c4c5c6c7c8",
                "trace_state": None,
                "attributes": {},
            },
        ],
        "otel.dropped_attributes_count": 4,
        "otel.dropped_events_count": 5,
        "otel.dropped_links_count": 6,
        **scope_and_resource,
    }
    tool = trace.tree.get("c1c2c3c4c5c6c7c8")
    assert tool.attributes["otel.span.kind"] == "client"
    assert tool.events == [
        SpanEvent(
            name="retry",
            time_ns=1718000000600000000,
            attributes={"attempt": "2", "otel.dropped_attributes_count": 7},
        )
    ]
    # SPAN_KIND_UNSPECIFIED, no links, no trace state, counts of 0: nothing is added.
    assert trace.tree.get("d1d2d3d4d5d6d7d8").attributes == scope_and_resource
    # The reserved attributes add to what trailcheck understood; they change none of it.
    assert [(c.name, c.arguments) for c in trace.tool_calls] == [
        ("lookup_order", {"order_id": "A-1"})
    ]
    assert (root.kind, tool.kind) == ("agent", "tool")


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"kind": 9}, "kind", "must be 0 to 5 or SPAN_KIND_INTERNAL"),
        ({"kind": "CLIENT"}, "kind", "must be 0 to 5"),
        ({"flags": -1}, "flags", "out of range"),
        ({"droppedEventsCount": 2**32}, "droppedEventsCount", "out of range"),
        ({"traceState": 3}, "traceState", "must be a string"),
        ({"links": [{"traceId": TRACE_B}]}, "links[0].spanId", "is missing"),
        ({"links": [{"traceId": "ab", "spanId": "0102030405060708"}]}, "links[0].traceId", "hex"),
    ],
)
def test_bad_span_details_reject_the_span(fields: dict[str, Any], field: str, message: str) -> None:
    rejection = only_rejection(document(span(**fields)))
    assert rejection.field == f"resourceSpans[0].scopeSpans[0].spans[0].{field}"
    assert message in rejection.message
    assert rejection.trace_id == TRACE_A


def test_a_source_attribute_under_a_reserved_name_must_agree() -> None:
    def with_kind_attribute(value: str) -> bytes:
        attributes = [{"key": "otel.span.kind", "value": {"stringValue": value}}]
        return document(span(kind="SPAN_KIND_CLIENT", attributes=attributes))

    (trace,), rejections = traces(with_kind_attribute("client"))
    assert rejections == []
    assert trace.spans[0].attributes["otel.span.kind"] == "client"
    found, (rejection,) = traces(with_kind_attribute("server"))
    assert found == []
    assert (rejection.span_id, rejection.field) == ("b7ad6b7169203331", "attributes.otel.span.kind")
    assert rejection.message == (
        f"trace {TRACE_A!r} not imported: the source records attribute 'otel.span.kind' as"
        " 'server', but that is the reserved name under which trailcheck keeps the span's"
        " OpenTelemetry span kind ('client'); rename the source attribute so neither is lost"
    )


def test_raw_spans_carry_their_source() -> None:
    (raw,), _ = raw_spans(document(span()))
    assert (raw.source, raw.line) == ("in.json", 1)


def test_a_logs_document_in_a_collector_file_is_read_and_withholds_no_trace() -> None:
    # The collector's file exporter can write both signals to one file; the logs line holds no
    # GenAI event here, so it only adds nothing.
    data = b"\n".join([document(span()), b'{"resourceLogs": []}', document(span(trace_id=TRACE_B))])
    imported, rejections = traces(data)
    assert [trace.trace_id for trace in imported] == [TRACE_A, TRACE_B]
    assert rejections == []
