"""Migrations: named, applied in order, recorded; an existing database upgrades in place."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from sqlalchemy import Engine, insert, inspect

from tests.store.builders import refund_trace, turn
from trailcheck.store import (
    MIGRATIONS,
    PendingSpan,
    SessionSummary,
    Store,
    TraceFilter,
    migrations,
    schema,
)
from trailcheck.store.backends import create_store_engine, resolve_db_url
from trailcheck.store.migrations import applied_migrations, migrate
from trailcheck.store.rows import trace_rows
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

NAMES = [migration.name for migration in MIGRATIONS]
TRACE_COLUMNS = {column.name for column in schema.traces.columns}
# The columns m010 adds to spans.
SCORE_COLUMNS = ("component", "outcome", "latency_ms", "error_kind", "scores", "reason")


def _traces_layout(engine: Engine) -> tuple[set[str], set[str | None]]:
    """The ``traces`` table as the database has it: its columns and its index names."""
    with engine.connect() as connection:
        found = inspect(connection)
        columns = {column["name"] for column in found.get_columns("traces")}
        indexes = {index["name"] for index in found.get_indexes("traces")}
    return columns, indexes


def _store_before_sessions(engine: Engine, traces: Sequence[Trace]) -> None:
    """Store traces as a release before m003 did: no ``session_id`` column to write."""
    rows = [trace_rows(trace, 1) for trace in traces]
    with engine.begin() as connection:
        old = [{k: v for k, v in r.trace.items() if k != "session_id"} for r in rows]
        connection.execute(insert(schema.traces), old)
        v1_spans = [
            {k: v for k, v in span.items() if k not in SCORE_COLUMNS}
            for r in rows
            for span in r.spans
        ]
        connection.execute(insert(schema.spans), v1_spans)


def test_a_new_database_gets_every_migration_once(store_url: str) -> None:
    with Store.open(store_url) as store:
        assert store.migrations_applied == NAMES
        with store.engine.connect() as connection:
            assert applied_migrations(connection) == NAMES
            tables = set(inspect(connection).get_table_names())
        assert {
            *("traces", "spans", "findings", "notes", "clusters"),
            *("pending_spans", "pending_log_events"),
        } <= tables
        columns, indexes = _traces_layout(store.engine)
        assert columns == TRACE_COLUMNS
        assert {"ix_traces_started", "ix_traces_session"} <= indexes
        assert _trace_id_indexes(store.engine) == {i.name for i in schema.TRACE_ID_INDEXES}
    with Store.open(store_url) as again:
        assert again.migrations_applied == []


def test_a_v1_database_upgrades_and_keeps_its_traces(store_url: str) -> None:
    engine = create_store_engine(resolve_db_url(store_url))
    assert migrate(engine, MIGRATIONS[:1]) == ["m001_initial"]
    _store_before_sessions(engine, [refund_trace("old")])
    with engine.connect() as connection:
        assert not inspect(connection).has_table("pending_spans")
    assert "session_id" not in _traces_layout(engine)[0]
    engine.dispose()
    with Store.open(store_url) as store:
        assert store.migrations_applied == NAMES[1:]
        assert store.get_trace("old") == refund_trace("old")
        store.add_pending([PendingSpan("new", "s1", b"x", True, 1)])
        assert [p.span for p in store.pending_payloads("new")] == [b"x"]
        assert _traces_layout(store.engine)[0] == TRACE_COLUMNS
        assert store.list_sessions() == []


def test_m003_fills_the_sessions_of_traces_stored_before_it(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sessions and a trace in none; the backfill pages (2 rows a page here) and leaves
    alone a trace that only mentions the key outside its metadata."""
    monkeypatch.setattr(migrations, "_BACKFILL_PAGE", 2)
    mentions = (
        TraceBuilder("mentions", input="Which session?")
        .tool("find_session", {"session_id": "not-this"}, result={"conversation_id": "nor-this"})
        .build()
    )
    old = [
        turn("b2", 30, session_id="sess-B"),
        turn("a1", 10, conversation_id="conv-A"),
        turn("lone", 0),
        turn("b1", 5, session_id="sess-B"),
        mentions,
        turn("a2", 20, conversation_id="conv-A", session_id="sess-B"),
    ]
    engine = create_store_engine(resolve_db_url(store_url))
    assert migrate(engine, MIGRATIONS[:2]) == ["m001_initial", "m002_pending_spans"]
    _store_before_sessions(engine, old)
    engine.dispose()
    with Store.open(store_url) as store:
        assert store.migrations_applied == NAMES[2:]
        origin = 1_700_000_000 * 10**9
        assert store.list_sessions() == [
            SessionSummary("sess-B", 2, origin + 5 * 10**9, origin + 30 * 10**9),
            SessionSummary("conv-A", 2, origin + 10 * 10**9, origin + 20 * 10**9),
        ]
        assert [t.trace_id for t in store.session_traces("conv-A")] == ["a1", "a2"]
        assert [t.trace_id for t in store.session_traces("sess-B")] == ["b1", "b2"]
        in_session = store.list_traces(TraceFilter(session="sess-B"))
        assert [row.trace_id for row in in_session] == ["b2", "b1"]
        unfilled = {row.trace_id for row in store.list_traces() if row.session_id is None}
        assert unfilled == {"lone", "mentions"}
        # New traces are written with their session from now on.
        store.ingest([turn("a3", 40, conversation_id="conv-A")])
        assert [t.trace_id for t in store.session_traces("conv-A")] == ["a1", "a2", "a3"]


def test_m004_keeps_the_spans_held_before_it_in_their_order(store_url: str) -> None:
    """Spans held by a release before m004 (no arrival order) survive the rebuild of
    ``pending_spans``, in the order that release gave them, and new ones queue after them."""
    engine = create_store_engine(resolve_db_url(store_url))
    assert migrate(engine, MIGRATIONS[:3])[-1] == "m003_trace_sessions"
    held = [
        {"trace_id": "t1", "span_id": "b", "payload": b"t1/b", "root_ended": False},
        {"trace_id": "t1", "span_id": "a", "payload": b"t1/a", "root_ended": True},
        {"trace_id": "t2", "span_id": "c", "payload": b"t2/c", "root_ended": False},
    ]
    with engine.begin() as connection:
        connection.execute(
            insert(migrations._PENDING_SPANS_V1), [{**row, "received_ns": 5} for row in held]
        )
    engine.dispose()
    with Store.open(store_url) as store:
        assert store.migrations_applied == NAMES[3:]
        assert [p.span for p in store.pending_payloads("t1")] == [
            b"t1/a",
            b"t1/b",
        ]  # m002's order: received, id
        store.add_pending([PendingSpan("t1", "0", b"t1/0", False, 6)])
        assert [p.span for p in store.pending_payloads("t1")] == [b"t1/a", b"t1/b", b"t1/0"]
        assert store.ready_pending(10, 100) == ["t1"]
        store.add_pending([PendingSpan("t1", "a", b"again", True, 7)])  # still one copy
        assert [p.span for p in store.pending_payloads("t1")] == [b"t1/a", b"t1/b", b"t1/0"]
        assert [p.span for p in store.pending_payloads("t2")] == [b"t2/c"]


def _trace_id_indexes(engine: Engine) -> set[str]:
    tables = {str(index.table.name) for index in schema.TRACE_ID_INDEXES}  # type: ignore[union-attr]
    with engine.connect() as connection:
        found = inspect(connection)
        return {
            str(index["name"])
            for table in sorted(tables)
            for index in found.get_indexes(table)
            if index["name"] and index["name"].endswith("_trace_id")
        }


def test_m011_indexes_the_trace_ids_of_a_store_made_before_it(store_url: str) -> None:
    wanted = {str(index.name) for index in schema.TRACE_ID_INDEXES}
    engine = create_store_engine(resolve_db_url(store_url))
    try:
        assert migrate(engine, MIGRATIONS[:10])[-1] == "m010_span_scores"
        with engine.begin() as connection:  # as a release before m011 made these tables
            for index in schema.TRACE_ID_INDEXES:
                index.drop(connection)
        assert _trace_id_indexes(engine) == set()
    finally:
        engine.dispose()
    with Store.open(store_url) as store:
        assert store.migrations_applied == ["m011_deletion_log"]
        assert _trace_id_indexes(store.engine) == wanted
        assert "deletions" in inspect(store.engine).get_table_names()
