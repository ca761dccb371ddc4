"""The readable prefix of a broken JSON text: whether it is only cut short, and the strings it
shows whole at a path."""

from __future__ import annotations

import pytest

from trailcheck.importing.transport.cut_json import (
    ANY_INDEX,
    ShownString,
    readable_prefix,
    shown_strings,
)

SPAN_TRACE_ID = ("resourceSpans", ANY_INDEX, "scopeSpans", ANY_INDEX, "spans", ANY_INDEX, "traceId")


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        (b'{"trace_id": "t1", "span_id": ', True),
        (b'{"trace_id": "t1", "na', True),  # inside a key
        (b'{"trace_id": "t1", "start_ns": 12', True),  # a number that may have gone on
        (b'{"trace_id": "t1", "ok": tr', True),
        ('{"trace_id": "t1", "name": "caf\u00e9'.encode()[:-1], True),  # half a character
        (b'{"trace_id": "t1", "x": 1x', False),  # a syntax error before the end
        (b'{"trace_id": "t1"} {"trace_id": "t2"', False),  # two records run together
        ('{"trace_id": "t1", "name": "\u00e9", '.encode().replace(b"\xc3", b"\xff"), False),
        (b"   ", False),
    ],
)
def test_a_text_is_cut_only_when_its_end_is_its_only_fault(text: bytes, cut: bool) -> None:
    assert readable_prefix(text).cut is cut


def test_the_prefix_stops_at_the_first_syntax_error() -> None:
    prefix = readable_prefix(b'{"trace_id": "t1", "x": 1x, "trace_id": "t2"}')
    assert prefix.text == '{"trace_id": "t1", "x": 1'
    assert shown_strings(prefix.text, ("trace_id",)) == [ShownString("trace_id", "t1")]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ('{"trace_id": "t1", "span_id": "s', ["t1"]),
        ('{"trace_id": "t', []),  # the value itself is cut: which trace is unknown
        ('{"trace_id": "a\\"b", "name": "', ['a"b']),
        ('{"attributes": {"trace_id": "nested"}, "trace_id": "t1"', ["t1"]),
        ('{"name": "{\\"trace_id\\": \\"in a string\\"}", "trace_id": "t1"', ["t1"]),
        ('[{"trace_id": "t1"}, ', []),  # not the top-level object's key
        ('{"trace_id": "t1", "trace_id": "t2", "x', ["t1", "t2"]),
    ],
)
def test_only_whole_strings_at_the_path_are_shown(text: str, shown: list[str]) -> None:
    assert [found.value for found in shown_strings(text, ("trace_id",))] == shown


def test_span_trace_ids_of_an_otlp_export_are_shown_with_their_path_and_links_are_not() -> None:
    text = (
        '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "aa", "links": [{"traceId":'
        ' "bb"}]}, {"spanId": "x", "traceId": "cc"}]}, {"spans": [{"traceId": "dd", "sp'
    )
    assert shown_strings(text, SPAN_TRACE_ID) == [
        ShownString("resourceSpans[0].scopeSpans[0].spans[0].traceId", "aa"),
        ShownString("resourceSpans[0].scopeSpans[0].spans[1].traceId", "cc"),
        ShownString("resourceSpans[0].scopeSpans[1].spans[0].traceId", "dd"),
    ]
