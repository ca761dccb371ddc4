"""Migrations: named, applied in order, recorded; an existing v1 database upgrades in place."""

from __future__ import annotations

from sqlalchemy import inspect

from tests.store.builders import refund_trace
from trailcheck.store import MIGRATIONS, PendingSpan, Store
from trailcheck.store.backends import create_store_engine, resolve_db_url
from trailcheck.store.ingest import ingest_traces
from trailcheck.store.migrations import applied_migrations, migrate

NAMES = [migration.name for migration in MIGRATIONS]


def test_a_new_database_gets_every_migration_once(store_url: str) -> None:
    with Store.open(store_url) as store:
        assert store.migrations_applied == NAMES
        with store.engine.connect() as connection:
            assert applied_migrations(connection) == NAMES
            tables = set(inspect(connection).get_table_names())
        assert {"traces", "spans", "findings", "notes", "clusters", "pending_spans"} <= tables
    with Store.open(store_url) as again:
        assert again.migrations_applied == []


def test_a_v1_database_upgrades_and_keeps_its_traces(store_url: str) -> None:
    engine = create_store_engine(resolve_db_url(store_url))
    assert migrate(engine, MIGRATIONS[:1]) == ["m001_initial"]
    assert ingest_traces(engine, [refund_trace("old")]).stored == 1
    with engine.connect() as connection:
        assert not inspect(connection).has_table("pending_spans")
    engine.dispose()
    with Store.open(store_url) as store:
        assert store.migrations_applied == NAMES[1:]
        assert store.get_trace("old") == refund_trace("old")
        store.add_pending([PendingSpan("new", "s1", b"x", True, 1)])
        assert store.pending_payloads("new") == [b"x"]
