"""Fixtures of the endpoint tests: an in-memory store, a clock the test moves, and the app."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient

from tests.serve.memory_store import MemoryStore
from trailcheck.serve import create_app

START_NS = 1_700_000_000_000_000_000
IDLE_TIMEOUT_S = 30.0
SECOND_NS = 1_000_000_000
# Where a test client sends: a tokenless receiver answers only requests that name loopback.
RECEIVER_URL = "http://127.0.0.1:4318"


@dataclass
class Clock:
    """Nanoseconds since the epoch, moved by the test."""

    now_ns: int = START_NS

    def __call__(self) -> int:
        return self.now_ns

    def advance(self, seconds: float) -> None:
        self.now_ns += round(seconds * SECOND_NS)


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(store: MemoryStore, clock: Clock) -> Iterator[TestClient]:
    """The app over the memory store, swept only when a test says so."""
    app = create_app(
        store,
        idle_timeout_s=IDLE_TIMEOUT_S,
        sweep_interval_s=None,
        clock=clock,
        max_body_bytes=64 * 1024,
    )
    with TestClient(app, base_url=RECEIVER_URL) as test_client:
        yield test_client
