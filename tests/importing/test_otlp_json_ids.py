"""OTLP/JSON read with ``ids="base64"``, as protobuf-to-JSON tools (MessageToJson) write ids:
trace, span, parent span and link ids, and log records' ids; one encoding per file; the hint
saying what a rejected id looks like is given once per file."""

from __future__ import annotations

import base64
from typing import Any

import orjson

from tests.importing.otlp_json_documents import TRACE_A, TRACE_B, document, span, split
from trailcheck.importing.otlp import decode_otlp_json
from trailcheck.importing.records import RawSpan, Rejection
from trailcheck.importing.transport.otlp_ids import BASE64_IDS_HINT, HEX_IDS_HINT, IdEncoding
from trailcheck.importing.transport.otlp_json import decode_otlp_json_spans
from trailcheck.trace import Trace

ROOT = "b7ad6b7169203331"
CHILD = "00f067aa0ba902b7"
LINKED = "0102030405060708"


def b64(hex_id: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_id)).decode()


def raw_spans(data: bytes, ids: IdEncoding) -> tuple[list[RawSpan], list[Rejection]]:
    return split(list(decode_otlp_json_spans(data, "in.json", ids=ids)))


def traces(data: bytes, ids: IdEncoding) -> tuple[list[Trace], list[Rejection]]:
    return split(list(decode_otlp_json(data, "in.json", ids=ids)))


def run(encode: Any = str) -> bytes:
    """A root and a child linked to another trace's span, every id spelled by ``encode``."""
    link = {"traceId": encode(TRACE_B), "spanId": encode(LINKED), "attributes": []}
    return document(
        span(encode(TRACE_A), encode(ROOT)),
        span(encode(TRACE_A), encode(CHILD), parentSpanId=encode(ROOT), links=[link]),
    )


def logs(trace_id: str, span_id: str) -> bytes:
    record = {
        "traceId": trace_id,
        "spanId": span_id,
        "eventName": "gen_ai.user.message",
        "body": {"kvlistValue": {"values": [{"key": "content", "value": {"stringValue": "hi"}}]}},
        "timeUnixNano": "1500",
    }
    return orjson.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [record]}]}]})


def test_base64_ids_read_as_the_same_spans_as_hex_ones() -> None:
    as_hex, rejections = raw_spans(run(), "hex")
    assert rejections == []
    as_base64, rejections = raw_spans(run(b64), "base64")
    assert rejections == []
    assert as_base64 == as_hex
    _, child = as_base64
    assert (child.trace_id, child.span_id, child.parent_id) == (TRACE_A, CHILD, ROOT)
    assert [(link.trace_id, link.span_id) for link in child.links] == [(TRACE_B, LINKED)]


def test_log_records_ids_are_read_in_the_file_s_encoding() -> None:
    data = b"\n".join([run(b64), logs(b64(TRACE_A), b64(CHILD))])
    (trace,), rejections = traces(data, "base64")
    assert rejections == []
    events = [event for s in trace.spans if s.span_id == CHILD for event in s.events]
    assert [event.name for event in events] == ["gen_ai.user.message"]


def test_each_file_says_what_its_ids_are_hex_ids_under_base64_are_rejected() -> None:
    rejections = raw_spans(run(), "base64")[1]
    # Every span is rejected, naming its field; the hint is given once.
    assert [r.field for r in rejections] == [
        "resourceSpans[0].scopeSpans[0].spans[0].traceId",
        "resourceSpans[0].scopeSpans[0].spans[1].traceId",
    ]
    assert rejections[0].message == f"must be 16 bytes in base64, got {TRACE_A!r} (24 bytes)"
    assert [r.hint for r in rejections] == [HEX_IDS_HINT, None]


def test_base64_ids_under_hex_are_rejected_with_the_hint_once_per_file() -> None:
    data = b"\n".join([run(b64), logs(b64(TRACE_A), b64(CHILD))])
    _, rejections = traces(data, "hex")
    assert [(r.line, r.field) for r in rejections] == [
        (1, "resourceSpans[0].scopeSpans[0].spans[0].traceId"),
        (1, "resourceSpans[0].scopeSpans[0].spans[1].traceId"),
        (2, "resourceLogs[0].scopeLogs[0].logRecords[0].traceId"),
    ]
    assert [r.hint for r in rejections] == [BASE64_IDS_HINT, None, None]
    assert "--ids base64" in str(rejections[0])
    assert "looks like base64" not in str(rejections[1])


def test_a_base64_id_of_the_wrong_length_is_rejected_naming_the_field() -> None:
    short = base64.b64encode(b"\x01\x02\x03").decode()
    cases = [
        (span(b64(TRACE_A), short), "spans[0].spanId", 8),
        (span(b64(TRACE_A), b64(ROOT), parentSpanId=short), "spans[0].parentSpanId", 8),
        (
            span(b64(TRACE_A), b64(ROOT), links=[{"traceId": short, "spanId": b64(LINKED)}]),
            "spans[0].links[0].traceId",
            16,
        ),
    ]
    for bad, field, size in cases:
        (rejection,) = raw_spans(document(bad), "base64")[1]
        assert rejection.field == f"resourceSpans[0].scopeSpans[0].{field}"
        assert rejection.message == f"must be {size} bytes in base64, got 'AQID' (3 bytes)"
        # The span's trace id was readable: the rejection names the trace, which it withholds.
        assert rejection.trace_id == TRACE_A
