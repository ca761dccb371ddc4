"""Where a store lives and how its engine is made: SQLite by default, PostgreSQL by URL.

The URL is ``--db URL``, else the environment variable ``TRAILCHECK_DB``, else SQLite at
``.trailcheck/trailcheck.db`` under the working directory. ``postgresql://`` and ``postgres://``
mean PostgreSQL through psycopg 3 (``postgresql+psycopg://``).

SQLite runs in WAL mode (readers never block the writer), with foreign keys on and
``synchronous=FULL`` (a committed transaction survives a power cut: the OTLP endpoint answers 200
only once spans are durable). Every writing transaction on SQLite begins ``BEGIN IMMEDIATE``
(it takes the write lock at once, waiting up to the busy timeout), so a read-then-write
transaction never fails half-way on a lock upgrade; reads begin a plain deferred ``BEGIN``
(:func:`read_only`). pysqlite's own transaction handling, which leaves DDL outside transactions,
is switched off.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, Executable, Table, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import StaticPool

from trailcheck.errors import UsageError

__all__ = [
    "DB_ENV",
    "DEFAULT_DB_PATH",
    "create_store_engine",
    "describe_url",
    "insert_or_ignore",
    "read_only",
    "resolve_db_url",
    "writer_pause_s",
]

DB_ENV = "TRAILCHECK_DB"
DEFAULT_DB_PATH = Path(".trailcheck") / "trailcheck.db"
BUSY_TIMEOUT_S = 30.0
BACKENDS = ("sqlite", "postgresql")
# How long a job of many write transactions in a row (a prune) pauses between two on SQLite:
# longer than the longest sleep of SQLite's busy handler between two tries for the lock
# (100 ms), so a writer waiting for the lock takes it in the pause. Without it, a transaction
# that begins as the last one commits wins the lock each time and the writer starves.
SQLITE_WRITER_PAUSE_S = 0.11
# Set on a connection that only reads: on SQLite it begins a deferred transaction, which takes
# no write lock and so neither waits for writers nor holds them up.
READING_OPTION = "trailcheck_reading"


def resolve_db_url(url: str | None = None, *, cwd: Path | None = None) -> URL:
    """The store URL: ``url``, else ``$TRAILCHECK_DB``, else SQLite under ``cwd``."""
    text = url or os.environ.get(DB_ENV) or ""
    if not text:
        path = (cwd or Path.cwd()) / DEFAULT_DB_PATH
        return URL.create("sqlite", database=str(path))
    try:
        parsed = make_url(text)
    except ArgumentError:
        raise UsageError(
            f"store URL {text!r}: not a database URL (e.g. sqlite:///path/trailcheck.db or"
            " postgresql+psycopg://user@host/db)"
        ) from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in BACKENDS:
        raise UsageError(
            f"store URL {describe_url(parsed)!r}: backend {parsed.get_backend_name()!r} is not"
            f" supported; use one of {', '.join(BACKENDS)}"
        )
    return parsed


def describe_url(url: URL) -> str:
    """The URL as it may be printed: without its password."""
    return url.render_as_string(hide_password=True)


def create_store_engine(url: URL) -> Engine:
    """An engine for ``url``, set up as the module docstring says."""
    if url.get_backend_name() == "postgresql":
        return create_engine(url, pool_pre_ping=True)
    return _sqlite_engine(url)


def _sqlite_engine(url: URL) -> Engine:
    in_memory = url.database in (None, "", ":memory:")
    options: dict[str, Any] = {"connect_args": {"timeout": BUSY_TIMEOUT_S}}
    if in_memory:
        # One connection, shared: every new connection to :memory: would be a new database.
        options = {
            "connect_args": {"timeout": BUSY_TIMEOUT_S, "check_same_thread": False},
            "poolclass": StaticPool,
        }
    elif url.database is not None:
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, **options)

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        # Autocommit at the driver: SQLAlchemy's begin event below opens every transaction.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if not in_memory:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        reading = connection.get_execution_options().get(READING_OPTION, False)
        connection.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")

    return engine


def writer_pause_s(engine: Engine) -> float:
    """The pause between two write transactions of a long job (see ``SQLITE_WRITER_PAUSE_S``):
    none on PostgreSQL, whose writers lock rows, not the database."""
    return SQLITE_WRITER_PAUSE_S if engine.dialect.name == "sqlite" else 0.0


def read_only(engine: Engine) -> Connection:
    """A connection for reads only (see ``READING_OPTION``); use it as a context manager."""
    return engine.connect().execution_options(**{READING_OPTION: True})


def insert_or_ignore(connection: Connection, table: Table, rows: list[dict[str, Any]]) -> int:
    """Insert ``rows``, leaving out any whose key (primary or unique) is already stored. Returns
    the driver's count of rows inserted: for one row, 1 when it was inserted and 0 when its key
    was already there (a claim to be first)."""
    if not rows:
        return 0
    statement: Executable
    if connection.dialect.name == "postgresql":
        statement = postgresql.insert(table).on_conflict_do_nothing()
    else:
        statement = sqlite.insert(table).on_conflict_do_nothing()
    if len(rows) == 1:
        return connection.execute(statement, rows[0]).rowcount
    return connection.execute(statement, rows).rowcount
