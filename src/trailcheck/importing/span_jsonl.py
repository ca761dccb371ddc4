"""One span per line: the JSONL simple OpenTelemetry exporters write (trace2evals does).

Each non-blank line is a JSON object with these keys:

=================  =====================================================================
``trace_id``       text, required
``span_id``        text, required
``parent_span_id`` text; ``null``, ``""`` (OTLP's spelling) or absent for a root
``name``           text, required
``start_ns``       integer ≥ 0, required
``end_ns``         integer ≥ 0; ``null`` or absent for a span that had not ended
``status``         ``"UNSET"``, ``"OK"`` or ``"ERROR"``, or ``{"code": one of those,
                   "message": text or null}``; absent means UNSET
``attributes``     object; absent means none
``events``         array of ``{"name": text, "time_ns": integer, "attributes": object}``
``resource``       object: the resource attributes of the process that recorded the span
=================  =====================================================================

Any other key makes the line malformed: a key this reader does not read is data it would drop.
A malformed line is a Rejection naming the line and field. The other spans of its trace are
withheld too, with one more Rejection saying so: a trace with a span missing is not the trace
that ran. When the line's ``trace_id`` cannot be read, every trace of the input is withheld, since
the lost span could be any trace's, with one Rejection saying so (see
:mod:`trailcheck.importing.complete_traces`).

A line that is not JSON is read as far as it goes (:mod:`trailcheck.importing.transport.cut_json`).
When it is *cut* (the last line of the input, with no line end after it, and no syntax error: a
writer
stopped mid-write, or a file read while being written) and its readable prefix shows its
top-level ``trace_id`` whole, once, the line held one span and it was of that trace: only that
trace is withheld. Any other broken line may be two writers' records run together (a collector
restarted and appending after a cut line), so it withholds every trace; a ``trace_id`` its
prefix shows still names a trace that certainly lost a span there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import orjson

from trailcheck.errors import RecordError
from trailcheck.importing.complete_traces import assemble_complete_traces
from trailcheck.importing.conventions.genai_messages import invalid_json_message, json_kind
from trailcheck.importing.records import RawSpan, Rejection
from trailcheck.importing.transport.cut_json import readable_prefix, shown_strings
from trailcheck.importing.transport.json_records import first_line_record
from trailcheck.importing.transport.lost_spans import shown_spans
from trailcheck.importing.transport.record_stream import MAX_RECORD_BYTES, bounded_lines
from trailcheck.json_text import JsonValueError, loads_json
from trailcheck.trace import SpanEvent, StatusCode, Trace

_KEYS: Final = frozenset(
    {
        "trace_id",
        "span_id",
        "parent_span_id",
        "name",
        "start_ns",
        "end_ns",
        "status",
        "attributes",
        "events",
        "resource",
    }
)
_EVENT_KEYS: Final = frozenset({"name", "time_ns", "attributes"})
_STATUS_KEYS: Final = frozenset({"code", "message"})
_STATUS_CODES: Final[dict[str, StatusCode]] = {"UNSET": "unset", "OK": "ok", "ERROR": "error"}


def read_span_jsonl(stream: BinaryIO, source: str) -> Iterator[Trace | Rejection]:
    """Traces from span-per-line JSONL. First the Rejections of malformed lines (in line order),
    then one Rejection for each trace whose readable spans are withheld because a line of it was
    malformed, then the traces in order of first appearance."""
    return assemble_complete_traces(read_span_jsonl_spans(stream, source), source)


def read_span_jsonl_spans(
    stream: BinaryIO, source: str, *, limit: int = MAX_RECORD_BYTES
) -> Iterator[RawSpan | Rejection]:
    """Every span of span-per-line JSONL, in line order (each carrying ``source`` and its line),
    or a Rejection for a malformed line; its ``trace_id`` names the trace that lost the span,
    ``None`` when the line's trace id cannot be read. A line over ``limit`` bytes is not read:
    a Rejection naming its line and offset
    (:mod:`~trailcheck.importing.transport.record_stream`)."""
    for read in bounded_lines(stream, source, limit=limit):
        if isinstance(read, Rejection):
            yield read
            continue
        line_number, line = read.number, read.text
        if not line.strip():
            continue
        record: Any = None
        try:
            record = _decode(line)
            yield _raw_span(record, line_number, source)
        except RecordError as error:
            rejection = Rejection(
                source=source,
                message=error.message,
                line=line_number,
                span_id=_readable_id(record, "span_id"),
                field=error.field,
                trace_id=_readable_id(record, "trace_id"),
            )
            yield from (_unreadable_line(rejection, line) if record is None else (rejection,))


def looks_like_span_jsonl(head: bytes) -> bool:
    """The first non-blank line is a whole JSON object with ``trace_id`` and ``span_id`` and no
    ``spans`` (a Trace per line has spans). A first line cut off by the end of ``head`` does not
    count."""
    record = first_line_record(head, containing=b'"trace_id"')
    return (
        isinstance(record, dict)
        and "trace_id" in record
        and "span_id" in record
        and "spans" not in record
    )


def _decode(line: bytes) -> dict[str, Any]:
    try:
        record = loads_json(line)
    except orjson.JSONDecodeError as error:
        raise RecordError(invalid_json_message(error)) from None
    except JsonValueError as error:
        raise RecordError(error.message, field=error.field or None) from None
    if not isinstance(record, dict):
        raise RecordError(f"a span line must be a JSON object, not {json_kind(record)}")
    return record


def _unreadable_line(rejection: Rejection, line: bytes) -> Iterator[Rejection]:
    """The Rejections of a line that is not a JSON object: which traces it withholds is what its
    readable prefix shows (see the module docstring)."""
    prefix = readable_prefix(line)
    found = shown_strings(prefix.text, ("trace_id",))
    shown = [trace_id for trace_id in found if trace_id.value]
    if prefix.cut and not line.endswith(b"\n") and len(found) == 1 and found[0].value:
        trace_id = found[0].value
        yield dataclasses.replace(
            rejection,
            message=f"{rejection.message}; the line is cut short where the input ends, and its"
            f" trace_id shows its one span was of trace {trace_id!r}: only that trace is withheld",
            trace_id=trace_id,
        )
        return
    yield rejection
    yield from shown_spans(rejection, shown)


def _readable_id(record: Any, key: str) -> str | None:
    # Only to say which trace a bad line belonged to, when that much of it can be read.
    value = record.get(key) if isinstance(record, dict) else None
    return value if isinstance(value, str) and value else None


def _raw_span(record: dict[str, Any], line_number: int, source: str) -> RawSpan:
    unknown = sorted(set(record) - _KEYS)
    if unknown:
        raise RecordError(
            f"unknown key {unknown[0]!r}; a span line has only {', '.join(sorted(_KEYS))}",
            field=unknown[0],
        )
    status_code, status_message = _status(record.get("status"))
    parent = record.get("parent_span_id")
    return RawSpan(
        trace_id=_required_text(record, "trace_id"),
        span_id=_required_text(record, "span_id"),
        parent_id=None if parent in (None, "") else _required_text(record, "parent_span_id"),
        name=_required_text(record, "name"),
        start_ns=_nanoseconds(record.get("start_ns"), "start_ns"),
        end_ns=None if record.get("end_ns") is None else _nanoseconds(record["end_ns"], "end_ns"),
        status_code=status_code,
        status_message=status_message,
        attributes=_object(record.get("attributes"), "attributes"),
        events=_events(record.get("events")),
        resource=_object(record.get("resource"), "resource"),
        line=line_number,
        source=source,
    )


def _required_text(record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    if value is None:
        raise RecordError("is missing (a non-empty string)", field=key)
    if not isinstance(value, str) or not value:
        shown = "empty" if value == "" else json_kind(value)
        raise RecordError(f"must be a non-empty string, not {shown}", field=key)
    return value


def _nanoseconds(value: Any, field: str) -> int:
    if value is None:
        raise RecordError("is missing (an integer of nanoseconds ≥ 0)", field=field)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RecordError(f"must be an integer of nanoseconds ≥ 0, not {value!r}", field=field)
    return value


def _object(value: Any, field: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RecordError(f"must be a JSON object, not {json_kind(value)}", field=field)
    return value


def _status(value: Any) -> tuple[StatusCode, str | None]:
    if value is None:
        return "unset", None
    if isinstance(value, str):
        return _status_code(value, "status"), None
    if not isinstance(value, dict):
        raise RecordError(
            f"must be a status code or an object with code and message, not {json_kind(value)}",
            field="status",
        )
    unknown = sorted(set(value) - _STATUS_KEYS)
    if unknown:
        raise RecordError(f"unknown key {unknown[0]!r}", field=f"status.{unknown[0]}")
    message = value.get("message")
    if message is not None and not isinstance(message, str):
        raise RecordError(f"must be a string, not {json_kind(message)}", field="status.message")
    return _status_code(value.get("code"), "status.code"), message


def _status_code(value: Any, field: str) -> StatusCode:
    if not isinstance(value, str) or value not in _STATUS_CODES:
        raise RecordError(
            f"status code {value!r} is not one of {', '.join(_STATUS_CODES)}", field=field
        )
    return _STATUS_CODES[value]


def _events(value: Any) -> list[SpanEvent]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise RecordError(f"must be a JSON array, not {json_kind(value)}", field="events")
    return [_event(item, f"events[{index}]") for index, item in enumerate(value)]


def _event(item: Any, field: str) -> SpanEvent:
    if not isinstance(item, dict):
        raise RecordError(f"an event must be a JSON object, not {json_kind(item)}", field=field)
    unknown = sorted(set(item) - _EVENT_KEYS)
    if unknown:
        raise RecordError(f"unknown key {unknown[0]!r}", field=f"{field}.{unknown[0]}")
    name = item.get("name")
    if not isinstance(name, str):
        raise RecordError("an event needs a string name", field=f"{field}.name")
    return SpanEvent(
        name=name,
        time_ns=_nanoseconds(item.get("time_ns"), f"{field}.time_ns"),
        attributes=_object(item.get("attributes"), f"{field}.attributes"),
    )
