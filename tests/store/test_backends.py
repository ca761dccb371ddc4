"""Which database a store opens, and how SQLite is set up."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from tests.store.builders import lookup_trace
from trailcheck.errors import InputError, UsageError
from trailcheck.store import DB_ENV, Store, resolve_db_url


def test_default_is_sqlite_under_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(DB_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    url = resolve_db_url()
    assert url.get_backend_name() == "sqlite"
    assert url.database == str(tmp_path / ".trailcheck" / "trailcheck.db")
    with Store.open() as store:
        store.ingest([])
    assert (tmp_path / ".trailcheck" / "trailcheck.db").is_file()


def test_the_environment_names_the_store_and_an_explicit_url_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DB_ENV, f"sqlite:///{tmp_path / 'env.db'}")
    assert resolve_db_url().database == str(tmp_path / "env.db")
    assert resolve_db_url(f"sqlite:///{tmp_path / 'x.db'}").database == str(tmp_path / "x.db")


@pytest.mark.parametrize("scheme", ["postgresql", "postgres", "postgresql+psycopg"])
def test_postgresql_urls_use_psycopg_3(scheme: str) -> None:
    url = resolve_db_url(f"{scheme}://u:secret@127.0.0.1:5432/db")
    assert url.drivername == "postgresql+psycopg"
    assert "secret" not in url.render_as_string(hide_password=True)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "not a database URL"),
        ("mysql://u@h/db", "backend 'mysql' is not supported"),
    ],
)
def test_bad_urls_are_usage_errors(url: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        resolve_db_url(url)


def test_an_unreachable_server_is_a_clear_error_without_the_password() -> None:
    # Port 1 on loopback: nothing listens there.
    with pytest.raises(InputError, match="cannot open") as raised:
        Store.open("postgresql://u:secret@127.0.0.1:1/db?connect_timeout=2")
    assert "secret" not in str(raised.value)
    assert "127.0.0.1:1" in str(raised.value)


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path / 's.db'}") as store:
        with store.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        # Foreign keys hold: a span of an unknown trace is refused.
        with pytest.raises(IntegrityError), store.engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO spans (trace_id, span_id, name, kind, start_ns, status)"
                    " VALUES ('ghost', 's', 'n', 'tool', 1, 'ok')"
                )
            )


def test_an_in_memory_store_is_one_database() -> None:
    with Store.open("sqlite://") as store:
        store.ingest([lookup_trace("m")])
        assert [t.trace_id for t in store.iter_traces()] == ["m"]
