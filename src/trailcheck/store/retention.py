"""Retention: the stored traces past an age deleted, a batch at a time, except those something
still needs (:mod:`trailcheck.store.holds`).

A trace's age counts from when it started (``traces.start_key``: its first span's start, else
when it was ingested), the time the listings and ``--since`` use. A prune walks the traces that
started before the cutoff in (start, id) order along the index on ``start_key``, a batch of
``batch_size`` at a time, each batch in its own short transaction: the holds on the batch are
asked, the rows of the traces nothing holds are deleted (:mod:`trailcheck.store.owned_rows`)
and the log of deletions brought up to date (:mod:`trailcheck.store.deletion_log`). No
transaction outlives its batch, so ingest goes on beside a prune: on PostgreSQL new traces are
other rows and never wait for it; on SQLite, whose writers take the whole database in turns, a
prune pauses between two batches for longer than a waiting writer sleeps between two tries for
the lock, so a writer waits at most about one batch and a pause.

On PostgreSQL the deletes are range deletes of the batch's ids by their indexes; the store has
no partitioned tables (were ``traces`` partitioned by day, a whole day past the age and nothing
held could be detached instead, but a held trace would pin its day's partition).

A dry run walks the same batches in read-only transactions and counts what would go, so it
reports the same figures and changes nothing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from sqlalchemy import Connection, Engine, and_, or_, select

from trailcheck.errors import UsageError
from trailcheck.store import schema
from trailcheck.store.backends import read_only, writer_pause_s
from trailcheck.store.deletion_log import LoggedDeletion, log_deletion
from trailcheck.store.holds import Holds, held_traces, stored_holds
from trailcheck.store.owned_rows import (
    count_emptied_clusters,
    count_owned_rows,
    delete_owned_rows,
    tidy_clusters,
)

__all__ = ["DEFAULT_PRUNE_BATCH", "PruneSummary", "Retention", "parse_age", "prune_traces"]

DEFAULT_PRUNE_BATCH: Final = 500
_UNITS_S: Final = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}
_AGE: Final = re.compile(r"(\d+)([smhdw])")


def parse_age(text: str) -> int:
    """An age such as ``30d``, ``12h`` or ``2w`` in nanoseconds; UsageError when it is not a
    whole number above 0 followed by s, m, h, d or w."""
    match = _AGE.fullmatch(text.strip())
    if match is None or int(match[1]) == 0:
        raise UsageError(
            f"age {text!r}: a whole number above 0 and a unit, s, m, h, d or w (e.g. 30d)"
        )
    return int(match[1]) * _UNITS_S[match[2]] * 10**9


@dataclass(frozen=True)
class Retention:
    """How long traces are kept (``older_than``, as written: ``30d``) and what holds them past
    it."""

    older_than: str
    holds: Holds = field(default_factory=Holds)

    @property
    def older_than_ns(self) -> int:
        return parse_age(self.older_than)

    @property
    def selector(self) -> str:
        """How the log of deletions names this prune."""
        labelled = "" if self.holds.keep_labelled else ", labelled pruned"
        return f"older_than {self.older_than}{labelled}"


@dataclass
class PruneSummary:
    """What a prune deleted (or, dry, would delete): traces, rows per table, and the traces it
    kept past their age, per reason."""

    cutoff_ns: int
    dry_run: bool
    deleted: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)
    batches: int = 0
    deletion_id: int | None = None
    """The row of the log of deletions that records this prune (None: nothing deleted, or
    dry)."""
    stopped: bool = False
    """The prune was asked to stop before it was done."""

    @property
    def kept_total(self) -> int:
        return sum(self.kept.values())


def prune_traces(
    engine: Engine,
    retention: Retention,
    *,
    now_ns: int | None = None,
    batch_size: int = DEFAULT_PRUNE_BATCH,
    dry_run: bool = False,
    stop: Callable[[], bool] | None = None,
    pause_s: float | None = None,
) -> PruneSummary:
    """Delete the traces that started more than ``retention.older_than`` before ``now_ns``
    (default: now) that nothing holds, ``batch_size`` per transaction (see the module); with
    ``dry_run``, only count them. ``stop`` is asked between batches (a server shutting down);
    ``pause_s``, the pause after a batch that deleted something, so that other writers take the
    lock (default: :func:`~trailcheck.store.backends.writer_pause_s`)."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    pause = writer_pause_s(engine) if pause_s is None else pause_s
    started_ns = time.time_ns() if now_ns is None else now_ns
    summary = PruneSummary(cutoff_ns=started_ns - retention.older_than_ns, dry_run=dry_run)
    with read_only(engine) as connection:
        holds = stored_holds(connection, retention.holds)
    after: tuple[int, str] | None = None
    deleted: set[str] = set()
    while True:
        if stop is not None and stop():
            summary.stopped = True
            break
        with read_only(engine) if dry_run else engine.begin() as connection:
            batch = _past_age(connection, summary.cutoff_ns, after, batch_size)
            if not batch:
                break
            ids = [trace_id for _, trace_id in batch]
            held = held_traces(connection, ids, holds, lock=not dry_run)
            going = [trace_id for trace_id in ids if trace_id not in held]
            if dry_run:
                _add(summary.rows, count_owned_rows(connection, going))
                deleted.update(going)
            else:
                _add(summary.rows, delete_owned_rows(connection, going))
            summary.deleted += len(going)
            _add(summary.kept, _tally(held.values()))
            summary.batches += 1
            if going and not dry_run:
                summary.deletion_id = _log(connection, summary, retention, started_ns)
        after = batch[-1]
        if len(batch) < batch_size:
            break
        if going and not dry_run and pause:
            time.sleep(pause)
    _finish_clusters(engine, summary, retention, started_ns, deleted)
    return summary


def _past_age(
    connection: Connection, cutoff_ns: int, after: tuple[int, str] | None, limit: int
) -> list[tuple[int, str]]:
    """The next ``limit`` traces that started before ``cutoff_ns``, after ``after`` in (start,
    id) order: the index ``ix_traces_start_key`` read as a range."""
    traces = schema.traces
    query = select(traces.c.start_key, traces.c.trace_id).where(traces.c.start_key < cutoff_ns)
    if after is not None:
        start, trace_id = after
        query = query.where(
            or_(
                traces.c.start_key > start,
                and_(traces.c.start_key == start, traces.c.trace_id > trace_id),
            )
        )
    rows = connection.execute(query.order_by(traces.c.start_key, traces.c.trace_id).limit(limit))
    return [(start, trace_id) for start, trace_id in rows]


def _add(into: dict[str, int], counts: dict[str, int]) -> None:
    for name, count in counts.items():
        into[name] = into.get(name, 0) + count


def _tally(reasons: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for reason in reasons:
        counts[reason] = counts.get(reason, 0) + 1
    return counts


def _log(
    connection: Connection, summary: PruneSummary, retention: Retention, started_ns: int
) -> int:
    done = LoggedDeletion(
        action="prune",
        selector=retention.selector,
        selector_digest=None,
        started_ns=started_ns,
        traces=summary.deleted,
        rows=summary.rows,
        kept=summary.kept,
        cited_by=(),
    )
    return log_deletion(connection, summary.deletion_id, done)


def _finish_clusters(
    engine: Engine,
    summary: PruneSummary,
    retention: Retention,
    started_ns: int,
    deleted: set[str],
) -> None:
    """The clusters the deleted members leave empty: counted (dry), or tidied and logged."""
    if summary.dry_run:
        with read_only(engine) as connection:
            emptied = count_emptied_clusters(connection, deleted)
        if emptied:
            summary.rows["clusters"] = emptied
        return
    if summary.deletion_id is None:
        return
    with engine.begin() as connection:
        if emptied := tidy_clusters(connection):
            summary.rows["clusters"] = emptied
            _log(connection, summary, retention, started_ns)
