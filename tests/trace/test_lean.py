"""The lean holder of a trace: decoded from trailcheck JSON, read through the same views as the
pydantic Trace, rejected with the field the import path names."""

from __future__ import annotations

import json
import math
from typing import Any

import msgspec
import orjson
import pytest
from pydantic import ValidationError

from trailcheck.errors import RecordError
from trailcheck.ingest.records import Rejection
from trailcheck.ingest.trailcheck_jsonl import parse_lean_line, parse_trace_line
from trailcheck.testing import TraceBuilder
from trailcheck.trace import LeanTrace, Trace, TraceView, decode_lean_trace
from trailcheck.trace.error_fields import (
    field_path,
    msgspec_error_field,
    pydantic_error_field,
    record_error_of,
)
from trailcheck.trace.jsonl import dump_lean_trace, dump_trace
from trailcheck.trace.lean import LeanSpan, LeanStatus
from trailcheck.trace.limits import INT64_MAX


def _trace() -> Trace:
    builder = TraceBuilder("t1", input="refund A-1 please")
    builder.llm("I will look the order up", input_tokens=100, output_tokens=20)
    builder.tool("lookup_order", {"order_id": "A-1"}, result={"status": "delivered"})
    builder.tool("issue_refund", {"order_id": "A-1", "amount": 25}, error="declined")
    return builder.output({"refund": "R-1"}).build()


def _line(**changes: Any) -> bytes:
    """A trace's line with its top-level fields replaced (``None`` removes one)."""
    record = orjson.loads(dump_trace(_trace()))
    for key, value in changes.items():
        if value is None:
            record.pop(key, None)
        else:
            record[key] = value
    return json.dumps(record).encode()  # integers of any size, as they were


def _span(**fields: Any) -> dict[str, Any]:
    return {"trace_id": "t1", "span_id": "s", "name": "n", "start_ns": 1, **fields}


def _rejection(line: bytes | str) -> RecordError:
    with pytest.raises(RecordError) as caught:
        decode_lean_trace(line)
    return caught.value


def test_a_line_decodes_to_the_trace_it_was_written_from() -> None:
    trace = _trace()
    lean = decode_lean_trace(dump_trace(trace))
    assert lean.to_trace() == trace
    assert lean.to_trace().model_dump() == trace.model_dump()


def test_the_derived_views_are_the_pydantic_traces() -> None:
    trace = _trace()
    lean = decode_lean_trace(dump_trace(trace))
    assert lean.tool_calls == trace.tool_calls
    assert [call.key for call in lean.tool_calls] == [call.key for call in trace.tool_calls]
    assert lean.input_text == trace.input_text
    assert lean.final_text == trace.final_text
    assert lean.duration_ns == trace.duration_ns
    assert [span.span_id for span in lean.tree] == [span.span_id for span in trace.tree]
    assert [s.failed for s in lean.spans] == [s.failed for s in trace.spans]
    assert [s.duration_ns for s in lean.spans] == [s.duration_ns for s in trace.spans]


def test_derived_views_are_computed_once_and_kept() -> None:
    lean = decode_lean_trace(dump_trace(_trace()))
    assert lean.tool_calls is lean.tool_calls
    assert lean.tree is lean.tree
    call = lean.tool_calls[0]
    assert call.key is call.key
    # Kept beside the fields, not in them: the conversion and the encoding do not see them.
    assert "tool_calls" not in msgspec.to_builtins(lean)
    assert lean.to_trace().model_dump() == _trace().model_dump()


def test_both_holders_are_trace_views() -> None:
    views: list[TraceView] = [_trace(), decode_lean_trace(dump_trace(_trace()))]
    assert [view.trace_id for view in views] == ["t1", "t1"]


def test_the_structs_are_frozen() -> None:
    lean = decode_lean_trace(dump_trace(_trace()))
    with pytest.raises(AttributeError):
        lean.trace_id = "other"  # type: ignore[misc]


def test_defaults_are_the_models_defaults() -> None:
    lean = decode_lean_trace(
        b'{"trace_id": "t", "spans": [{"trace_id": "t", "span_id": "s",'
        b' "name": "n", "start_ns": 5}]}'
    )
    span = lean.spans[0]
    assert (span.kind, span.status, span.attributes, span.events) == ("other", LeanStatus(), {}, [])
    assert (lean.metadata, lean.input, lean.usage) == ({}, None, None)
    assert lean.to_trace() == Trace.model_validate_json(msgspec.json.encode(lean))


def test_values_beyond_64_bits_in_free_values_are_kept_exactly() -> None:
    lean = decode_lean_trace(_line(metadata={"big": 2**70}, final_output=[2**64, -(2**80)]))
    assert lean.metadata["big"] == 2**70
    assert lean.to_trace().final_output == [2**64, -(2**80)]


@pytest.mark.parametrize(
    ("changes", "field", "says"),
    [
        ({"trace_id": ""}, "trace_id", "at least 1 character"),
        ({"trace_id": None}, "trace_id", "Field required"),
        ({"surprise": 1}, "surprise", "Extra inputs are not permitted"),
        ({"input": 5}, "input", "valid string"),
        ({"input": [{"role": "robot"}]}, "input[0].role", "'user', 'assistant' or 'tool'"),
        ({"input": [{"role": "user", "content": [5]}]}, "input[0].content[0]", "an object"),
        ({"metadata": []}, "metadata", "an object"),
        ({"usage": {"cost_usd": -1}}, "usage.cost_usd", "greater than or equal to 0"),
        ({"usage": {"input_tokens": "5"}}, "usage.input_tokens", "valid integer"),
        ({"usage": {"input_tokens": 5.0}}, "usage.input_tokens", "valid integer"),
        ({"spans": [_span(end_ns=0)]}, "spans[0]", "end_ns 0 < start_ns 1"),
        ({"spans": [_span(start_ns=-1)]}, "spans[0].start_ns", "greater than or equal to 0"),
        ({"spans": [_span(kind="tool")]}, "spans[0]", "a tool span needs 'tool'"),
        ({"spans": [_span(kind="robot")]}, "spans[0].kind", "'guard' or 'other'"),
        ({"spans": [_span(status=None)]}, "spans[0].status", "an object"),
        ({"spans": [_span(kind="tool", tool={})]}, "spans[0].tool.name", "Field required"),
        ({"spans": [_span(parent_id="s")]}, None, "parent cycle s -> s"),
        ({"spans": [_span(trace_id="t2")]}, None, "belongs to trace 't2'"),
        ({"spans": [_span(parent_id="p")]}, None, "orphan"),
        ({"spans": [_span(), _span()]}, None, "duplicate span ids: s"),
    ],
)
def test_a_bad_line_is_rejected_as_the_import_path_rejects_it(
    changes: dict[str, Any], field: str | None, says: str
) -> None:
    line = _line(**changes)
    rejection = _rejection(line)
    assert (rejection.field, says in rejection.message) == (field, True), rejection.message
    with pytest.raises(ValidationError) as caught:
        Trace.model_validate_json(line, strict=True)
    assert pydantic_error_field(caught.value, Trace) == field
    assert str(record_error_of(caught.value, Trace)) == str(rejection)


def test_a_key_given_twice_is_refused_whichever_of_its_values_msgspec_met_first() -> None:
    # msgspec validates every value it meets, pydantic only the last of a key given twice; the
    # JSON text rules refuse the line either way, as the import path does.
    line = b'{"trace_id": 5, "trace_id": "t1", "metadata": {"a": 1}}'
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(line, type=LeanTrace)
    assert _rejection(line).field == "trace_id"
    assert "given twice" in _rejection(line).message


@pytest.mark.parametrize(
    ("where", "span_id"),
    [
        ("spans[0].start_ns", "s"),
        ("spans[0].events[0].time_ns", "s"),
        ("usage.output_tokens", None),
    ],
)
def test_an_integer_beyond_64_bits_is_rejected_as_the_import_path_rejects_it(
    where: str, span_id: str | None
) -> None:
    huge = 2**64
    span = _span(events=[{"name": "e", "time_ns": huge if "events" in where else 1}])
    if where == "spans[0].start_ns":
        span["start_ns"] = huge
    usage = {"output_tokens": huge} if where.startswith("usage") else None
    rejection = _rejection(_line(spans=[span], usage=usage))
    assert (rejection.field, rejection.span_id) == (where, span_id)
    assert rejection.message.startswith(f"{huge}")
    assert "signed 64-bit integer" in rejection.message


def test_an_unstorable_integer_gives_way_to_a_problem_the_import_path_finds_first() -> None:
    # pydantic validates the span (end before start) before anything checks the integers.
    rejection = _rejection(_line(spans=[_span(start_ns=INT64_MAX + 1, end_ns=5)]))
    assert (rejection.field, rejection.message) == (
        "spans[0]",
        f"span 's': end_ns 5 < start_ns {INT64_MAX + 1}",
    )


@pytest.mark.parametrize(
    "text",
    [b'{"trace_id": "t", "final_output": NaN}', b'{"trace_id": "t", "final_output": [-Infinity]}'],
)
def test_nan_and_infinity_are_not_json(text: bytes) -> None:
    rejection = _rejection(text)
    assert rejection.field is None
    assert "malformed" in rejection.message


def test_a_number_too_large_for_a_float_is_rejected() -> None:
    rejection = _rejection(b'{"trace_id": "t", "final_output": [1, 1e400]}')
    assert (rejection.field, rejection.message) == ("final_output[1]", "Number out of range")


@pytest.mark.parametrize("text", [b"", b"[]", b"{", b'"t"', b"\xff"])
def test_what_is_not_a_json_object_is_the_record_at_fault(text: bytes) -> None:
    assert _rejection(text).field is None


def test_nesting_past_the_recursion_limit_is_a_rejection_not_a_crash() -> None:
    deep = b"[" * 20_000 + b"]" * 20_000
    rejection = _rejection(b'{"trace_id": "t", "final_output": ' + deep + b"}")
    assert (rejection.field, rejection.message) == (None, "JSON is nested too deeply to read")


def test_nesting_within_what_both_parsers_take_is_read() -> None:
    nested = "[" * 200 + "]" * 200
    line = '{"trace_id": "t", "final_output": ' + nested + "}"
    assert decode_lean_trace(line).to_trace() == Trace.model_validate_json(line, strict=True)


# The JSON text rules of the import path (trailcheck/json_text.py), as the bulk reader checks them.


def _import_rejects(line: bytes) -> Rejection:
    read = parse_trace_line(line, source="t.jsonl", line_number=1)
    assert isinstance(read, Rejection)
    return read


def _bulk_rejects(line: bytes) -> Rejection:
    read = parse_lean_line(line, source="t.jsonl", line_number=1)
    assert isinstance(read, Rejection), read
    return read


def test_a_key_given_twice_is_refused_by_both_readers() -> None:
    line = b'{"trace_id": "t", "metadata": {"a": 1, "a": 2}}'
    assert _import_rejects(line).field == "metadata.a"
    assert _bulk_rejects(line) == _import_rejects(line)


def test_an_integer_beyond_64_bits_in_a_free_value_is_refused_by_both_readers() -> None:
    line = b'{"trace_id": "t", "metadata": {"a": 18446744073709551616}}'
    assert _import_rejects(line).field == "metadata.a"
    assert _bulk_rejects(line) == _import_rejects(line)


def test_a_default_written_out_is_read_by_the_bulk_reader_as_by_the_import_path() -> None:
    # Not as trailcheck writes it, so the bulk reader checks the JSON text rules in full.
    line = b'{"trace_id": "t", "input": null, "metadata": {}, "spans": []}'
    read = parse_lean_line(line, source="t.jsonl", line_number=1)
    assert isinstance(read, LeanTrace)
    assert read.to_trace() == parse_trace_line(line, source="t.jsonl", line_number=1)


@pytest.mark.parametrize("depth", [241, 253, 600])
def test_nesting_the_import_path_refuses_the_bulk_reader_refuses(depth: int) -> None:
    line = b'{"trace_id": "t", "final_output": ' + b"[" * depth + b"]" * depth + b"}"
    assert "recursion limit exceeded" in _import_rejects(line).message  # pydantic's
    rejection = parse_lean_line(line, source="t.jsonl", line_number=1)
    assert isinstance(rejection, Rejection)
    assert rejection.line == 1
    assert rejection.field is not None
    assert rejection.field.startswith("final_output[0][0]")
    assert "nested deeper than 240 levels" in rejection.message


def test_brackets_inside_text_are_not_nesting() -> None:
    # Past the bracket count, the full check runs and finds nothing wrong.
    line = b'{"trace_id": "t", "final_output": "' + b"[{" * 300 + b'"}'
    read = parse_lean_line(line, source="t.jsonl", line_number=1)
    assert isinstance(read, LeanTrace)
    assert read.final_output == "[{" * 300


def test_the_import_path_reads_numbers_strictly() -> None:
    line = _line(spans=[_span(start_ns="5")])
    assert _rejection(line).field == "spans[0].start_ns"
    assert _import_rejects(line).field == "spans[0].start_ns"


def test_the_span_check_is_the_pydantic_models() -> None:
    bad = {"trace_id": "t", "span_id": "s", "name": "n", "start_ns": 5, "end_ns": 1}
    with pytest.raises(ValidationError, match="end_ns 1 < start_ns 5"):
        Trace.model_validate({"trace_id": "t", "spans": [bad]})
    with pytest.raises(ValueError, match="end_ns 1 < start_ns 5"):
        LeanSpan(trace_id="t", span_id="s", name="n", start_ns=5, end_ns=1)


def test_msgspec_messages_split_into_what_and_where() -> None:
    assert msgspec_error_field("Expected `int` >= 0 - at `$.spans[3].end_ns`") == (
        "Expected `int` >= 0",
        "spans[3].end_ns",
    )
    assert msgspec_error_field("Object missing required field `name` - at `$.spans[0]`") == (
        "Object missing required field `name`",
        "spans[0].name",
    )
    assert msgspec_error_field("Object contains unknown field `x`") == (
        "Object contains unknown field `x`",
        "x",
    )
    assert msgspec_error_field("Expected `object`, got `array`") == (
        "Expected `object`, got `array`",
        None,
    )


def test_field_paths_are_written_with_dots_and_brackets() -> None:
    assert field_path(("spans", 3, "tool", "name")) == "spans[3].tool.name"
    assert field_path(()) is None


def test_lean_structs_compare_floats_as_python_does() -> None:
    lean = decode_lean_trace(_line(final_output=0.1, metadata={"x": -0.0}))
    assert lean.final_output == 0.1
    assert math.copysign(1, lean.metadata["x"]) == -1


@pytest.mark.parametrize("value", [1e16, 1.81544e174, -1e300, 1e-7, 0.1, 1e15, 12345.678])
@pytest.mark.parametrize("text", ["1e5 in a text", "ids a01e5, :1e5 and [2e7]"])
def test_the_lean_dump_is_the_pydantic_dump_whatever_the_exponent(value: float, text: str) -> None:
    trace = TraceBuilder("t00001e5", input=text).output({"big": [value], "n": [3, 4e20]}).build()
    line = dump_trace(trace)
    lean = decode_lean_trace(line)
    assert dump_lean_trace(lean) == line
    assert orjson.loads(dump_lean_trace(lean))["final_output"] == {"big": [value], "n": [3, 4e20]}
