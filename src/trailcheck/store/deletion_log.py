"""The log of deletions: one ``deletions`` row per prune or deletion on request that deleted
something, saying what chose the traces, when, and how many rows of each table went; never what
they held.

A deletion named by an id (a session, a user, a trace) is logged with the kind of id and its
SHA-256, not the id: the id of a person who asked to be forgotten is itself personal data, and
the digest still lets an auditor confirm that a given id was deleted (hash it and look). A
short id can be found from its digest by guessing, so the digest is no secret either.

The row is written in the transaction of the first batch that deletes something and brought up
to date in each later batch's, so what the log says is gone is gone, even of a prune cut short.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import orjson
from sqlalchemy import Connection, insert, select, update

from trailcheck.store import schema

__all__ = ["DeletionEntry", "LoggedDeletion", "log_deletion", "read_deletions", "selector_digest"]


def selector_digest(value: str) -> str:
    """The SHA-256 (hex) of the id a deletion named: what the log keeps of it."""
    return hashlib.sha256(value.encode()).hexdigest()


@dataclass(frozen=True)
class LoggedDeletion:
    """What a prune or deletion has done so far, as its log row holds it."""

    action: str
    selector: str
    selector_digest: str | None
    started_ns: int
    traces: int
    rows: Mapping[str, int]
    kept: Mapping[str, int]
    cited_by: Sequence[str]


@dataclass(frozen=True)
class DeletionEntry(LoggedDeletion):
    """One row of the log, read back: its id and when it was last brought up to date."""

    deletion_id: int
    updated_ns: int


def log_deletion(connection: Connection, deletion_id: int | None, done: LoggedDeletion) -> int:
    """Write ``done`` as log row ``deletion_id`` (a new row when None), in the caller's
    transaction; the row's id."""
    table = schema.deletions
    values = {
        "action": done.action,
        "selector": done.selector,
        "selector_digest": done.selector_digest,
        "started_ns": done.started_ns,
        "updated_ns": time.time_ns(),
        "traces": done.traces,
        "rows": orjson.dumps(dict(done.rows), option=orjson.OPT_SORT_KEYS).decode(),
        "kept": orjson.dumps(dict(done.kept), option=orjson.OPT_SORT_KEYS).decode(),
        "cited_by": orjson.dumps(list(done.cited_by)).decode(),
    }
    if deletion_id is None:
        inserted = connection.execute(insert(table).returning(table.c.id), values)
        return int(inserted.scalar_one())
    connection.execute(update(table).where(table.c.id == deletion_id).values(values))
    return deletion_id


def read_deletions(connection: Connection, *, limit: int | None = None) -> list[DeletionEntry]:
    """The logged deletions, newest first (at most ``limit``)."""
    table = schema.deletions
    query = select(table).order_by(table.c.started_ns.desc(), table.c.id.desc())
    if limit is not None:
        query = query.limit(limit)
    return [
        DeletionEntry(
            deletion_id=row.id,
            action=row.action,
            selector=row.selector,
            selector_digest=row.selector_digest,
            started_ns=row.started_ns,
            updated_ns=row.updated_ns,
            traces=row.traces,
            rows=orjson.loads(row.rows),
            kept=orjson.loads(row.kept),
            cited_by=orjson.loads(row.cited_by),
        )
        for row in connection.execute(query)
    ]
