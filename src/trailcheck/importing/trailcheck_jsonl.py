"""Reading the trailcheck JSONL format (one :class:`~trailcheck.trace.Trace` per line), each bad
line a Rejection naming it. The writer and the JSON Schema of a line live with the model
(:mod:`trailcheck.trace.jsonl`); reading restores the defaults writing leaves out, so the round
trip is lossless.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

import orjson

from trailcheck.errors import RecordError
from trailcheck.importing.records import Rejection
from trailcheck.importing.transport.json_records import first_line_record
from trailcheck.json_text import (
    JsonValueError,
    loads_json,
    may_break_a_value_rule,
)
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import TRACE_FIELDS, dump_trace
from trailcheck.trace.record import field_parts


def parse_trace_line(line: bytes, *, source: str, line_number: int) -> Trace | Rejection:
    """One JSONL line as a Trace, or a Rejection naming the line and the field, at about the cost
    of parsing the JSON. Numbers are read strictly, as the format's JSON Schema says (``"5"`` is
    text, not a time), and an integer beyond what trailcheck stores is refused
    (:mod:`trailcheck.trace.limits`).

    The JSON text rules (:mod:`~trailcheck.json_text`: a key given twice, an integer beyond 64
    bits, nesting deeper than the rules allow) are checked in full only where they can matter:
    where the line is not what encoding its decoding gives, colon for colon, may hold an integer
    beyond 64 bits, or opens more arrays and objects than the rules let it nest."""
    read = read_trace_line(line, source=source, line_number=line_number)
    return read if isinstance(read, Rejection) else read[0]


def read_trace_line(
    line: bytes, *, source: str, line_number: int
) -> tuple[Trace, bytes] | Rejection:
    """:func:`parse_trace_line`, the trace with its line as trailcheck writes it
    (:func:`~trailcheck.trace.jsonl.dump_trace`), which reading encodes anyway to hold the
    rules: an import that writes the trace back need not encode it again."""
    try:
        trace = Trace.model_validate_json(line)
    except RecordError as error:
        record = _readable_record(line)
        return Rejection(
            source,
            error.message,
            line=line_number,
            span_id=_span_id_at(record, error.field),
            field=error.field or "<record>",
            trace_id=_text(record.get("trace_id")),
        )
    written = dump_trace(trace)
    if not _as_written(line, written) or may_break_a_value_rule(line):
        try:
            loads_json(line)
        except JsonValueError as error:
            return _json_rule_rejection(error, line, source=source, line_number=line_number)
        except orjson.JSONDecodeError as error:  # nested past what orjson reads at all
            return Rejection(source, str(error), line=line_number, field="<record>")
    return trace, written


def _as_written(line: bytes, written: bytes) -> bool:
    """Whether ``line`` holds each key of each object once: true when it is ``written``, what
    encoding its decoding gives, byte for byte (as every line trailcheck writes is), or colon
    for colon (the colons outside strings are the keys, and the strings hold the same colons
    unless one is written as an escape)."""
    # Compared in place: a line is kilobytes, and stripping its newline would copy it.
    if line.startswith(written) and not line[len(written) :].strip(b"\r\n"):
        return True
    return written.count(b":") == line.count(b":") and b"\\u003" not in line


def _json_rule_rejection(
    error: JsonValueError, line: bytes, *, source: str, line_number: int
) -> Rejection:
    return Rejection(
        source,
        error.message,
        line=line_number,
        field=error.field or "<record>",
        trace_id=_text(_readable_record(line).get("trace_id")),
    )


def _readable_record(line: bytes) -> dict[str, Any]:
    # Only for the error message: what a bad record's ids are, when they can be read at all.
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return {}
    return record if isinstance(record, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _span_id_at(record: dict[str, Any], field: str | None) -> str | None:
    """The id of the span a rejected field is in (``spans[2].end_ns``), when it can be read."""
    parts = field_parts(field)
    spans = record.get("spans")
    if len(parts) < 2 or parts[0] != "spans" or not isinstance(spans, list):
        return None
    index = parts[1]
    span = spans[index] if isinstance(index, int) and 0 <= index < len(spans) else None
    return _text(span.get("span_id")) if isinstance(span, dict) else None


def read_trailcheck_jsonl(stream: BinaryIO, source: str) -> Iterator[Trace | Rejection]:
    """Traces from trailcheck JSONL; blank lines are skipped, bad lines become Rejections."""
    for line_number, line in enumerate(stream, start=1):
        if line and not line.isspace():
            yield parse_trace_line(line, source=source, line_number=line_number)


def looks_like_trailcheck_jsonl(head: bytes) -> bool:
    """The first record is an object with a ``trace_id`` and only fields of a Trace."""
    record = first_line_record(head, containing=b'"trace_id"')
    return isinstance(record, dict) and "trace_id" in record and record.keys() <= TRACE_FIELDS
