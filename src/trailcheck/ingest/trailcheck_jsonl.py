"""Reading the trailcheck JSONL format (one :class:`~trailcheck.trace.Trace` per line), each bad
line a Rejection naming it. The writer and the JSON Schema of a line live with the model
(:mod:`trailcheck.trace.jsonl`); reading restores the defaults writing leaves out, so the round
trip is lossless.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

import orjson
from pydantic import ValidationError

from trailcheck.errors import RecordError
from trailcheck.ingest.records import Rejection
from trailcheck.ingest.transport.json_records import first_line_record
from trailcheck.json_text import (
    JsonValueError,
    loads_json,
    may_hold_a_long_integer,
    may_nest_too_deeply,
)
from trailcheck.trace import Trace
from trailcheck.trace.error_fields import record_error_of
from trailcheck.trace.jsonl import TRACE_FIELDS
from trailcheck.trace.lean import LeanTrace
from trailcheck.trace.lean_decode import decode_lean_trace
from trailcheck.trace.limits import first_unstorable


def parse_trace_line(line: bytes, *, source: str, line_number: int) -> Trace | Rejection:
    """One JSONL line as a Trace, or a Rejection naming the line and the field; an integer
    beyond what trailcheck stores (:mod:`trailcheck.trace.limits`) is one too. Numbers are read
    strictly, as the format's JSON Schema says: ``"5"`` is text, not a time."""
    try:
        trace = Trace.model_validate_json(line, strict=True)
    except ValidationError as error:
        problem = record_error_of(error, Trace)
        return Rejection(
            source,
            problem.message,
            line=line_number,
            field=problem.field or "<record>",
            trace_id=_readable_trace_id(line),
        )
    unstorable = first_unstorable(trace)
    if unstorable is not None:
        return Rejection(
            source,
            unstorable.message,
            line=line_number,
            span_id=unstorable.span_id,
            field=unstorable.field,
            trace_id=trace.trace_id,
        )
    try:
        loads_json(line)  # what pydantic's reader lets through: NaN, a key twice, 65-bit integers
    except orjson.JSONDecodeError as error:
        return Rejection(
            source,
            f"not valid JSON: {error.msg} (at character {error.pos + 1} of the line)",
            line=line_number,
            trace_id=trace.trace_id,
        )
    except JsonValueError as error:
        return _json_rule_rejection(error, line, source=source, line_number=line_number)
    return trace


def parse_lean_line(line: bytes, *, source: str, line_number: int) -> LeanTrace | Rejection:
    """:func:`parse_trace_line` for bulk reading: the same acceptance and the same rejections,
    into a :class:`~trailcheck.trace.lean.LeanTrace` at about the cost of parsing the JSON.

    The JSON text rules (:mod:`~trailcheck.json_text`) are checked in full only where
    they can matter: where the line is not what encoding its decoding gives, colon for colon (a
    key given twice, or a default written out), may hold an integer beyond 64 bits, or opens
    more arrays and objects than the rules let it nest."""
    try:
        trace = decode_lean_trace(line)
    except RecordError as error:
        return Rejection(
            source,
            error.message,
            line=line_number,
            span_id=error.span_id,
            field=error.field or "<record>",
            trace_id=_readable_trace_id(line),
        )
    if not _as_written(line, trace) or may_hold_a_long_integer(line) or may_nest_too_deeply(line):
        try:
            loads_json(line)
        except JsonValueError as error:
            return _json_rule_rejection(error, line, source=source, line_number=line_number)
        except orjson.JSONDecodeError as error:  # nested past what orjson reads at all
            return Rejection(source, str(error), line=line_number, field="<record>")
    return trace


def _as_written(line: bytes, trace: LeanTrace) -> bool:
    """Whether ``line`` holds each key of each object once: true when it is what encoding its
    decoding gives, byte for byte (as every line trailcheck writes is), or colon for colon (the
    colons outside strings are the keys, and the strings hold the same colons unless one is
    written as an escape)."""
    encoded = trace.encoded
    text = line.rstrip(b"\r\n")
    if encoded == text:
        return True
    return encoded.count(b":") == text.count(b":") and b"\\u003" not in text


def _json_rule_rejection(
    error: JsonValueError, line: bytes, *, source: str, line_number: int
) -> Rejection:
    return Rejection(
        source,
        error.message,
        line=line_number,
        field=error.field or "<record>",
        trace_id=_readable_trace_id(line),
    )


def _readable_trace_id(line: bytes) -> str | None:
    # Only for the error message: a bad record's id, when it can be read at all.
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    trace_id = record.get("trace_id") if isinstance(record, dict) else None
    return trace_id if isinstance(trace_id, str) else None


def read_trailcheck_jsonl(stream: BinaryIO, source: str) -> Iterator[Trace | Rejection]:
    """Traces from trailcheck JSONL; blank lines are skipped, bad lines become Rejections."""
    for line_number, line in enumerate(stream, start=1):
        if line.strip():
            yield parse_trace_line(line, source=source, line_number=line_number)


def looks_like_trailcheck_jsonl(head: bytes) -> bool:
    """The first record is an object with a ``trace_id`` and only fields of a Trace."""
    record = first_line_record(head, containing=b'"trace_id"')
    return isinstance(record, dict) and "trace_id" in record and record.keys() <= TRACE_FIELDS
