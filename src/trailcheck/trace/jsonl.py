"""Writing the trailcheck JSONL format: one :class:`~trailcheck.trace.Trace` per line, as its
JSON, and the JSON Schema of a line (``trailcheck schema trace``). Writing leaves out fields
that hold their default, so lines stay small; the reader
(:mod:`trailcheck.ingest.trailcheck_jsonl`) restores them, so the round trip is lossless.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO, Any, Final

from trailcheck.trace.lean import LeanTrace
from trailcheck.trace.trace import Trace

__all__ = [
    "SCHEMA_ID",
    "TRACE_FIELDS",
    "dump_lean_trace",
    "dump_trace",
    "trace_json_schema",
    "write_traces",
]

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


def _exponent_shape(byte: int) -> int:
    if ord("0") <= byte <= ord("9"):
        return ord("0")
    if byte in b"e.-":
        return byte
    return ord(":") if byte in b":,[" else ord(" ")


# Digits as 0; e, point and minus as themselves; what comes before a value (: , [) as a colon;
# every other byte a space. A number with a positive exponent shows as :0e0, :-0.00e00 ...
_EXPONENT_SHAPE: Final = bytes(_exponent_shape(byte) for byte in range(256))


def _may_hold_a_positive_exponent(encoded: bytes) -> bool:
    """Whether msgspec's ``encoded`` may hold a number written ``1e16``: a digit, ``e`` and a
    digit, in a token that starts where a value starts (not in an id such as ``"a01e5"``)."""
    shape = encoded.translate(_EXPONENT_SHAPE)
    at = shape.find(b"0e0")
    while at != -1:
        start = at
        while start > 0 and shape[start - 1] in b"0.-":
            start -= 1
        if start > 0 and shape[start - 1] == ord(":"):
            return True
        at = shape.find(b"0e0", at + 1)
    return False


def dump_lean_trace(trace: LeanTrace) -> bytes:
    """:func:`dump_trace` of the same trace, from its lean holder: the same bytes. msgspec
    writes a float's positive exponent as ``1e16`` where pydantic writes ``1e+16``; a line that
    may hold one is written by the model."""
    encoded = trace.encoded
    if _may_hold_a_positive_exponent(encoded):
        return dump_trace(trace.to_trace())
    return encoded


def write_traces(traces: Iterable[Trace], stream: IO[bytes]) -> int:
    """Write traces as JSONL; returns how many were written."""
    count = 0
    for trace in traces:
        stream.write(dump_trace(trace))
        stream.write(b"\n")
        count += 1
    return count
