"""Decoding one line of trailcheck JSONL into a :class:`~trailcheck.trace.lean.LeanTrace`,
accepting and rejecting as the import path does.

:func:`decode_lean_trace` decodes a valid line straight into the lean structs, at about the
cost of parsing its JSON. A line msgspec refuses is the exception, and is read again the way
the import path reads it (``Trace.model_validate_json(line, strict=True)``, then
:func:`~trailcheck.trace.limits.first_unstorable`), so that the two paths reject the same lines
with the same :class:`~trailcheck.errors.RecordError`: its ``field`` the path of the value at
fault (``spans[3].end_ns``; ``None`` for the record as a whole: bad JSON, a broken invariant),
its ``message`` what is wrong. That reading includes the JSON text rules
(:mod:`trailcheck.json_text`), so a key given twice is refused there too.

Strict: text is not a number (``"5"`` is not a time), as the format's JSON Schema says. Not
JSON, and rejected whatever pydantic's parser makes of them: ``NaN``, ``Infinity``, and a number
too large for a float (``1e400``).

A line msgspec takes is not held to the JSON text rules here: checking them costs a pass over
the text (``loads_json``: about 2.6 times this decode). The bulk reader,
:func:`trailcheck.ingest.trailcheck_jsonl.parse_lean_line`, checks them where they can matter.
"""

from __future__ import annotations

from typing import Final

import msgspec
import orjson
from pydantic import ValidationError

from trailcheck.errors import RecordError
from trailcheck.json_text import JsonValueError, loads_json
from trailcheck.trace.error_fields import msgspec_error_field, record_error_of
from trailcheck.trace.lean import LeanTrace
from trailcheck.trace.limits import first_unstorable
from trailcheck.trace.trace import Trace

__all__ = ["decode_lean_trace"]

_DECODER: Final = msgspec.json.Decoder(LeanTrace)
# A JSON number beyond the range of a float: pydantic makes it infinity, which is not JSON.
_OUT_OF_RANGE: Final = "Number out of range"


def decode_lean_trace(data: bytes | str) -> LeanTrace:
    """One trailcheck JSONL line as a LeanTrace; ``RecordError`` (``field``, ``message``) when
    the import path would reject it."""
    try:
        return _DECODER.decode(data)
    except msgspec.ValidationError as error:
        message, field = msgspec_error_field(str(error))
        if message == _OUT_OF_RANGE:
            raise RecordError(message, field=field) from None
        return _as_imported(data)
    except msgspec.DecodeError as error:
        raise RecordError(str(error)) from None
    except RecursionError:
        raise RecordError("JSON is nested too deeply to read") from None


def _as_imported(data: bytes | str) -> LeanTrace:
    """The import path's reading of a line msgspec refused: its rejection, or (rarely) the
    trace it accepts."""
    try:
        trace = Trace.model_validate_json(data, strict=True)
    except ValidationError as error:
        raise record_error_of(error, Trace) from None
    found = first_unstorable(trace)
    if found is not None:
        raise RecordError(found.message, span_id=found.span_id, field=found.field)
    try:
        loads_json(data)  # what pydantic's reader lets through: NaN, a key twice, 65-bit integers
    except orjson.JSONDecodeError as error:
        raise RecordError(f"not valid JSON: {error.msg}") from None
    except JsonValueError as error:
        raise RecordError(error.message, field=error.field or None) from None
    return msgspec.convert(trace.model_dump(), LeanTrace)
