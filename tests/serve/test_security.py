"""The bearer tokens, their roles and the loopback rule: refused without, and working with."""

from __future__ import annotations

import hmac

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import Route

from tests.serve.conftest import RECEIVER_URL, Clock
from tests.serve.memory_store import MemoryStore
from tests.serve.otlp_bodies import (
    ROOT,
    TRACE_A,
    agent_span,
    log_record,
    logs_body,
    protobuf_body,
)
from trailcheck.errors import UsageError
from trailcheck.serve import check_bind, create_app, is_loopback, security
from trailcheck.serve.security import Role, Tokens, receiver_tokens

PROTOBUF = {"Content-Type": "application/x-protobuf"}
TOKEN = "s3cret-token"


@pytest.fixture
def guarded(store: MemoryStore, clock: Clock) -> TestClient:
    return TestClient(
        create_app(store, token=TOKEN, sweep_interval_s=None, clock=clock), base_url=RECEIVER_URL
    )


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


# --- read-only and read-write tokens ----------------------------------------------------------

READ_TOKEN = "l00k-only"
READ_AUTH = {"Authorization": f"Bearer {READ_TOKEN}"}
WRITE_AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def two_tokens(store: MemoryStore, clock: Clock) -> TestClient:
    app = create_app(store, token=TOKEN, read_token=READ_TOKEN, sweep_interval_s=None, clock=clock)
    return TestClient(app, base_url=RECEIVER_URL)


@pytest.mark.parametrize(
    ("path", "body"),
    [("/v1/traces", protobuf_body(agent_span())), ("/v1/logs", logs_body(log_record()))],
)
def test_the_read_only_token_sends_nothing(
    two_tokens: TestClient, store: MemoryStore, path: str, body: bytes
) -> None:
    refused = two_tokens.post(path, content=body, headers={**PROTOBUF, **READ_AUTH})
    assert refused.status_code == 403
    assert refused.json() == {
        "code": 7,  # PERMISSION_DENIED
        "message": "this token is read-only; this request needs the read-write token",
    }
    assert (store.pending, store.logs) == ({}, [])
    accepted = two_tokens.post(path, content=body, headers={**PROTOBUF, **WRITE_AUTH})
    assert accepted.status_code == 200
    assert store.pending or store.logs


@pytest.mark.parametrize(
    ("headers", "status"),
    [(READ_AUTH, 200), (WRITE_AUTH, 200), ({}, 401), ({"Authorization": "Bearer wrong"}, 401)],
)
def test_either_token_reads_the_metrics(
    two_tokens: TestClient, headers: dict[str, str], status: int
) -> None:
    response = two_tokens.get("/metrics", headers=headers)
    assert response.status_code == status
    assert ("trailcheck_serve_spans_total" in response.text) is (status == 200)


def test_a_read_only_token_alone_is_refused_by_the_receiver(store: MemoryStore) -> None:
    with pytest.raises(UsageError, match="nothing could send spans"):
        create_app(store, read_token=READ_TOKEN)
    with pytest.raises(UsageError, match="nothing could send spans"):
        receiver_tokens(None, READ_TOKEN)
    assert receiver_tokens(TOKEN, READ_TOKEN) == Tokens(TOKEN, READ_TOKEN)


@pytest.mark.parametrize(
    ("token", "read_token", "message"),
    [
        (TOKEN, "", "token is empty; set --read-token"),
        (TOKEN, "  ", "token is empty; set --read-token"),
        (" ", None, "token is empty; set --token"),
        (TOKEN, TOKEN, "the read-only token is the read-write token"),
    ],
)
def test_an_empty_or_shared_token_is_refused(
    token: str, read_token: str | None, message: str
) -> None:
    with pytest.raises(UsageError, match=message) as raised:
        check_bind("127.0.0.1", token, read_token=read_token)
    assert raised.value.exit_code == 2


def test_a_read_only_token_alone_may_listen_beyond_loopback() -> None:
    """A UI only to look at: every request must carry the read-only token there."""
    check_bind("0.0.0.0", None, read_token=READ_TOKEN)
    with pytest.raises(UsageError, match="without a token"):
        check_bind("0.0.0.0", None, read_token=None)


@pytest.mark.parametrize(
    ("authorization", "role"),
    [
        (f"Bearer {TOKEN}", Role.WRITE),
        (f"Bearer {READ_TOKEN}", Role.READ),
        (f"bearer  {READ_TOKEN} ", Role.READ),
        (f"Basic {TOKEN}", None),
        (f"Bearer {TOKEN[:-1]}", None),
        (TOKEN, None),
        (None, None),
    ],
)
def test_a_bearer_header_has_the_role_of_its_token(
    authorization: str | None, role: Role | None
) -> None:
    assert Tokens(TOKEN, READ_TOKEN).role_of_bearer(authorization) is role


def test_every_configured_token_is_compared_in_constant_time_whichever_matches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each offered token is compared with every configured one, by digests of one length, so
    the time taken tells neither a byte, the length, nor which token matched."""
    compared: list[tuple[int, int]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((len(a), len(b)))
        return real(a, b)

    monkeypatch.setattr(security.hmac, "compare_digest", spy)
    tokens = Tokens(TOKEN, READ_TOKEN)
    for offered, role in ((TOKEN, Role.WRITE), (READ_TOKEN, Role.READ), ("x" * 500, None)):
        compared.clear()
        assert tokens.role_of(offered) is role
        assert compared == [(32, 32), (32, 32)]


def test_the_roles_cover_what_they_should() -> None:
    assert Role.WRITE.covers(Role.WRITE)
    assert Role.WRITE.covers(Role.READ)
    assert Role.READ.covers(Role.READ)
    assert not Role.READ.covers(Role.WRITE)


def test_every_route_of_the_receiver_asks_for_the_token(guarded: TestClient) -> None:
    # FastAPI adds /docs, /redoc and /openapi.json unless told not to; none of them checked the
    # token, so anyone who could reach a receiver beyond loopback read its API.
    app = guarded.app
    assert isinstance(app, FastAPI)
    routes = [route for route in app.routes if isinstance(route, APIRoute | Route)]
    assert {route.path for route in routes} == {"/v1/traces", "/v1/logs", "/metrics"}
    for route in routes:
        for method in route.methods or ():
            refused = guarded.request(method, route.path, headers=PROTOBUF)
            assert refused.status_code == 401, (method, route.path)
    for path in ("/docs", "/redoc", "/openapi.json"):
        assert guarded.get(path).status_code == 404
    assert guarded.get("/metrics", headers=WRITE_AUTH).status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [("post", "/v1/traces", protobuf_body(agent_span())), ("get", "/metrics", b"")],
)
def test_a_tokenless_receiver_answers_only_requests_that_name_loopback(
    store: MemoryStore, clock: Clock, method: str, path: str, body: bytes
) -> None:
    # A page elsewhere that rebinds its own name to 127.0.0.1 reaches a tokenless receiver as
    # the same origin: its requests name it in Host.
    app = create_app(store, sweep_interval_s=None, clock=clock)
    rebound = TestClient(app, base_url="http://attacker.example:4318")
    refused = rebound.request(method, path, content=body, headers=PROTOBUF)
    assert refused.status_code == 403
    assert store.add_calls == 0
    for host in ("localhost:4318", "127.0.0.1", "[::1]:4318"):
        answered = TestClient(app, base_url=f"http://{host}").request(
            method, path, content=body, headers=PROTOBUF
        )
        assert answered.status_code == 200, host
    assert bool(store.pending) == (method == "post")  # the span held (resent: held once)
