"""A seeded store on each backend, the UI app over it, and its files (candidates, runs)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.ui.seed import LOOPBACK_URL, seed_store, write_runs
from trailcheck.store import Store
from trailcheck.ui import UiSettings, create_ui_app


@dataclass
class Seeded:
    store: Store
    dataset: Path
    runs: Path
    settings: UiSettings


@pytest.fixture
def seeded(store_url: str, tmp_path: Path) -> Iterator[Seeded]:
    with Store.open(store_url) as store:
        seed_store(store)
        runs = tmp_path / "runs"
        write_runs(runs)
        dataset = tmp_path / "candidates.yaml"
        settings = UiSettings(dataset=dataset, runs_dir=runs, reviewer="ana", page_size=4)
        yield Seeded(store, dataset, runs, settings)


@pytest.fixture
def client(seeded: Seeded) -> Iterator[TestClient]:
    with TestClient(
        create_ui_app(seeded.store, seeded.settings), base_url=LOOPBACK_URL
    ) as test_client:
        yield test_client


def pytest_configure(config: pytest.Config) -> None:
    # The report tests register this marker too; the UI tests also run on their own.
    config.addinivalue_line(
        "markers",
        "browser: renders in headless Chromium (Debian's chromium + Playwright); skipped when"
        " absent unless TRAILCHECK_REQUIRE_BROWSER=1",
    )
