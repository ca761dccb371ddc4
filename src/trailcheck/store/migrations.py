"""Schema migrations: a list of named functions, applied in order, each recorded once.

Opening a store applies the missing ones (:func:`migrate`), all in one transaction, so a
database is never left half-migrated; on PostgreSQL an advisory lock makes two processes that
open a new database at once take turns. Names are permanent: a migration, once released, is
never edited or renamed; a change to the schema is a new function at the end of the list (the
simonw/llm pattern). A function creates whole tables from :mod:`trailcheck.store.schema` only
while no later migration alters them; a later change to a table is explicit DDL in its own
migration. ``m001_initial`` therefore creates ``traces`` from its own copy of the table as it
was then (``_TRACES_V1``), since ``m003_trace_sessions`` adds a column to it, and ``spans`` as
``_SPANS_V1``, to which ``m010_span_scores`` adds the span scores' columns; likewise
``m002_pending_spans`` creates ``_PENDING_SPANS_V1``, which ``m004_pending_span_order`` rebuilds as
``_PENDING_SPANS_V2``, to which ``m008_pending_origins_and_conflicts`` adds a column. An index
added later is the one exception: ``m011_deletion_log`` creates the trace id indexes only where
the earlier migration, creating the table from the schema, has not already.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import orjson
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Engine,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    bindparam,
    column,
    insert,
    inspect,
    or_,
    select,
    text,
    update,
)
from sqlalchemy import table as table_clause

from trailcheck.store import schema
from trailcheck.store.limits import Int64
from trailcheck.store.rows import session_column
from trailcheck.trace.session import SESSION_METADATA_KEYS

__all__ = ["MIGRATIONS", "Migration", "applied_migrations", "migrate"]

# Any 64-bit number, the same in every process: the key of the migration lock on PostgreSQL.
_PG_MIGRATION_LOCK = 0x7472_6169_6C63_6B  # "trailck"


@dataclass(frozen=True)
class Migration:
    """One step of the schema: ``name`` is recorded in ``_migrations`` once ``apply`` ran."""

    name: str
    apply: Callable[[Connection], None]


# ``traces`` and ``spans`` as m001 created them: frozen here, because later migrations alter
# the tables.
_V1 = MetaData()
_TRACES_V1 = Table(
    "traces",
    _V1,
    Column("seq", schema.Serial, primary_key=True, autoincrement=True),
    Column("trace_id", String(), nullable=False, unique=True),
    Column("content_hash", String(), nullable=False),
    Column("content", Text, nullable=False),
    Column("input_text", Text),
    Column("final_output", Text),
    Column("started_ns", BigInteger),
    Column("ended_ns", BigInteger),
    Column("tool_names", Text, nullable=False),
    Column("span_count", Integer, nullable=False),
    Column("ingested_ns", BigInteger, nullable=False),
)
Index("ix_traces_started", _TRACES_V1.c.started_ns)
_SPANS_V1 = Table(
    "spans",
    _V1,
    Column(
        "trace_id", String(), ForeignKey("traces.trace_id", ondelete="CASCADE"), primary_key=True
    ),
    Column("span_id", String(), primary_key=True),
    Column("parent_id", String()),
    Column("name", Text, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("tool_name", String()),
    Column("start_ns", BigInteger, nullable=False),
    Column("end_ns", BigInteger),
    Column("status", String(8), nullable=False),
)
Index("ix_spans_tool", _SPANS_V1.c.tool_name, _SPANS_V1.c.trace_id)

# ``pending_spans`` as m002 created it: m004 rebuilds it with an arrival order.
_PENDING_SPANS_V1 = Table(
    "pending_spans",
    MetaData(),
    Column("trace_id", String(), primary_key=True),
    Column("span_id", String(), primary_key=True),
    Column("payload", LargeBinary, nullable=False),
    Column("root_ended", Boolean, nullable=False),
    Column("received_ns", BigInteger, nullable=False),
)
_PENDING_SPAN_COLUMNS = "trace_id, span_id, payload, root_ended, received_ns"

# ``pending_spans`` as m004 rebuilt it: m008 adds its ``origin_key``.
_PENDING_SPANS_V2 = Table(
    "pending_spans",
    MetaData(),
    Column("seq", schema.Serial, primary_key=True, autoincrement=True),
    Column("trace_id", String(), nullable=False),
    Column("span_id", String(), nullable=False),
    Column("payload", LargeBinary, nullable=False),
    Column("root_ended", Boolean, nullable=False),
    Column("received_ns", Int64, nullable=False),
    UniqueConstraint("trace_id", "span_id", name="uq_pending_span"),
)

_BACKFILL_PAGE = 500


def _create(connection: Connection, tables: Sequence[Table]) -> None:
    for table in tables:
        table.create(connection)


def m001_initial(connection: Connection) -> None:
    """Traces and spans; findings and notes; clusters; cases, dataset versions, runs, trials
    and judge labels."""
    _create(
        connection,
        [
            _TRACES_V1,
            _SPANS_V1,
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
    _create(connection, [_PENDING_SPANS_V1, schema.rejected_traces])


def _fill_sessions(connection: Connection) -> None:
    """Set ``traces.session_id`` from each stored trace's metadata, a page of rows at a time."""
    traces = table_clause(
        "traces", column("seq", Integer), column("content", Text), column("session_id", String)
    )
    # Only a trace whose content names one of the keys can have a session.
    named = or_(*(traces.c.content.contains(f'"{key}"') for key in SESSION_METADATA_KEYS))
    fill = (
        update(traces)
        .where(traces.c.seq == bindparam("row"))
        .values(session_id=bindparam("session"))
    )
    position = -1
    while True:
        query = select(traces.c.seq, traces.c.content).where(named, traces.c.seq > position)
        page = connection.execute(query.order_by(traces.c.seq).limit(_BACKFILL_PAGE)).all()
        found: list[dict[str, object]] = []
        for seq, content in page:
            position = seq
            session = session_column(orjson.loads(content).get("metadata") or {})
            if session is not None:
                found.append({"row": seq, "session": session})
        if found:
            connection.execute(fill, found)
        if len(page) < _BACKFILL_PAGE:
            return


def m003_trace_sessions(connection: Connection) -> None:
    """The session of each trace (:func:`trailcheck.trace.session.session_id`) in an indexed
    ``traces.session_id`` column, filled for the traces already stored from their metadata."""
    connection.execute(text("ALTER TABLE traces ADD COLUMN session_id VARCHAR"))
    connection.execute(text("CREATE INDEX ix_traces_session ON traces (session_id, started_ns)"))
    _fill_sessions(connection)


def m004_pending_span_order(connection: Connection) -> None:
    """``pending_spans`` with its arrival order (``seq``), so a trace's spans are assembled in
    the order they were received. The table is rebuilt (SQLite cannot add an auto-incrementing
    column), its held spans copied over in the order m002's table gave them."""
    rebuilt = _PENDING_SPANS_V2.to_metadata(MetaData(), name="pending_spans_m004")
    rebuilt.create(connection)
    connection.execute(
        text(
            f"INSERT INTO pending_spans_m004 ({_PENDING_SPAN_COLUMNS})"
            f" SELECT {_PENDING_SPAN_COLUMNS} FROM pending_spans ORDER BY received_ns, span_id"
        )
    )
    connection.execute(text("DROP TABLE pending_spans"))
    connection.execute(text("ALTER TABLE pending_spans_m004 RENAME TO pending_spans"))


def m005_pending_log_events(connection: Connection) -> None:
    """GenAI log records received by the OTLP endpoint (``POST /v1/logs``, gRPC LogsService),
    held beside the pending spans until their trace is complete."""
    _create(connection, [schema.pending_log_events])


def m006_quarantined_traces(connection: Connection) -> None:
    """Pending traces whose completion failed, set aside with the reason and when, their
    pending spans and log records kept as they are (``quarantined_traces``)."""
    _create(connection, [schema.quarantined_traces])


def m007_trace_browse_order(connection: Connection) -> None:
    """``traces.start_key``, each trace's start as :func:`trailcheck.store.reading.start_ns`
    defines it (the first span's start, else when it was ingested), computed by the database
    from the columns it reads, and an index on it with the trace id: the order the web UI lists
    traces in, newest first, and the key its pages continue from
    (:mod:`trailcheck.store.browse`). A generated column rather than an index on the
    expression, which SQLAlchemy cannot reflect on SQLite; virtual on SQLite (which adds only
    those), stored on PostgreSQL (which has only those)."""
    kind = "STORED" if connection.dialect.name == "postgresql" else "VIRTUAL"
    connection.execute(
        text(
            "ALTER TABLE traces ADD COLUMN start_key BIGINT"
            f" GENERATED ALWAYS AS (coalesce(started_ns, ingested_ns)) {kind}"
        )
    )
    connection.execute(text("CREATE INDEX ix_traces_start_key ON traces (start_key, trace_id)"))


def m008_pending_origins_and_conflicts(connection: Connection) -> None:
    """The resource and scope of pending spans held once (``pending_origins``, named by the new
    ``pending_spans.origin_key``), and the conflicting versions of spans kept for inspection
    (``span_conflicts``)."""
    connection.execute(text("ALTER TABLE pending_spans ADD COLUMN origin_key VARCHAR"))
    connection.execute(text("CREATE INDEX ix_pending_span_origin ON pending_spans (origin_key)"))
    _create(connection, [schema.pending_origins, schema.span_conflicts])


def m009_online_scoring(connection: Connection) -> None:
    """The online worker's tables: evaluator versions, planning cursors and their holes, the
    job queue, scores, executions and fired alerts (docs/online.md)."""
    _create(
        connection,
        [
            schema.online_evaluators,
            schema.online_cursors,
            schema.online_holes,
            schema.online_jobs,
            schema.online_scores,
            schema.online_executions,
            schema.online_alerts,
        ],
    )


def m010_span_scores(connection: Connection) -> None:
    """Each component call's score, kept on its span's row (``spans.component``, ``outcome``,
    ``latency_ms``, ``error_kind``, ``scores``, ``reason``; docs/components.md), and the partial
    index of the scored spans by start: written at ingest from now on; the spans of traces
    stored before are scored by ``trailcheck components --backfill``."""
    for added in (
        "component VARCHAR",
        "outcome VARCHAR(8)",
        "latency_ms FLOAT",
        "error_kind VARCHAR",
        "scores TEXT",
        "reason TEXT",
    ):
        connection.execute(text(f"ALTER TABLE spans ADD COLUMN {added}"))
    scored = next(index for index in schema.spans.indexes if index.name == "ix_spans_scored")
    scored.create(connection)


def m011_deletion_log(connection: Connection) -> None:
    """The log of prunes and deletions on request (``deletions``): what chose the traces, when,
    and how many rows of each table went, never their content (docs/store.md); and an index on
    the trace id of each table a trace owns rows of whose keys do not start with it
    (``schema.TRACE_ID_INDEXES``), so a prune's batch finds its rows by index. Those tables are
    made by m001 and m009 from the schema, indexes and all: a database created since m011 has
    them already (``checkfirst``), one created before gets them now."""
    _create(connection, [schema.deletions])
    for index in schema.TRACE_ID_INDEXES:
        index.create(connection, checkfirst=True)


MIGRATIONS: tuple[Migration, ...] = (
    Migration("m001_initial", m001_initial),
    Migration("m002_pending_spans", m002_pending_spans),
    Migration("m003_trace_sessions", m003_trace_sessions),
    Migration("m004_pending_span_order", m004_pending_span_order),
    Migration("m005_pending_log_events", m005_pending_log_events),
    Migration("m006_quarantined_traces", m006_quarantined_traces),
    Migration("m007_trace_browse_order", m007_trace_browse_order),
    Migration("m008_pending_origins_and_conflicts", m008_pending_origins_and_conflicts),
    Migration("m009_online_scoring", m009_online_scoring),
    Migration("m010_span_scores", m010_span_scores),
    Migration("m011_deletion_log", m011_deletion_log),
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
