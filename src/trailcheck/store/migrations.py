"""Schema migrations: a list of named functions, applied in order, each recorded once.

Opening a store applies the missing ones (:func:`migrate`), all in one transaction, so a
database is never left half-migrated; on PostgreSQL an advisory lock makes two processes that
open a new database at once take turns. Names are permanent: a migration, once released, is
never edited or renamed; a change to the schema is a new function at the end of the list (the
simonw/llm pattern). A function creates whole tables from :mod:`trailcheck.store.schema` only
while no later migration alters them; a later change to a table is explicit DDL in its own
migration.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, Table, insert, inspect, select, text

from trailcheck.store import schema

__all__ = ["MIGRATIONS", "Migration", "applied_migrations", "migrate"]

# Any 64-bit number, the same in every process: the key of the migration lock on PostgreSQL.
_PG_MIGRATION_LOCK = 0x7472_6169_6C63_6B  # "trailck"


@dataclass(frozen=True)
class Migration:
    """One step of the schema: ``name`` is recorded in ``_migrations`` once ``apply`` ran."""

    name: str
    apply: Callable[[Connection], None]


def _create(connection: Connection, tables: Sequence[Table]) -> None:
    for table in tables:
        table.create(connection)


def m001_initial(connection: Connection) -> None:
    """Traces and spans; findings and notes; clusters; cases, dataset versions, runs, trials
    and judge labels."""
    _create(
        connection,
        [
            schema.traces,
            schema.spans,
            schema.findings,
            schema.notes,
            schema.clusters,
            schema.cluster_members,
            schema.dataset_versions,
            schema.cases,
            schema.runs,
            schema.trials,
            schema.judge_labels,
        ],
    )


def m002_pending_spans(connection: Connection) -> None:
    """Spans received by the OTLP endpoint whose trace is not yet complete, and the traces
    that could not be assembled from them."""
    _create(connection, [schema.pending_spans, schema.rejected_traces])


MIGRATIONS: tuple[Migration, ...] = (
    Migration("m001_initial", m001_initial),
    Migration("m002_pending_spans", m002_pending_spans),
)


def applied_migrations(connection: Connection) -> list[str]:
    """The names recorded in ``_migrations``, in the order they were applied."""
    if not inspect(connection).has_table(schema.migrations_table.name):
        return []
    table = schema.migrations_table
    rows = connection.execute(select(table.c.name).order_by(table.c.applied_ns, table.c.name))
    return [name for (name,) in rows]


def migrate(engine: Engine, migrations: Sequence[Migration] = MIGRATIONS) -> list[str]:
    """Apply the migrations not yet recorded, in order; return the names applied now."""
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK}
            )
        schema.migrations_table.create(connection, checkfirst=True)
        done = set(applied_migrations(connection))
        applied: list[str] = []
        for migration in migrations:
            if migration.name in done:
                continue
            migration.apply(connection)
            connection.execute(
                insert(schema.migrations_table),
                {"name": migration.name, "applied_ns": time.time_ns()},
            )
            applied.append(migration.name)
        return applied
