"""The real server: uvicorn on 127.0.0.1 (a port the OS picks), a SQLite store, spans posted
over HTTP as an OTLP exporter posts them (gzip protobuf, bearer token), and the background sweep
completing the trace.

The OpenTelemetry OTLP/HTTP exporter (opentelemetry-exporter-otlp-proto-http) is not a
dependency, so the request is the one it sends, built here and posted with httpx.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.serve.live_server import live_server
from tests.serve.otlp_bodies import ROOT, TOOL, TRACE_A, agent_span, protobuf_body, tool_span
from tests.waiting import GUARD_S, wait_until
from trailcheck.serve import create_app
from trailcheck.store import Store, UnknownTraceError
from trailcheck.trace import Trace

pytestmark = pytest.mark.live

TOKEN = "e2e-token"


@pytest.fixture
def endpoint(tmp_path: Path) -> Iterator[tuple[str, Store]]:
    with Store.open(f"sqlite:///{tmp_path / 'e2e.db'}") as store:
        app = create_app(store, token=TOKEN, sweep_interval_s=0.05)
        with live_server(app, TOKEN) as base:
            yield f"{base}/v1/traces", store


def _stored(store: Store, trace_id: str) -> Trace:
    """The trace once the background sweep has completed it."""

    def completed() -> Trace | None:
        try:
            return store.get_trace(trace_id)
        except UnknownTraceError:
            return None

    return wait_until(completed, f"the sweep completing trace {trace_id}")


def test_spans_posted_to_the_running_server_become_a_stored_trace(
    endpoint: tuple[str, Store],
) -> None:
    url, store = endpoint
    headers = {
        "Content-Type": "application/x-protobuf",
        "Content-Encoding": "gzip",
        "Authorization": f"Bearer {TOKEN}",
    }
    with httpx.Client(timeout=GUARD_S) as client:
        unauthorised = client.post(url, content=protobuf_body(tool_span()), headers={})
        assert unauthorised.status_code == 401
        first = client.post(url, content=gzip.compress(protobuf_body(tool_span())), headers=headers)
        assert first.status_code == 200
        # Durable before the 200: the span is in the database already.
        assert len(store.pending_payloads(TRACE_A)) == 1
        second = client.post(
            url, content=gzip.compress(protobuf_body(agent_span())), headers=headers
        )
        assert second.status_code == 200
        assert second.headers["content-type"] == "application/x-protobuf"
    trace = _stored(store, TRACE_A)
    assert sorted(span.span_id for span in trace.spans) == [ROOT, TOOL]
    assert [call.name for call in trace.tool_calls] == ["lookup"]
    assert store.pending_payloads(TRACE_A) == []
