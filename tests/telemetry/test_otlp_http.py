"""OTLP/HTTP posting: the URL, the headers, one retry on 429/503, and failures as one warning."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.telemetry.otlp_receiver import Answer, dead_endpoint, running_receiver
from tests.waiting import GUARD_S
from trailcheck.errors import UsageError
from trailcheck.telemetry.otlp_http import (
    DEFAULT_RETRY_AFTER_S,
    OtlpTarget,
    logs_target,
    logs_url,
    parse_headers,
    post_logs,
    retry_after_s,
)

pytestmark = pytest.mark.live

BODY = (3, b"\x0a\x00")  # three records, as far as the counting goes


def _target(endpoint: str, headers: dict[str, str] | None = None) -> OtlpTarget:
    """The receiver's target; its request timeout a guard, so that a busy machine answering
    slowly is never taken for a receiver that does not answer."""
    return OtlpTarget(logs_url(endpoint), headers or {}, timeout_s=GUARD_S)


@pytest.mark.parametrize(
    ("endpoint", "url"),
    [
        ("http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/logs"),
        ("http://127.0.0.1:4318/", "http://127.0.0.1:4318/v1/logs"),
        ("https://collector.example/otlp", "https://collector.example/otlp/v1/logs"),
        ("http://127.0.0.1:4318/v1/logs", "http://127.0.0.1:4318/v1/logs"),
    ],
)
def test_a_base_url_gets_v1_logs_and_a_full_url_is_kept(endpoint: str, url: str) -> None:
    assert logs_url(endpoint) == url


@pytest.mark.parametrize("endpoint", ["127.0.0.1:4318", "ftp://host/", "http://", "not a url"])
def test_a_url_that_is_not_http_is_a_usage_error(endpoint: str) -> None:
    with pytest.raises(UsageError, match="--emit-otel"):
        logs_url(endpoint)


def test_headers_from_the_variables_then_the_options() -> None:
    environ = {
        "OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20env, x-tenant = a",
        "OTEL_EXPORTER_OTLP_LOGS_HEADERS": "x-tenant=logs",
    }
    target = logs_target("http://127.0.0.1:4318", ["authorization=Bearer x=y"], environ)
    assert target.headers == {"authorization": "Bearer x=y", "x-tenant": "logs"}
    assert parse_headers("", source="env") == {}


@pytest.mark.parametrize("text", ["novalue", "=v", "bad key=v", "k=caf\u00e9"])
def test_a_malformed_header_is_a_usage_error_naming_its_source(text: str) -> None:
    with pytest.raises(UsageError, match="--emit-otel-header"):
        logs_target("http://127.0.0.1:4318", [text])


def test_retry_after_reads_seconds_and_dates() -> None:
    now = datetime(2026, 6, 19, 12, 0, 0, tzinfo=UTC)
    assert retry_after_s("3") == 3.0
    assert retry_after_s("Fri, 19 Jun 2026 12:00:02 GMT", now=now) == 2.0
    assert retry_after_s("Fri, 19 Jun 2026 11:00:00 GMT", now=now) == 0.0
    assert retry_after_s(None) == retry_after_s("soon") == DEFAULT_RETRY_AFTER_S


def test_a_busy_receiver_gets_one_retry_after_what_it_asks() -> None:
    waits: list[float] = []
    with running_receiver() as receiver:
        receiver.enqueue(Answer(503, retry_after="2"), Answer(200))
        target = _target(receiver.endpoint, {"authorization": "Bearer t"})
        outcome = post_logs(target, [BODY], total=3, sleep=waits.append)
    assert (outcome.sent, outcome.problem) == (3, None)
    assert waits == [2.0]
    assert [r.body for r in receiver.received] == [BODY[1], BODY[1]]
    headers = receiver.received[0].headers
    assert headers["content-type"] == "application/x-protobuf"
    assert headers["authorization"] == "Bearer t"
    assert receiver.received[0].path == "/v1/logs"


def test_busy_twice_is_one_warning_and_the_rest_is_not_sent() -> None:
    with running_receiver() as receiver:
        receiver.enqueue(Answer(429, retry_after="0"), Answer(429, retry_after="0"))
        target = _target(receiver.endpoint)
        outcome = post_logs(target, [BODY, BODY], total=6, sleep=lambda _: None)
    assert len(receiver.received) == 2
    assert outcome.sent == 0
    assert outcome.problem == "HTTP 429 Too Many Requests, again after one retry"
    assert outcome.message.startswith("warning: ")
    assert "0/6 sent" in outcome.message
    assert "\n" not in outcome.message


def test_a_wait_longer_than_the_cap_is_not_retried() -> None:
    with running_receiver() as receiver:
        receiver.enqueue(Answer(503, retry_after="60"))
        target = _target(receiver.endpoint)
        outcome = post_logs(target, [BODY], total=3, sleep=pytest.fail)
    assert len(receiver.received) == 1
    assert outcome.problem is not None
    assert "asked to retry after 60 s" in outcome.problem


def test_other_errors_are_not_retried() -> None:
    with running_receiver() as receiver:
        receiver.enqueue(Answer(400))
        outcome = post_logs(_target(receiver.endpoint), [BODY, BODY], total=6)
    assert len(receiver.received) == 1
    assert outcome.problem == "HTTP 400 Bad Request"


def test_records_the_receiver_rejects_are_not_counted_as_sent() -> None:
    with running_receiver() as receiver:
        receiver.enqueue(Answer(200, rejected=1))
        outcome = post_logs(_target(receiver.endpoint), [BODY, BODY], total=6)
    assert outcome.sent == 5
    assert outcome.problem == "the receiver rejected 1 record(s): too old"


def test_a_dead_endpoint_is_a_warning_not_an_exception() -> None:
    outcome = post_logs(OtlpTarget(logs_url(dead_endpoint())), [BODY], total=3)
    assert outcome.sent == 0
    assert outcome.problem is not None
    assert outcome.problem.startswith("ConnectError")
