"""Writing the trailcheck JSONL format: one :class:`~trailcheck.trace.Trace` per line, as its
JSON, and the JSON Schema of a line (``trailcheck schema trace``). Writing leaves out fields
that hold their default, so lines stay small; the reader
(:mod:`trailcheck.importing.trailcheck_jsonl`) restores them, so the round trip is lossless.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO, Any, Final

import msgspec

from trailcheck.trace.trace import Trace

__all__ = [
    "SCHEMA_ID",
    "TRACE_FIELDS",
    "dump_trace",
    "trace_json_schema",
    "write_traces",
]

# A URN, not a URL: the schema ships in the package and is never fetched.
SCHEMA_ID = "urn:trailcheck:schema:trace:1"
_ENCODE: Final = msgspec.json.Encoder().encode


TRACE_FIELDS = frozenset(Trace.__struct_fields__)


def trace_json_schema() -> dict[str, Any]:
    """The JSON Schema of one line of the trailcheck JSONL format."""
    schema = Trace.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def dump_trace(trace: Trace) -> bytes:
    """One line of trailcheck JSONL (without the newline)."""
    return _ENCODE(trace)


def write_traces(traces: Iterable[Trace], stream: IO[bytes]) -> int:
    """Write traces as JSONL; returns how many were written."""
    count = 0
    for trace in traces:
        stream.write(dump_trace(trace))
        stream.write(b"\n")
        count += 1
    return count
