"""The one-span-per-line JSONL reader: fixtures of each convention, malformed lines, detection."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest

from trailcheck.importing.complete_traces import assemble_complete_traces
from trailcheck.importing.records import Rejection
from trailcheck.importing.span_jsonl import (
    looks_like_span_jsonl,
    read_span_jsonl,
    read_span_jsonl_spans,
)
from trailcheck.trace import Message, MessageToolCall, SpanEvent, Trace, Usage


def read(path: Path) -> list[Trace | Rejection]:
    with path.open("rb") as stream:
        return list(read_span_jsonl(stream, path.name))


def read_lines(*records: Any) -> list[Trace | Rejection]:
    lines = [r if isinstance(r, str) else orjson.dumps(r).decode() for r in records]
    return list(read_span_jsonl(io.BytesIO("\n".join(lines).encode()), "mem.jsonl"))


def only_trace(items: list[Trace | Rejection]) -> Trace:
    (item,) = items
    assert isinstance(item, Trace), str(item)
    return item


def span_line(**fields: Any) -> dict[str, Any]:
    base = {"trace_id": "t1", "span_id": "s1", "parent_span_id": None, "name": "work"}
    return {**base, "start_ns": 100, "end_ns": 200, **fields}


# --- fixtures, one per convention ------------------------------------------------------------


def test_genai_current_parts_shape_written_children_first(fixtures: Path) -> None:
    trace = only_trace(read(fixtures / "otel" / "genai-current.jsonl"))
    assert trace.input == [Message(role="user", content="Where is order A-1003?")]
    assert trace.final_output == "Order A-1003 is in transit."
    (call,) = trace.tool_calls
    assert (call.name, call.call_id, call.arguments) == (
        "lookup_order",
        "call_1",
        {"order_id": "A-1003"},
    )
    assert call.result == {"status": "in_transit"}
    assert trace.usage == Usage(input_tokens=360, output_tokens=40)
    assert trace.metadata == {
        "agent_name": "shop-assistant",
        "conversation_id": "conv_42",
        "otel.resource": {"service.name": "shop-agent", "service.version": "1.4.0"},
    }
    first_chat = trace.tree.get("d000000000000004")
    assert first_chat.llm is not None
    assert first_chat.llm.input_messages is not None
    assert first_chat.llm.input_messages[0] == Message(
        role="system", content="You are a shop assistant."
    )
    assert first_chat.llm.output_messages == [
        Message(
            role="assistant",
            tool_calls=[
                MessageToolCall(id="call_1", name="lookup_order", arguments={"order_id": "A-1003"})
            ],
        )
    ]
    second_chat = trace.tree.get("b7ad6b7169203332")
    assert second_chat.llm is not None
    assert second_chat.llm.model == "gpt-4o-2024-08-06"
    assert second_chat.llm.input_messages is not None
    assert second_chat.llm.input_messages[2] == Message(
        role="tool", content='{"status": "in_transit"}', tool_call_id="call_1"
    )


def test_genai_older_content_shape_with_an_errored_tool(fixtures: Path) -> None:
    trace = only_trace(read(fixtures / "otel" / "genai-legacy.jsonl"))
    assert trace.input == [Message(role="user", content="Refund order A-1001, it arrived broken.")]
    assert trace.final_output == "I could not refund it: I need to verify your identity first."
    (call,) = trace.tool_calls
    assert call.name == "issue_refund"
    assert call.arguments == {"order_id": "A-1001", "amount": 129.0}
    assert call.error == "identity not verified"
    assert call.result == {"refunded": False}
    assert trace.usage == Usage(input_tokens=220)
    first_chat = trace.tree.get("e000000000000002")
    assert first_chat.llm is not None
    assert (first_chat.llm.model, first_chat.llm.provider) == ("gpt-4o-mini", "openai")


def test_openinference_flattened_messages_and_span_kinds(fixtures: Path) -> None:
    trace = only_trace(read(fixtures / "otel" / "openinference.jsonl"))
    assert trace.input == "What's the weather in Paris?"
    assert trace.final_output == "It is 18°C and partly cloudy in Paris."
    assert trace.metadata == {"agent_name": "support-agent", "session_id": "sess-7"}
    assert trace.usage == Usage(input_tokens=130, output_tokens=27)
    (call,) = trace.tool_calls
    assert (call.name, call.call_id, call.arguments) == (
        "get_weather",
        "call_w1",
        {"city": "Paris"},
    )
    assert call.result == {"temperature": 18, "conditions": "partly cloudy"}
    kinds = {span.span_id[-1]: span.kind for span in trace.spans}
    assert kinds == {
        "1": "agent",
        "2": "llm",
        "3": "tool",
        "4": "llm",
        "5": "retriever",
        "6": "guard",
        "7": "other",
    }
    planner = trace.tree.get("f000000000000002").llm
    assert planner is not None
    assert planner.output_messages == [
        Message(
            role="assistant",
            tool_calls=[
                MessageToolCall(id="call_w1", name="get_weather", arguments={"city": "Paris"})
            ],
        )
    ]


def test_the_malformed_fixture_rejects_each_broken_trace_and_keeps_the_rest(
    fixtures: Path,
) -> None:
    items = read(fixtures / "otel" / "malformed-spans.jsonl")
    traces = [item for item in items if isinstance(item, Trace)]
    rejections = [item for item in items if isinstance(item, Rejection)]
    # Broken structure rejects; a tool span no reader understands is kept, uninterpreted.
    kept = ["good", "tool-without-name", "bad-arguments", "arguments-not-object"]
    assert [trace.trace_id for trace in traces] == kept
    assert [call.arguments for call in traces[0].tool_calls] == [{"order_id": "A-1"}]
    where = [(r.line, r.trace_id, r.field) for r in rejections]
    assert where == [
        (15, "bad-status", "status"),
        (17, "bad-line", "start_ns"),
        (14, "bad-status", None),
        (16, "bad-line", None),
        (4, "orphan", "parent_span_id"),
        (7, "duplicate", "span_id"),
    ]
    by_line = {(r.line, r.field): r.message for r in rejections}
    assert "status code 'FAILED' is not one of UNSET, OK, ERROR" in by_line[15, "status"]
    assert by_line[16, None] == (
        "trace 'bad-line' not imported: its span on line 17 is malformed (rejected above);"
        " its 1 readable span(s) are withheld rather than imported with a span missing"
    )
    unread = {trace.trace_id: trace.metadata["trailcheck.unread"] for trace in traces[1:]}
    assert {trace_id: [p["field"] for p in parts] for trace_id, parts in unread.items()} == {
        "tool-without-name": ["attributes.gen_ai.tool.name"],
        "bad-arguments": ["attributes.gen_ai.tool.call.arguments"],
        "arguments-not-object": ["attributes.gen_ai.tool.call.arguments"],
    }
    assert "not valid JSON" in unread["bad-arguments"][0]["reason"]
    assert "must be a JSON object, not an array" in unread["arguments-not-object"][0]["reason"]
    assert all(trace.tool_calls == [] for trace in traces[1:])  # no call is made up


def test_an_unreadable_line_withholds_every_trace_since_it_could_be_any_traces_span(
    fixtures: Path,
) -> None:
    items = read(fixtures / "otel" / "unreadable-lines.jsonl")
    assert [item for item in items if isinstance(item, Trace)] == []
    rejections = [item for item in items if isinstance(item, Rejection)]
    assert [(r.line, r.trace_id) for r in rejections] == [
        (3, None),
        (3, "lost"),
        (5, None),
        (3, None),
    ]
    unreadable, shown, not_an_object, withheld = rejections
    assert unreadable.message.startswith("not valid JSON: unexpected end of data")
    # Line 3 is cut, but not where the input ends: it shows a span of 'lost', and may hold more.
    assert (shown.field, shown.message) == (
        "trace_id",
        "trace 'lost' lost a span here: the span's trace id is readable, the rest of it is not"
        " (see above)",
    )
    assert not_an_object.message == "a span line must be a JSON object, not an array"
    assert withheld.message == (
        "1 trace withheld because line 3 and 1 other part could not be read (rejected above):"
        " a span on them may belong to any trace, so the 2 readable span(s) of 'good' are"
        " withheld rather than imported with a span missing (--keep-incomplete imports them,"
        " marked incomplete)"
    )


# --- line format -----------------------------------------------------------------------------


def test_status_strings_and_objects_events_and_resource_are_read() -> None:
    trace = only_trace(
        read_lines(
            span_line(
                status={"code": "ERROR", "message": "boom"},
                events=[{"name": "retry", "time_ns": 150, "attributes": {"attempt": 2}}],
                resource={"service.name": "agent"},
            ),
            span_line(span_id="s2", parent_span_id="s1", status="OK"),
            span_line(span_id="s3", parent_span_id="", end_ns=None),
        )
    )
    first, second, third = trace.spans
    assert (first.status.code, first.status.message) == ("error", "boom")
    assert first.events == [SpanEvent(name="retry", time_ns=150, attributes={"attempt": 2})]
    assert trace.metadata == {"otel.resource": {"service.name": "agent"}}
    assert second.status.code == "ok"
    assert second.parent_id == "s1"
    assert third.parent_id is None  # OTLP's empty parent id means a root
    assert third.end_ns is None


def test_absent_optional_keys_take_their_defaults() -> None:
    line = {"trace_id": "t1", "span_id": "s1", "name": "work", "start_ns": 0}
    (span,) = only_trace(read_lines(line)).spans
    assert (span.parent_id, span.end_ns, span.status.code, span.attributes) == (
        None,
        None,
        "unset",
        {},
    )


@pytest.mark.parametrize(
    ("changes", "field", "expected"),
    [
        ({"trace_id": 7}, "trace_id", "must be a non-empty string, not a number"),
        ({"span_id": ""}, "span_id", "not empty"),
        ({"name": None}, "name", "is missing"),
        ({"start_ns": "100"}, "start_ns", "must be an integer of nanoseconds"),
        ({"start_ns": -1}, "start_ns", "≥ 0"),
        ({"end_ns": 1.5}, "end_ns", "must be an integer"),
        ({"start_ns": True}, "start_ns", "must be an integer"),
        ({"parent_span_id": 3}, "parent_span_id", "must be a non-empty string"),
        ({"status": "error"}, "status", "is not one of UNSET, OK, ERROR"),
        ({"status": {"code": "ERROR", "text": "x"}}, "status.text", "unknown key"),
        ({"status": {"message": "x"}}, "status.code", "None is not one of"),
        ({"status": {"code": "ERROR", "message": 5}}, "status.message", "must be a string"),
        ({"status": 2}, "status", "must be a status code or an object"),
        ({"attributes": []}, "attributes", "must be a JSON object, not an array"),
        ({"resource": "svc"}, "resource", "must be a JSON object"),
        ({"events": {}}, "events", "must be a JSON array"),
        ({"events": [{"name": "e"}]}, "events[0].time_ns", "is missing"),
        ({"events": [{"time_ns": 1}]}, "events[0].name", "string name"),
        ({"events": [{"name": "e", "time_ns": 1, "level": 3}]}, "events[0].level", "unknown key"),
        ({"kind": "INTERNAL"}, "kind", "unknown key 'kind'"),
    ],
)
def test_a_malformed_line_is_rejected_with_its_field_and_its_trace_too(
    changes: dict[str, Any], field: str, expected: str
) -> None:
    good_root = span_line(span_id="root")
    bad = {**span_line(span_id="s2", parent_span_id="root"), **changes}
    items = read_lines(good_root, bad)
    trace_is_readable = isinstance(bad["trace_id"], str)
    # Either way the good root's trace is withheld: the bad line was its span, or may have been.
    assert [type(item).__name__ for item in items] == ["Rejection", "Rejection"]
    line_rejection = items[0]
    assert isinstance(line_rejection, Rejection)
    assert (line_rejection.source, line_rejection.line, line_rejection.field) == (
        "mem.jsonl",
        2,
        field,
    )
    assert expected in line_rejection.message
    if trace_is_readable:
        trace_rejection = items[1]
        assert isinstance(trace_rejection, Rejection)
        assert (trace_rejection.trace_id, trace_rejection.line) == ("t1", 1)
        assert trace_rejection.message.startswith("trace 't1' not imported: its span on line 2")
    else:
        assert "line 2 (trace_id) could not be read" in str(items[1])


def test_a_malformed_line_that_was_its_traces_only_span_is_rejected_once() -> None:
    (rejection,) = read_lines(span_line(start_ns="soon"))
    assert isinstance(rejection, Rejection)
    assert (rejection.line, rejection.trace_id, rejection.field) == (1, "t1", "start_ns")


def test_a_line_whose_trace_cannot_be_read_withholds_every_trace() -> None:
    items = read_lines(span_line(), "not json at all", '{"trace_id": 5}', "")
    assert all(isinstance(item, Rejection) for item in items)
    assert [(r.line, r.trace_id) for r in items if isinstance(r, Rejection)] == [
        (2, None),
        (3, None),
        (2, None),  # one Rejection for every trace withheld, naming the first unreadable line
    ]
    assert "1 trace withheld because line 2 and 1 other part could not be read" in str(items[2])


# --- a line cut short -------------------------------------------------------------------------


def cut_after(text: bytes, *records: dict[str, Any], end: bytes = b"") -> list[Trace | Rejection]:
    """``records``, one a line, then the last one's line cut just after ``text``."""
    *whole, last = (orjson.dumps(record) for record in records)
    data = b"".join(line + b"\n" for line in whole) + last[: last.index(text) + len(text)] + end
    return list(read_span_jsonl(io.BytesIO(data), "mem.jsonl"))


THREE_SPANS = (
    span_line(span_id="r1"),
    span_line(trace_id="t2", span_id="r2"),
    span_line(span_id="c1", parent_span_id="r1"),
)


def test_a_last_line_cut_after_its_trace_id_withholds_only_that_trace() -> None:
    # A writer killed mid-write: the line held one span, and its trace_id says whose.
    items = cut_after(b'"span_id":"c', *THREE_SPANS)
    cut, withheld, kept = items
    assert isinstance(cut, Rejection)
    assert (cut.line, cut.trace_id) == (3, "t1")
    assert cut.message == (
        "not valid JSON: unexpected end of data (at character 30); the line is cut short where"
        " the input ends, and its trace_id shows its one span was of trace 't1': only that"
        " trace is withheld"
    )
    assert isinstance(withheld, Rejection)
    assert withheld.message.startswith("trace 't1' not imported: its span on line 3 is malformed")
    assert isinstance(kept, Trace)
    assert kept.trace_id == "t2"
    assert "trailcheck.incomplete" not in kept.metadata  # complete: nothing of it was lost


@pytest.mark.parametrize(
    ("text", "end"),
    [
        (b'"span_id":"c', b"\n"),  # something was written after the cut: maybe a record
        (b'"trace_id":"t', b""),  # its trace id is itself cut
        (b'"span_id":"c1","parent_span_id":"r1"', b"x"),  # a syntax error, not a cut
    ],
)
def test_any_other_broken_last_line_withholds_every_trace(text: bytes, end: bytes) -> None:
    items = cut_after(text, *THREE_SPANS, end=end)
    assert not any(isinstance(item, Trace) for item in items)
    withheld = items[-1]
    assert isinstance(withheld, Rejection)
    assert withheld.trace_id is None
    assert "withheld because line 3 could not be read" in withheld.message
    assert "'t2'" in withheld.message


def test_keep_incomplete_keeps_what_a_broken_line_may_have_lost_a_span_of() -> None:
    data = b"".join(orjson.dumps(record) + b"\n" for record in THREE_SPANS[:2])
    data += orjson.dumps(THREE_SPANS[2])[:40] + b"\n"
    spans = read_span_jsonl_spans(io.BytesIO(data), "mem.jsonl")
    items = list(assemble_complete_traces(spans, "mem.jsonl", keep_incomplete=True))
    broken, shown, withheld, kept = items
    assert (broken.trace_id, shown.trace_id, withheld.trace_id) == (None, "t1", "t1")
    assert isinstance(kept, Trace)
    assert kept.trace_id == "t2"
    assert kept.metadata["trailcheck.incomplete"] == {
        "reason": "line 3 of mem.jsonl could not be read (not valid JSON: unexpected control"
        " character in string (at character 41)); a span on it may have belonged to this trace",
        "unreadable": [{"source": "mem.jsonl", "line": 3}],
    }


def test_a_bad_span_of_a_good_line_rejects_the_trace_once() -> None:
    # A well-formed line whose span ends before it starts: the trace's problem, not the line's.
    items = read_lines(span_line(start_ns=500, end_ns=400))
    (rejection,) = items
    assert isinstance(rejection, Rejection)
    assert (rejection.line, rejection.span_id, rejection.trace_id) == (1, "s1", "t1")
    assert "end_ns 400 < start_ns 500" in rejection.message


# --- detection -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b'\n\n{"trace_id": "t", "span_id": "s", "name": "x"}\n{"trace', True),
        (b'{"trace_id": "t", "input": "hi", "spans": [{"span_id": "s"}]}\n', False),
        (b'{"resourceSpans": [{"scopeSpans": [{"spans": []}]}]}', False),
        (b'{"trace_id": "t", "span_id": "s", "attributes": {"long": "cut o', False),
        (b'[{"role": "user", "content": "hi"}]\n', False),
        (b"\x0a\x12\x0a\x10binary protobuf", False),
        (b"   \n", False),
        (b"", False),
    ],
)
def test_detection_by_the_first_line(head: bytes, expected: bool) -> None:
    assert looks_like_span_jsonl(head) is expected


def test_detection_accepts_the_fixtures(fixtures: Path) -> None:
    for path in sorted((fixtures / "otel").glob("*.jsonl")):
        if path.name != "malformed-spans.jsonl":
            assert looks_like_span_jsonl(path.read_bytes()), path.name
