"""Delivering notices: the terminal lines, a webhook that receives the JSON (and one that fails,
loudly), and the OpenTelemetry event with the alert's numbers and no trace content."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import orjson
import pytest
from opentelemetry.proto.logs.v1.logs_pb2 import SEVERITY_NUMBER_WARN

from tests.online.notice_examples import FAILING, FIRED_NS, above_notice, change_notice
from tests.telemetry.otlp_receiver import Answer, attributes, dead_endpoint, running_receiver
from tests.waiting import GUARD_S
from trailcheck.online import (
    DeliveryError,
    FailingTrace,
    WebhookDestination,
    deliver_notice,
    otel_notice_request,
    post_webhook,
    render_notice,
    send_otel_notice,
)
from trailcheck.telemetry import logs_target

TOKEN = "XXXX-secret-token"


# --- the terminal -------------------------------------------------------------------------------


def test_the_terminal_lines_name_the_interval_and_the_failing_traces_by_cluster() -> None:
    notice = above_notice()
    assert render_notice(notice).splitlines() == [
        f"alert refunds-failing: evaluator refund-policy@{notice.evaluator_version},"
        " failure_rate_above, window 2026-06-19T13:00:00Z to 2026-06-19T14:00:00Z",
        "  failure rate 80/200=0.400, wilson 95% [0.335, 0.469]",
        "  why: failure rate 80/200=0.400, wilson 95% [0.335, 0.469]: lower bound 0.335 >"
        " threshold 0.200",
        "  failing traces: 80, 3 listed",
        "    cluster c-refund: 4bf92f3577b34da6a3ce929d0e0e4736, t-3",
        "    no cluster: t-2",
    ]


def test_the_terminal_lines_of_a_change_name_the_baseline_and_the_p_value() -> None:
    lines = render_notice(change_notice()).splitlines()
    assert lines[1] == "  failure rate 3/10=0.300, wilson 95% [0.108, 0.603]"
    assert lines[2] == "  baseline 0/200=0.000, p=7.9e-05 (Fisher exact)"
    assert lines[4] == "  failing traces: 3"


def test_a_trace_id_cannot_drive_the_terminal() -> None:
    notice = above_notice([FailingTrace(trace_id="t-1\x1b]0;owned\x07", cluster_id="c\x1b[2J")])
    text = render_notice(notice)
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "    cluster c\\x1b[2J: t-1\\x1b]0;owned\\x07" in text.splitlines()


def test_no_failing_trace_listed_is_said() -> None:
    assert render_notice(above_notice([])).splitlines()[-1] == "  failing traces: 80, none listed"


# --- a webhook ----------------------------------------------------------------------------------


@dataclass
class Hook:
    url: str = ""
    status: int = 204
    received: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)


@contextmanager
def running_hook(status: int = 204) -> Iterator[Hook]:
    """A loopback webhook on port 0 that keeps each request and answers ``status``."""
    hook = Hook(status=status)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            headers = {key.lower(): value for key, value in self.headers.items()}
            hook.received.append((self.path, headers, body))
            self.send_response(hook.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the tests read ``hook.received``."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    hook.url = f"http://127.0.0.1:{server.server_address[1]}/services/T0/B0/{TOKEN}"
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield hook
    finally:
        server.shutdown()
        server.server_close()
        thread.join(GUARD_S)  # a guard: the thread has nothing left to do


@pytest.mark.live
def test_a_webhook_receives_the_notice_as_json() -> None:
    notice = change_notice()
    with running_hook() as hook, httpx.Client(timeout=GUARD_S) as client:
        post_webhook(hook.url, notice, client=client)
    ((path, headers, body),) = hook.received
    assert path == f"/services/T0/B0/{TOKEN}"
    assert headers["content-type"] == "application/json"
    received = orjson.loads(body)
    assert received == orjson.loads(notice.model_dump_json())
    assert received["baseline"]["test"] == "fisher"
    assert received["window"]["start"] == "2026-06-19T13:00:00Z"
    assert [t["trace_id"] for t in received["failing_traces"]] == [t.trace_id for t in FAILING]


@pytest.mark.live
def test_a_webhook_that_refuses_raises_naming_its_origin_and_status_not_its_token() -> None:
    with (
        running_hook(status=500) as hook,
        httpx.Client(timeout=GUARD_S) as client,
        pytest.raises(DeliveryError) as raised,
    ):
        post_webhook(hook.url, above_notice(), client=client)
    origin = hook.url.split("/services")[0]
    assert str(raised.value) == (
        f"alert notice not delivered to webhook {origin}/…: HTTP 500 Internal Server Error"
    )
    assert (raised.value.status, raised.value.destination) == (500, f"webhook {origin}/…")
    assert TOKEN not in str(raised.value)
    assert len(hook.received) == 1  # it was asked, and said no


@pytest.mark.live
def test_a_webhook_that_cannot_be_reached_raises_too() -> None:
    with (
        httpx.Client(timeout=GUARD_S) as client,
        pytest.raises(
            DeliveryError, match=r"not delivered to webhook http://127\.0\.0\.1:\d+/…: Connect"
        ) as raised,
    ):
        post_webhook(f"{dead_endpoint()}/hook/{TOKEN}", above_notice(), client=client)
    assert raised.value.status is None
    assert TOKEN not in str(raised.value)


# --- OpenTelemetry ------------------------------------------------------------------------------


def test_the_otel_event_carries_the_alert_and_no_trace_content() -> None:
    notice = change_notice()
    ((resource,),) = [otel_notice_request(notice).resource_logs]
    ((record,),) = [resource.scope_logs[0].log_records]
    assert record.event_name == "gen_ai.evaluation.result"
    assert (record.severity_number, record.severity_text) == (SEVERITY_NUMBER_WARN, "WARN")
    assert record.time_unix_nano == FIRED_NS
    assert (record.trace_id, record.span_id) == (b"", b"")
    found = attributes(record)
    assert found == {
        "gen_ai.evaluation.name": "refund-policy",
        "gen_ai.evaluation.score.label": "fail",
        "gen_ai.evaluation.explanation": notice.reason,  # one clause: no ";" in it
        "trailcheck.online.alert": "refunds-worse",
        "trailcheck.online.evaluator.version": notice.evaluator_version,
        "trailcheck.online.rule": "failure_rate_change",
        "trailcheck.online.window.start": "2026-06-19T13:00:00Z",
        "trailcheck.online.window.end": "2026-06-19T14:00:00Z",
        "trailcheck.online.scored": 10,
        "trailcheck.online.failed": 3,
        "trailcheck.online.failure_rate": 0.3,
        "trailcheck.online.interval.low": notice.interval[0],
        "trailcheck.online.interval.high": notice.interval[1],
        "trailcheck.online.interval.level": 0.95,
        "trailcheck.online.interval.method": "wilson",
        "trailcheck.online.baseline.scored": 200,
        "trailcheck.online.baseline.failed": 0,
        "trailcheck.online.p_value": pytest.approx(7.887e-05, rel=1e-3),
        "trailcheck.online.test": "fisher",
    }
    serialized = record.SerializeToString()
    for trace in FAILING:
        assert trace.trace_id.encode() not in serialized


def test_an_above_event_has_no_baseline_attributes() -> None:
    ((record,),) = [otel_notice_request(above_notice()).resource_logs[0].scope_logs[0].log_records]
    keys = set(attributes(record))
    assert "trailcheck.online.interval.low" in keys
    assert not {k for k in keys if "baseline" in k or k.endswith(("p_value", ".test"))}


@pytest.mark.live
def test_the_otel_event_is_sent_and_a_refusal_raises() -> None:
    with running_receiver() as receiver:
        send_otel_notice(logs_target(receiver.endpoint), above_notice())
        ((record,),) = [receiver.records()]
        assert attributes(record)["trailcheck.online.alert"] == "refunds-failing"
        receiver.enqueue(Answer(503, retry_after="0"), Answer(503, retry_after="0"))
        with pytest.raises(
            DeliveryError, match=r"to OTLP http://127\.0\.0\.1:\d+/v1/logs: HTTP 503"
        ):
            send_otel_notice(logs_target(receiver.endpoint), above_notice(), sleep=lambda _: None)
        assert len(receiver.received) == 3  # one sent, one refused twice (retried once)


# --- one destination ----------------------------------------------------------------------------


@pytest.mark.live
def test_each_destination_gets_the_notice_its_way() -> None:
    notice = above_notice()
    written: list[str] = []
    with (
        running_hook() as hook,
        running_receiver() as receiver,
        httpx.Client(timeout=GUARD_S) as client,
    ):
        target = logs_target(receiver.endpoint)
        for destination in ("terminal", "otel", WebhookDestination(webhook=hook.url)):
            deliver_notice(notice, destination, write=written.append, client=client, otel=target)
        assert written == [render_notice(notice)]
        assert len(receiver.records()) == 1
        assert len(hook.received) == 1


def test_otel_without_an_endpoint_is_a_delivery_error_not_a_silence() -> None:
    written: list[str] = []
    with (
        httpx.Client() as client,
        pytest.raises(DeliveryError, match=r"to otel: no OTLP endpoint was given"),
    ):
        deliver_notice(above_notice(), "otel", write=written.append, client=client, otel=None)
    assert written == []
