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
    "write_lines",
    "write_traces",
]

# A URN, not a URL: the schema ships in the package and is never fetched.
SCHEMA_ID = "urn:trailcheck:schema:trace:1"
_ENCODE: Final = msgspec.json.Encoder().encode
# Lines are written in batches of about this many bytes, one write each: a trace's line is often
# a few kilobytes, and written alone it would overflow a stream's buffer (8 KiB) every other line.
WRITE_BATCH_BYTES: Final = 1 << 20


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
    return write_lines(map(dump_trace, traces), stream)


def write_lines(lines: Iterable[bytes], stream: IO[bytes]) -> int:
    """Write each of ``lines`` (JSON texts without their newline) and a newline to ``stream``, in
    batches of about :data:`WRITE_BATCH_BYTES`; returns how many were written. Lines read
    before ``lines`` raises are written before the error goes on."""
    count = 0
    batch: list[bytes] = []
    size = 0
    try:
        for line in lines:
            batch.append(line)
            size += len(line)
            count += 1
            if size >= WRITE_BATCH_BYTES:
                batch.append(b"")
                stream.write(b"\n".join(batch))
                batch, size = [], 0
    finally:
        if batch:
            batch.append(b"")
            stream.write(b"\n".join(batch))
    return count
