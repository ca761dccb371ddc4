"""What the store's integers can hold, checked before anything is written.

Both backends hold the same integers: a ``BIGINT`` column (times in nanoseconds, the ``*_ns``
columns) is signed 64-bit on PostgreSQL and SQLite (whose ``INTEGER`` is at most 8 bytes), and an
``INTEGER`` column (span counts, attempts) is signed 32-bit on PostgreSQL. A trace's content is
JSON text: its typed integers (span and event times, token counts, tool call sequence numbers)
are held to signed 64-bit too (:mod:`trailcheck.trace.limits`, where the importers check them,
with the file and line), and its attribute values to what JSON tools read back exactly.

Every write meets one of these checks, all sharing :func:`check_integer`'s rule:

- :func:`check_trace` runs on every trace the store is given (``trailcheck.store.rows.trace_rows``,
  which every write of a trace goes through), naming the span and field: ``span 's3': field
  'spans[2].end_ns': trace 't1' cannot be stored: 9223372036854775808 is beyond what trailcheck
  can store ...``. Ingest refuses that trace whole; the OTLP endpoint's sweep quarantines it.
  :func:`content_json` refuses an attribute value beyond 64 bits the same way.
- :class:`Int64` and :class:`Int32`, the types of every integer column of
  :mod:`trailcheck.store.schema`, check each value as it is bound to a statement, whatever wrote
  it: no statement reaches the database with a value its column cannot hold (which would be a
  driver's ``OverflowError``, or PostgreSQL's ``numeric value out of range``).

All raise :class:`StoreLimitError`, a :class:`~trailcheck.errors.RecordError` that SQLAlchemy
passes through unwrapped; the transaction it interrupts is rolled back whole. OTLP times are
unsigned 64-bit: the OTLP decoders refuse one above ``INT64_MAX`` (the year 2262) at the door,
naming the field (:func:`trailcheck.importing.transport.otlp_values.storable_time`).
"""

from __future__ import annotations

from typing import Any, Final

import orjson
from sqlalchemy import BigInteger, Dialect, Integer
from sqlalchemy.exc import DontWrapMixin
from sqlalchemy.types import TypeDecorator

from trailcheck.errors import RecordError
from trailcheck.trace import Trace
from trailcheck.trace.limits import INT64_MAX, INT64_MIN, first_unstorable

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "INT64_MAX",
    "INT64_MIN",
    "Int32",
    "Int64",
    "StoreLimitError",
    "check_integer",
    "check_trace",
    "content_json",
]

INT32_MIN: Final = -(2**31)
INT32_MAX: Final = 2**31 - 1


class StoreLimitError(RecordError, DontWrapMixin):
    """A value is beyond what the store can hold; nothing of the write that met it happened."""


def check_integer(value: int, *, minimum: int = INT64_MIN, maximum: int = INT64_MAX) -> int:
    """``value``, or StoreLimitError when it is outside [minimum, maximum]."""
    if minimum <= value <= maximum:
        return value
    bits = 32 if maximum == INT32_MAX else 64
    raise StoreLimitError(
        f"{value} is beyond what the store holds: a signed {bits}-bit integer,"
        f" from {minimum} to {maximum}"
    )


def check_trace(trace: Trace) -> None:
    """StoreLimitError naming the span and field of the trace's first typed integer (a time, a
    token count, a sequence number) beyond signed 64-bit
    (:func:`~trailcheck.trace.limits.first_unstorable`)."""
    found = first_unstorable(trace)
    if found is not None:
        raise StoreLimitError(
            f"trace {trace.trace_id!r} cannot be stored: {found.message}",
            span_id=found.span_id,
            field=found.field,
        )


def content_json(document: Any) -> bytes:
    """``document`` as canonical JSON (keys sorted); StoreLimitError when an integer in it (an
    attribute value, say) is beyond 64 bits, which JSON tools cannot read back exactly."""
    try:
        return orjson.dumps(document, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError as error:
        raise StoreLimitError(f"the content cannot be stored as JSON: {error}") from None


class Int64(TypeDecorator[int]):
    """A ``BIGINT`` column whose values are checked before they are bound: signed 64-bit."""

    impl = BigInteger
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Dialect) -> int | None:
        return None if value is None else check_integer(value)


class Int32(TypeDecorator[int]):
    """An ``INTEGER`` column whose values are checked before they are bound: signed 32-bit,
    what PostgreSQL's ``integer`` holds (SQLite's would hold more)."""

    impl = Integer
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Dialect) -> int | None:
        return None if value is None else check_integer(value, minimum=INT32_MIN, maximum=INT32_MAX)
