"""The issue's scenario against the real server (uvicorn on 127.0.0.1, a port the OS picks) and
the real store, on SQLite and PostgreSQL: one poisoned span, then 100 good traces from 4
concurrent senders, and a trace that decodes but cannot be stored (two model calls of
9223372036854775807 input tokens each: every span is valid, their sum is beyond what the store
holds). All 100 are stored; the poison is refused at the door naming its field; the trace that
cannot be stored is quarantined with its reason and its spans kept, and the sweep went on."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import pytest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from tests.serve.live_server import live_server
from tests.serve.otlp_bodies import ROOT, agent_span, json_body, protobuf_body, string, tool_span
from tests.waiting import GUARD_S, wait_until
from trailcheck.serve import create_app
from trailcheck.store import Store

pytestmark = pytest.mark.live

SENDERS = 4
TRACES_PER_SENDER = 25
POISON_ID = "00000000000000000000000000000bad"
TOKENS_ID = "000000000000000000000000000070c5"
PROTOBUF = {"Content-Type": "application/x-protobuf"}
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def served(store_url: str) -> Iterator[tuple[str, Store]]:
    with Store.open(store_url) as store:
        # No trace may idle out: each completes when its root arrives (settle 0), and a tool span
        # waits for its root however slowly the sender gets to post it.
        app = create_app(store, settle_s=0, idle_timeout_s=GUARD_S, sweep_interval_s=0.02)
        with live_server(app) as base:
            yield f"{base}/v1/traces", store


def _model_call(span_id: str, input_tokens: int) -> Span:
    return Span(
        trace_id=bytes.fromhex(TOKENS_ID),
        span_id=bytes.fromhex(span_id),
        parent_span_id=bytes.fromhex(ROOT),
        name="chat shop-model",
        start_time_unix_nano=1500,
        end_time_unix_nano=1900,
        attributes=[
            string("gen_ai.operation.name", "chat"),
            KeyValue(key="gen_ai.usage.input_tokens", value=AnyValue(int_value=input_tokens)),
        ],
    )


def _trace_id(sender: int, number: int) -> str:
    return f"{sender + 1:02x}{number:030x}"


def _send(url: str, sender: int, failures: list[str]) -> None:
    """One sender: its traces, each as two requests (the tool span, then the root), protobuf
    from even senders and OTLP/JSON from odd ones, as different SDKs would."""
    encode, headers = (protobuf_body, PROTOBUF) if sender % 2 == 0 else (json_body, JSON)
    try:
        with httpx.Client(timeout=GUARD_S) as client:
            for number in range(TRACES_PER_SENDER):
                trace_id = _trace_id(sender, number)
                for span in (tool_span(trace_id), agent_span(trace_id)):
                    response = client.post(url, content=encode(span), headers=headers)
                    if response.status_code != 200:
                        failures.append(f"{trace_id}: {response.status_code} {response.text}")
    except httpx.HTTPError as error:
        failures.append(f"sender {sender}: {error!r}")


def _wait_until_settled(store: Store, expected: int) -> None:
    """Until the sweep has stored ``expected`` traces and left nothing pending unquarantined."""
    wait_until(
        lambda: (
            len(store.list_traces()) >= expected
            and all(held.quarantined for held in store.pending_traces())
        ),
        f"the sweep storing {expected} traces and settling the rest",
        poll_s=0.05,
    )


def test_a_poisoned_span_does_not_stop_100_traces_from_4_senders(
    served: tuple[str, Store],
) -> None:
    url, store = served
    with httpx.Client(timeout=GUARD_S) as client:
        poison = json_body(agent_span(POISON_ID, end=2**63))
        refused = client.post(url, content=poison, headers=JSON)
        assert refused.status_code == 400
        message = refused.json()["message"]
        assert "field 'resourceSpans[0].scopeSpans[0].spans[0].endTimeUnixNano'" in message
        assert "at most 9223372036854775807" in message
        most = 2**63 - 1  # each a valid int64; the trace's total is not
        unstorable = protobuf_body(
            _model_call("00000000000000a1", most), _model_call("00000000000000a2", most)
        )
        assert client.post(url, content=unstorable, headers=PROTOBUF).status_code == 200
        root = protobuf_body(agent_span(TOKENS_ID))
        assert client.post(url, content=root, headers=PROTOBUF).status_code == 200

    failures: list[str] = []
    senders = [
        threading.Thread(target=_send, args=(url, sender, failures), daemon=True)
        for sender in range(SENDERS)
    ]
    for thread in senders:
        thread.start()
    for thread in senders:
        thread.join(GUARD_S)  # a guard: each sender ends after its last answer
    assert not any(thread.is_alive() for thread in senders), "a sender did not finish"
    assert failures == []

    total = SENDERS * TRACES_PER_SENDER
    _wait_until_settled(store, total)
    stored = {row.trace_id for row in store.list_traces()}
    wanted = {_trace_id(s, n) for s in range(SENDERS) for n in range(TRACES_PER_SENDER)}
    assert wanted <= stored
    assert all(len(store.get_trace(trace_id).spans) == 2 for trace_id in wanted)
    assert POISON_ID not in stored
    assert TOKENS_ID not in stored
    [held] = store.pending_traces()
    assert (held.trace_id, held.quarantined, held.span_count) == (TOKENS_ID, True, 3)
    assert held.reason == (
        "POST /v1/traces: field 'usage.input_tokens': 18446744073709551614 (the trace's total"
        " over its model calls) is beyond what trailcheck can store: a signed 64-bit integer,"
        " from -9223372036854775808 to 9223372036854775807"
    )
