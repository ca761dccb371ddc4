"""The bearer token and the loopback rule: refused without, and working with."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.serve.conftest import Clock
from tests.serve.memory_store import MemoryStore
from tests.serve.otlp_bodies import ROOT, TRACE_A, agent_span, protobuf_body
from trailcheck.errors import UsageError
from trailcheck.serve import check_bind, create_app, is_loopback

PROTOBUF = {"Content-Type": "application/x-protobuf"}
TOKEN = "s3cret-token"


@pytest.fixture
def guarded(store: MemoryStore, clock: Clock) -> TestClient:
    return TestClient(create_app(store, token=TOKEN, sweep_interval_s=None, clock=clock))


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong", f"Basic {TOKEN}", "Bearer", f"Bearer {TOKEN}x", TOKEN],
)
def test_a_missing_or_wrong_token_is_401_and_stores_nothing(
    guarded: TestClient, store: MemoryStore, authorization: str | None
) -> None:
    headers = dict(PROTOBUF)
    if authorization is not None:
        headers["Authorization"] = authorization
    response = guarded.post("/v1/traces", content=protobuf_body(agent_span()), headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json() == {"code": 16, "message": "missing or wrong bearer token"}
    assert store.pending == {}


def test_the_token_is_checked_before_the_body_is_judged(guarded: TestClient) -> None:
    response = guarded.post("/v1/traces", content=b"junk", headers={"Content-Type": "text/x"})
    assert response.status_code == 401


@pytest.mark.parametrize("scheme", ["Bearer", "bearer"])
def test_the_right_token_is_accepted(guarded: TestClient, store: MemoryStore, scheme: str) -> None:
    response = guarded.post(
        "/v1/traces",
        content=protobuf_body(agent_span()),
        headers={**PROTOBUF, "Authorization": f"{scheme} {TOKEN}"},
    )
    assert response.status_code == 200
    assert list(store.pending) == [(TRACE_A, ROOT)]


def test_no_token_configured_accepts_requests_without_one(
    client: TestClient, store: MemoryStore
) -> None:
    response = client.post("/v1/traces", content=protobuf_body(agent_span()), headers=PROTOBUF)
    assert response.status_code == 200
    assert list(store.pending) == [(TRACE_A, ROOT)]


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_loopback_addresses(host: str) -> None:
    assert is_loopback(host)
    check_bind(host, None)  # allowed without a token


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "example.com", ""])
def test_binding_beyond_loopback_without_a_token_is_refused(host: str) -> None:
    assert not is_loopback(host)
    with pytest.raises(UsageError, match="without a token") as raised:
        check_bind(host, None)
    assert raised.value.exit_code == 2
    check_bind(host, TOKEN)  # with a token it may listen there


def test_an_empty_token_is_refused() -> None:
    with pytest.raises(UsageError, match="token is empty"):
        check_bind("127.0.0.1", "")
