"""Ingest: traces stored whole or not at all; identical ones are no-ops, conflicting ones refused.

Traces are written in batches, each batch one transaction holding one ``traces`` row and the
``spans`` rows of every trace it stores (each span's row with its score as a component call,
:mod:`trailcheck.components`), so a trace is never stored in part. Before writing, each trace's
id is looked up:

- not stored: stored;
- stored with the same content hash (:mod:`trailcheck.store.rows`): a no-op, counted
  ``unchanged``;
- stored with another hash: **refused**, counted in ``conflicts`` with a message naming the
  trace id; the stored trace is left as it was. A store never holds two revisions of a trace.

A trace holding an integer the store cannot hold (:mod:`trailcheck.store.limits`) is refused
before any of this, whole, and counted in ``refused`` with the span and field; the others of its
batch are stored.

The same id twice in one input is treated the same way against its first occurrence. When
another writer stores one of a batch's ids between the look-up and the write, the batch's
transaction fails on the unique key (or, on PostgreSQL, is chosen as the victim of a deadlock
with that writer's overlapping batch) and is rolled back whole; its traces are then ingested one
per transaction, each looked up again, so the race ends as a no-op or a conflict, never as a
lost or half-stored trace.

On PostgreSQL, ``copy=True`` writes each batch's new rows with ``COPY`` instead of ``INSERT``
(:mod:`trailcheck.store.copy_rows`): the same rows, the same outcomes, faster for bulk loads.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from sqlalchemy import Connection, Engine, Table, select
from sqlalchemy.exc import DBAPIError, IntegrityError

from trailcheck.store import schema
from trailcheck.store.copy_rows import copy_rows, insert_rows
from trailcheck.store.limits import StoreLimitError
from trailcheck.store.rows import TraceRows, trace_rows
from trailcheck.trace import Trace

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "IngestConflict",
    "IngestSummary",
    "ingest_rows",
    "ingest_traces",
]

DEFAULT_BATCH_SIZE = 500

RowWriter = Callable[[Connection, Table, Sequence[dict[str, Any]]], None]


@dataclass(frozen=True)
class IngestConflict:
    """Trace ``trace_id`` was offered with content other than the stored one, and refused."""

    trace_id: str
    stored_hash: str
    offered_hash: str

    @property
    def message(self) -> str:
        return (
            f"trace {self.trace_id!r}: refused: another trace with this id is already stored"
            f" (content hash {self.stored_hash[:12]} stored, {self.offered_hash[:12]} offered);"
            " the stored trace is unchanged"
        )

    def __str__(self) -> str:
        return self.message


@dataclass
class IngestSummary:
    """What an ingest did: every trace offered is ``stored``, ``unchanged``, a conflict, or
    refused for a value the store cannot hold."""

    stored: int = 0
    unchanged: int = 0
    conflicts: list[IngestConflict] = field(default_factory=list)
    refused: list[StoreLimitError] = field(default_factory=list)

    @property
    def conflicted(self) -> int:
        return len(self.conflicts)

    @property
    def offered(self) -> int:
        return self.stored + self.unchanged + self.conflicted + len(self.refused)

    @property
    def ok(self) -> bool:
        return not self.conflicts and not self.refused

    def add(self, other: IngestSummary) -> None:
        self.stored += other.stored
        self.unchanged += other.unchanged
        self.conflicts.extend(other.conflicts)
        self.refused.extend(other.refused)


def _stored_hashes(connection: Connection, trace_ids: Sequence[str]) -> dict[str, str]:
    table = schema.traces
    query = select(table.c.trace_id, table.c.content_hash).where(table.c.trace_id.in_(trace_ids))
    return {trace_id: digest for trace_id, digest in connection.execute(query)}


def ingest_rows(
    connection: Connection, batch: Sequence[TraceRows], write: RowWriter = insert_rows
) -> IngestSummary:
    """Store the traces of ``batch`` that are new, in the caller's transaction, their rows
    written by ``write``; what happened.

    Raises ``IntegrityError`` when another writer stored one of the ids meanwhile (the caller
    rolls back)."""
    summary = IngestSummary()
    known = _stored_hashes(connection, list({rows.trace_id for rows in batch}))
    new: list[TraceRows] = []
    for rows in batch:
        stored_hash = known.get(rows.trace_id)
        if stored_hash is None:
            known[rows.trace_id] = rows.content_hash
            new.append(rows)
        elif stored_hash == rows.content_hash:
            summary.unchanged += 1
        else:
            summary.conflicts.append(IngestConflict(rows.trace_id, stored_hash, rows.content_hash))
    if new:
        write(connection, schema.traces, [rows.trace for rows in new])
        span_rows = [span for rows in new for span in rows.spans]
        if span_rows:
            write(connection, schema.spans, span_rows)
    summary.stored = len(new)
    return summary


# PostgreSQL's deadlock_detected and serialization_failure: two writers whose batches overlap
# in different orders (one ascending, one descending) can each hold a key the other waits for.
_RACE_SQLSTATES = frozenset({"40P01", "40001"})


def _lost_a_race(error: DBAPIError) -> bool:
    """Whether ``error`` is a concurrent writer's doing: a unique key already taken, or a
    deadlock with it (PostgreSQL aborts one of the two). Either way the batch was rolled back
    whole, and redoing its traces one per transaction cannot deadlock."""
    if isinstance(error, IntegrityError):
        return True
    return getattr(error.orig, "sqlstate", None) in _RACE_SQLSTATES


def _ingest_in(
    connection: Connection, batch: Sequence[TraceRows], write: RowWriter
) -> IngestSummary:
    # INSERT, the default, calls ingest_rows as every other caller does (two arguments).
    if write is insert_rows:
        return ingest_rows(connection, batch)
    return ingest_rows(connection, batch, write)


def _ingest_batch(engine: Engine, batch: Sequence[TraceRows], write: RowWriter) -> IngestSummary:
    try:
        with engine.begin() as connection:
            return _ingest_in(connection, batch, write)
    except DBAPIError as error:
        if not _lost_a_race(error):
            raise
        if len(batch) == 1:
            # A concurrent writer again, between this trace's own look-up and write.
            with engine.begin() as connection:
                return _ingest_in(connection, batch, write)
    summary = IngestSummary()
    for rows in batch:
        summary.add(_ingest_batch(engine, [rows], write))
    return summary


def ingest_traces(
    engine: Engine,
    traces: Iterable[Trace],
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    clock: Callable[[], int] = time.time_ns,
    copy: bool = False,
) -> IngestSummary:
    """Ingest ``traces`` (see the module docstring), ``batch_size`` per transaction; with
    ``copy``, written by PostgreSQL's ``COPY`` (ValueError on another backend)."""
    if copy and engine.dialect.name != "postgresql":
        raise ValueError(f"COPY is PostgreSQL's; this store is {engine.dialect.name}")
    write = copy_rows if copy else insert_rows
    summary = IngestSummary()
    iterator = iter(traces)
    while batch := list(islice(iterator, batch_size)):
        now = clock()
        rows: list[TraceRows] = []
        for trace in batch:
            try:
                rows.append(trace_rows(trace, now))
            except StoreLimitError as error:
                summary.refused.append(error)
        if rows:
            summary.add(_ingest_batch(engine, rows, write))
    return summary
