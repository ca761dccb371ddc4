"""The trailcheck JSONL format: one :class:`~trailcheck.trace.Trace` per line, as its JSON.

Writing leaves out fields that hold their default, so lines stay small; reading restores them, so
the round trip is lossless. The JSON Schema of a line is generated from the model
(``trailcheck schema trace``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import IO, Any, BinaryIO

import orjson
from pydantic import ValidationError

from trailcheck.ingest.json_records import first_line_record
from trailcheck.ingest.json_text import JsonValueError, loads_json
from trailcheck.ingest.records import Rejection, validation_record_error
from trailcheck.trace import Trace
from trailcheck.trace.limits import first_unstorable

# A URN, not a URL: the schema ships in the package and is never fetched.
SCHEMA_ID = "urn:trailcheck:schema:trace:1"


TRACE_FIELDS = frozenset(Trace.model_fields)


def trace_json_schema() -> dict[str, Any]:
    """The JSON Schema of one line of the trailcheck JSONL format."""
    schema = Trace.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def dump_trace(trace: Trace) -> bytes:
    """One line of trailcheck JSONL (without the newline)."""
    return trace.model_dump_json(exclude_defaults=True).encode()


def write_traces(traces: Iterable[Trace], stream: IO[bytes]) -> int:
    """Write traces as JSONL; returns how many were written."""
    count = 0
    for trace in traces:
        stream.write(dump_trace(trace))
        stream.write(b"\n")
        count += 1
    return count


def parse_trace_line(line: bytes, *, source: str, line_number: int) -> Trace | Rejection:
    """One JSONL line as a Trace, or a Rejection naming the line and the field; an integer
    beyond what trailcheck stores (:mod:`trailcheck.trace.limits`) is one too."""
    try:
        loads_json(line)  # what pydantic's reader lets through: NaN, a key twice, 65-bit integers
        trace = Trace.model_validate_json(line)
    except orjson.JSONDecodeError as error:
        return Rejection(
            source,
            f"not valid JSON: {error.msg} (at character {error.pos + 1} of the line)",
            line=line_number,
            trace_id=_readable_trace_id(line),
        )
    except JsonValueError as error:
        return Rejection(
            source,
            error.message,
            line=line_number,
            field=error.field or "<record>",
            trace_id=_readable_trace_id(line),
        )
    except ValidationError as error:
        problem = validation_record_error(error)
        return Rejection(
            source,
            problem.message,
            line=line_number,
            field=problem.field or "<record>",
            trace_id=_readable_trace_id(line),
        )
    unstorable = first_unstorable(trace)
    if unstorable is None:
        return trace
    return Rejection(
        source,
        unstorable.message,
        line=line_number,
        span_id=unstorable.span_id,
        field=unstorable.field,
        trace_id=trace.trace_id,
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
    record = first_line_record(head)
    return isinstance(record, dict) and "trace_id" in record and record.keys() <= TRACE_FIELDS
