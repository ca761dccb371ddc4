"""Shared fixtures: where the real third-party material lives, the bundled test fixtures, and an
empty trace store on each backend."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

# Property tests judge what is generated, never how fast: Hypothesis's per-example deadline and
# its too-slow health check would fail a property on a busy machine.
settings.register_profile("trailcheck", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("trailcheck")

REPO_ROOT = Path(__file__).resolve().parent.parent
EXTERNAL_DIR = REPO_ROOT.parent / "shared" / "external"
FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def external() -> Path:
    """``../shared/external``: real material written by others. Skips, saying so, when absent."""
    if not EXTERNAL_DIR.is_dir():
        pytest.skip(f"external material not present at {EXTERNAL_DIR}")
    return EXTERNAL_DIR


@pytest.fixture
def fixtures() -> Path:
    """``tests/fixtures``: inputs written for these tests, malformed ones included."""
    return FIXTURES_DIR


POSTGRES_URL_ENV = "TRAILCHECK_TEST_POSTGRES_URL"
REQUIRE_POSTGRES_ENV = "TRAILCHECK_REQUIRE_POSTGRES"


def _postgres_unavailable(reason: str) -> None:
    """Skip, saying why; or fail, when CI said PostgreSQL must be there."""
    if os.environ.get(REQUIRE_POSTGRES_ENV) == "1":
        pytest.fail(f"{reason}, but {REQUIRE_POSTGRES_ENV}=1: the PostgreSQL tests must run")
    pytest.skip(f"{reason} (scripts/postgres-start.sh starts a throwaway server)")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty store's URL, once per backend: a SQLite file under ``tmp_path``, and a fresh
    schema on the PostgreSQL server at ``$TRAILCHECK_TEST_POSTGRES_URL`` (dropped afterwards).
    Without that server the PostgreSQL run skips with the reason, unless
    ``$TRAILCHECK_REQUIRE_POSTGRES=1``, when it fails."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'trailcheck.db'}"
        return
    base = os.environ.get(POSTGRES_URL_ENV)
    if not base:
        _postgres_unavailable(f"{POSTGRES_URL_ENV} is not set")
        return
    url = make_url(base)
    name = f"test_{uuid.uuid4().hex[:16]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE SCHEMA "{name}"'))
    except OperationalError as error:
        admin.dispose()
        _postgres_unavailable(
            f"PostgreSQL at {url.render_as_string()} is unreachable: {error.orig}"
        )
        return
    try:
        yield url.update_query_dict({"options": f"-csearch_path={name}"}).render_as_string(
            hide_password=False
        )
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{name}" CASCADE'))
        admin.dispose()
