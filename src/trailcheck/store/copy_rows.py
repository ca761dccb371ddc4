"""Rows written with PostgreSQL's ``COPY ... FROM STDIN`` (psycopg 3's ``cursor.copy``): the bulk
load path of :func:`~trailcheck.store.ingest.ingest_traces` (``copy=True``).

``COPY`` streams the rows in one statement instead of one ``INSERT`` per row (or per page of
rows), in the caller's transaction: rolled back with it, and the same rows, in the same order
(so the same ``seq``), as :func:`insert_rows` writes. Each value goes through its column's bind
processor first, so the integer range checks of :mod:`trailcheck.store.limits` hold here too. A
database error comes back as SQLAlchemy's, as ``INSERT`` gives it (a taken unique key is an
``IntegrityError``), for the ingest's race handling.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Table, insert
from sqlalchemy.exc import DBAPIError

__all__ = ["copy_rows", "insert_rows"]


def insert_rows(connection: Connection, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """``rows`` written with ``INSERT`` (executemany): any backend."""
    connection.execute(insert(table), rows)


def copy_rows(connection: Connection, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """``rows`` (dicts with the same keys, the columns to write) written with ``COPY``:
    PostgreSQL through psycopg 3 only (ValueError on any other backend)."""
    if connection.dialect.name != "postgresql" or connection.dialect.driver != "psycopg":
        raise ValueError(
            f"COPY needs PostgreSQL through psycopg, not {connection.dialect.name}"
            f"+{connection.dialect.driver}"
        )
    if not rows:
        return
    names = list(rows[0])
    dialect = connection.dialect
    processors = [table.c[name].type.bind_processor(dialect) for name in names]
    columns = ", ".join(dialect.identifier_preparer.quote(name) for name in names)
    statement = f"COPY {dialect.identifier_preparer.format_table(table)} ({columns}) FROM STDIN"
    raw = connection.connection.driver_connection
    assert raw is not None  # a live connection, in the caller's transaction
    try:
        with raw.cursor() as cursor, cursor.copy(statement) as copy:
            for row in rows:
                copy.write_row(
                    [
                        value if process is None else process(value)
                        for process, value in zip(processors, (row[n] for n in names), strict=True)
                    ]
                )
    except raw.Error as error:  # psycopg's, on the raw connection SQLAlchemy does not see
        raise DBAPIError.instance(statement, None, error, raw.Error) from error
