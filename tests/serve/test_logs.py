"""POST /v1/logs: GenAI log records held beside the spans and joined to them when the trace is
complete; the settle time; records set aside, late, repeated, orphaned; and every refusal."""

from __future__ import annotations

import gzip
import logging
from collections.abc import Iterator

import orjson
import pytest
from fastapi.testclient import TestClient
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse

from tests.serve.conftest import IDLE_TIMEOUT_S, RECEIVER_URL, Clock
from tests.serve.memory_store import MemoryStore
from tests.serve.otlp_bodies import (
    LLM,
    ROOT,
    TOOL,
    TRACE_A,
    TRACE_B,
    agent_span,
    app_log,
    json_body,
    llm_span,
    log_record,
    logs_body,
    protobuf_body,
    tool_span,
)
from trailcheck.serve import create_app, decode_log_event
from trailcheck.serve.sweep import SweepResult
from trailcheck.trace import Trace

PROTOBUF = {"Content-Type": "application/x-protobuf"}
JSON = {"Content-Type": "application/json"}
SETTLE_S = 2.0


@pytest.fixture
def client(store: MemoryStore, clock: Clock) -> Iterator[TestClient]:
    app = create_app(
        store,
        idle_timeout_s=IDLE_TIMEOUT_S,
        settle_s=SETTLE_S,
        sweep_interval_s=None,
        clock=clock,
        max_body_bytes=64 * 1024,
    )
    with TestClient(app, base_url=RECEIVER_URL) as test_client:
        yield test_client


def sweep(client: TestClient) -> SweepResult:
    result: SweepResult = client.app.state.intake.sweep()  # type: ignore[attr-defined]
    return result


def post_spans(client: TestClient, *spans: object) -> None:
    assert (
        client.post("/v1/traces", content=protobuf_body(*spans), headers=PROTOBUF).status_code
        == 200
    )


def post_logs(client: TestClient, *records: object) -> ExportLogsServiceResponse:
    response = client.post("/v1/logs", content=logs_body(*records), headers=PROTOBUF)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/x-protobuf"
    return ExportLogsServiceResponse.FromString(response.content)


def user_input(trace: Trace) -> list[object]:
    [llm] = [span for span in trace.spans if span.span_id == LLM]
    assert llm.llm is not None
    return [message.content for message in llm.llm.input_messages or []]


# --- joined at completion ---------------------------------------------------------------------


def test_log_records_are_held_and_joined_to_their_span_when_the_trace_completes(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    reply = post_logs(client, log_record(), log_record(content="it is order 42", time=1700))
    assert not reply.HasField("partial_success")
    # Durable before the answer, in the order sent.
    assert [decode_log_event(e.payload).event.time_ns for e in store.logs] == [1600, 1700]
    assert store.logs[0].received_ns == clock()
    post_spans(client, agent_span(), llm_span(), tool_span())
    clock.advance(SETTLE_S)
    assert sweep(client).stored == [TRACE_A]
    trace = store.traces[TRACE_A]
    assert user_input(trace) == ["refund order 42", "it is order 42"]
    [llm] = [span for span in trace.spans if span.span_id == LLM]
    assert [event.name for event in llm.events] == ["gen_ai.user.message"] * 2
    assert store.pending == {}
    assert store.logs == []


def test_an_ended_root_waits_for_the_settle_time_after_the_newest_arrival(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    post_spans(client, agent_span(), llm_span())
    clock.advance(SETTLE_S - 0.5)
    assert sweep(client).stored == []  # the root ended, but its log records may be in flight
    post_logs(client, log_record())  # the batch log processor flushes about every second
    clock.advance(SETTLE_S - 0.001)
    assert sweep(client).stored == []  # the log record restarted the settle time
    clock.advance(0.001)  # exactly the settle time is enough
    assert sweep(client).stored == [TRACE_A]
    assert user_input(store.traces[TRACE_A]) == ["refund order 42"]


def test_log_records_of_a_trace_whose_root_never_ends_join_it_at_the_idle_timeout(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    post_spans(client, agent_span(end=None), llm_span())
    clock.advance(IDLE_TIMEOUT_S - 1)
    post_logs(client, log_record())  # an arrival: the idle timeout starts again
    clock.advance(IDLE_TIMEOUT_S)
    assert sweep(client).stored == []
    clock.advance(0.001)
    assert sweep(client).stored == [TRACE_A]
    assert user_input(store.traces[TRACE_A]) == ["refund order 42"]


def test_json_and_gzip_log_exports_give_the_same_trace_as_protobuf(clock: Clock) -> None:
    protobuf = logs_body(log_record())
    document = {
        "resourceLogs": [
            {
                "scopeLogs": [
                    {
                        "logRecords": [
                            {
                                "timeUnixNano": "1600",
                                "eventName": "gen_ai.user.message",
                                "traceId": TRACE_A,
                                "spanId": LLM,
                                "body": {
                                    "kvlistValue": {
                                        "values": [
                                            {
                                                "key": "content",
                                                "value": {"stringValue": "refund order 42"},
                                            }
                                        ]
                                    }
                                },
                                "attributes": [
                                    {"key": "gen_ai.system", "value": {"stringValue": "openai"}}
                                ],
                            }
                        ]
                    }
                ]
            }
        ]
    }
    variants = [
        (protobuf, PROTOBUF),
        (orjson.dumps(document), JSON),
        (gzip.compress(protobuf), {**PROTOBUF, "Content-Encoding": "gzip"}),
        (gzip.compress(orjson.dumps(document)), {**JSON, "Content-Encoding": "gzip"}),
    ]
    traces = []
    for body, headers in variants:
        memory = MemoryStore()
        app = create_app(memory, settle_s=0, sweep_interval_s=None, clock=clock)
        with TestClient(app, base_url=RECEIVER_URL) as client:
            response = client.post("/v1/logs", content=body, headers=headers)
            assert response.status_code == 200
            if headers["Content-Type"] == "application/json":
                assert response.json() == {}
            post_spans(client, agent_span(), llm_span())
            assert sweep(client).stored == [TRACE_A]
        traces.append(memory.traces[TRACE_A])
    assert all(trace == traces[0] for trace in traces)
    assert user_input(traces[0]) == ["refund order 42"]


def test_the_same_log_export_twice_is_kept_once_but_identical_records_in_one_are_kept(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    twice = (log_record(), log_record())  # the same message twice in one model call
    post_logs(client, *twice)
    post_logs(client, *twice)  # the exporter's retry after a lost answer
    assert len(store.logs) == 2
    post_spans(client, agent_span(), llm_span())
    clock.advance(SETTLE_S)
    sweep(client)
    assert user_input(store.traces[TRACE_A]) == ["refund order 42", "refund order 42"]


def test_two_traces_in_one_log_export_complete_separately(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    post_logs(client, log_record(TRACE_A), log_record(TRACE_B, content="hello"))
    post_spans(client, agent_span(TRACE_A), llm_span(TRACE_A))
    clock.advance(SETTLE_S)
    assert sweep(client).stored == [TRACE_A]
    assert [decode_log_event(e.payload).trace_id for e in store.logs] == [TRACE_B]
    post_spans(client, agent_span(TRACE_B), llm_span(TRACE_B))
    clock.advance(SETTLE_S)
    assert sweep(client).stored == [TRACE_B]
    assert user_input(store.traces[TRACE_B]) == ["hello"]


# --- set aside, late, orphaned ----------------------------------------------------------------


def test_records_that_are_not_genai_events_or_name_no_span_are_counted_not_refused(
    client: TestClient, store: MemoryStore, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="trailcheck.serve.receive")
    reply = post_logs(
        client, app_log(), app_log("done"), log_record(None, None), log_record(content="kept")
    )
    # Accepted whole: partial_success is for records trailcheck would keep and could not.
    assert not reply.HasField("partial_success")
    assert [decode_log_event(e.payload).span_id for e in store.logs] == [LLM]
    assert "POST /v1/logs: 2 log record(s) are not GenAI events (gen_ai.*)" in caplog.text
    assert "POST /v1/logs: 1 GenAI log record(s) name no trace and span" in caplog.text
    post_spans(client, agent_span(), llm_span())
    clock.advance(SETTLE_S)
    sweep(client)
    assert user_input(store.traces[TRACE_A]) == ["kept"]


def test_only_other_records_store_nothing(client: TestClient, store: MemoryStore) -> None:
    assert not post_logs(client, app_log()).HasField("partial_success")
    assert store.logs == []
    assert store.add_calls == 0


def test_late_log_records_are_reported_as_partial_success_and_the_rest_is_stored(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    post_spans(client, agent_span(), llm_span())
    clock.advance(SETTLE_S)
    assert sweep(client).stored == [TRACE_A]
    reply = post_logs(client, log_record(TRACE_A), log_record(TRACE_A, ROOT), log_record(TRACE_B))
    assert reply.partial_success.rejected_log_records == 2
    message = reply.partial_success.error_message
    assert message == (
        f"2 GenAI log record(s) arrived after their trace was complete and stored (trace"
        f" {TRACE_A!r}); a stored trace is not changed"
    )
    assert [decode_log_event(e.payload).trace_id for e in store.logs] == [TRACE_B]
    assert store.traces[TRACE_A].spans[1].events == []


def test_late_log_records_in_json(client: TestClient, store: MemoryStore, clock: Clock) -> None:
    post_spans(client, agent_span(), llm_span())
    clock.advance(SETTLE_S)
    sweep(client)
    document = orjson.dumps(
        {
            "resourceLogs": [
                {
                    "scopeLogs": [
                        {
                            "logRecords": [
                                {
                                    "eventName": "gen_ai.choice",
                                    "traceId": TRACE_A,
                                    "spanId": LLM,
                                    "timeUnixNano": "1800",
                                }
                            ]
                        }
                    ]
                }
            ]
        }
    )
    response = client.post("/v1/logs", content=document, headers=JSON)
    assert response.status_code == 200
    partial = response.json()["partialSuccess"]
    assert partial["rejectedLogRecords"] == "1"
    assert TRACE_A in partial["errorMessage"]


def test_a_retried_log_export_of_a_stored_trace_is_accepted_and_changes_nothing(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    post_logs(client, log_record())
    post_spans(client, agent_span(), llm_span())
    clock.advance(SETTLE_S)
    sweep(client)
    stored = store.traces[TRACE_A]
    reply = post_logs(client, log_record())  # its records are in the stored trace already
    assert not reply.HasField("partial_success")
    assert store.logs == []
    assert store.traces[TRACE_A] is stored


def test_log_records_whose_spans_never_arrive_are_dropped_at_the_idle_timeout(
    client: TestClient, store: MemoryStore, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    post_logs(client, log_record(), log_record(content="again", time=1700))
    clock.advance(IDLE_TIMEOUT_S)
    assert sweep(client) == SweepResult()  # not idle for more than the timeout yet
    assert len(store.logs) == 2
    clock.advance(0.001)
    assert sweep(client).dropped_logs == {TRACE_A: 2}
    assert f"dropped 2 GenAI log record(s) of trace {TRACE_A!r}: none of its spans arrived" in (
        caplog.text
    )
    assert store.logs == []
    assert store.traces == {}
    assert store.quarantined == {}


def test_a_log_record_naming_a_span_not_in_the_trace_is_dropped_and_counted(
    client: TestClient, store: MemoryStore, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    post_logs(client, log_record(), log_record(span_id="0000000000000abc"))
    post_spans(client, agent_span(), llm_span())
    clock.advance(SETTLE_S)
    result = sweep(client)
    assert (result.stored, result.dropped_logs) == ([TRACE_A], {TRACE_A: 1})
    assert "their span is not in the trace" in caplog.text
    assert user_input(store.traces[TRACE_A]) == ["refund order 42"]
    assert store.logs == []


def test_a_trace_that_does_not_assemble_is_quarantined_with_its_log_records(
    client: TestClient, store: MemoryStore, clock: Clock
) -> None:
    post_logs(client, log_record(span_id=TOOL))
    post_spans(client, tool_span())  # its parent, the root, never comes
    clock.advance(IDLE_TIMEOUT_S + 1)
    assert list(sweep(client).quarantined) == [TRACE_A]
    assert (len(store.pending), len(store.logs)) == (1, 1)


# --- refusals ---------------------------------------------------------------------------------


def test_an_unreadable_genai_record_is_400_naming_the_field_and_nothing_is_stored(
    client: TestClient, store: MemoryStore
) -> None:
    bad = log_record(content="bad")
    bad.span_id = b"\x01\x02\x03"
    response = client.post(
        "/v1/logs", content=logs_body(log_record(), bad, app_log()), headers=PROTOBUF
    )
    assert response.status_code == 400
    error = response.json()
    assert error["code"] == 3
    assert error["message"].startswith(
        "POST /v1/logs: field 'resourceLogs[0].scopeLogs[0].logRecords[1].spanId'"
    )
    assert "a GenAI log record cannot be read" in error["message"]
    assert error["message"].endswith("; nothing was stored")
    assert store.add_calls == 0
    assert store.logs == []


def test_a_bad_attribute_of_a_genai_record_in_json_is_400_naming_it(
    client: TestClient, store: MemoryStore
) -> None:
    record = {
        "eventName": "gen_ai.user.message",
        "traceId": TRACE_A,
        "spanId": LLM,
        "attributes": [{"key": "x", "value": {"doubleValue": "NaN"}}],
    }
    document = {"resourceLogs": [{"scopeLogs": [{"logRecords": [record]}]}]}
    response = client.post("/v1/logs", content=orjson.dumps(document), headers=JSON)
    assert response.status_code == 400
    assert (
        "resourceLogs[0].scopeLogs[0].logRecords[0].attributes[0].value"
        in (response.json()["message"])
    )
    assert store.add_calls == 0


def test_a_trace_export_sent_to_the_logs_endpoint_is_400_saying_so(
    client: TestClient, store: MemoryStore
) -> None:
    spans = protobuf_body(agent_span(), tool_span())
    response = client.post("/v1/logs", content=spans, headers=PROTOBUF)
    assert response.status_code == 400
    assert (
        "the payload holds spans, not log records: send trace exports to /v1/traces"
        in (response.json()["message"])
    )
    response = client.post("/v1/logs", content=json_body(agent_span()), headers=JSON)
    assert response.status_code == 400
    assert "a trace export (resourceSpans), not log records" in response.json()["message"]
    assert store.add_calls == 0


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"\x0a\xff\xff\xff", "not an OTLP protobuf ExportLogsServiceRequest"),
        (b'{"resourceLogs": [', "not valid JSON"),
        (b"[]", "an OTLP/JSON logs export is an object, got list"),
        (b'{"other": 1}', "an OTLP/JSON logs export has resourceLogs; this document has none"),
    ],
)
def test_an_undecodable_body_is_400(
    client: TestClient, store: MemoryStore, body: bytes, reason: str
) -> None:
    headers = PROTOBUF if body.startswith(b"\x0a") else JSON
    response = client.post("/v1/logs", content=body, headers=headers)
    assert response.status_code == 400
    assert reason in response.json()["message"]
    assert store.add_calls == 0


def test_an_empty_log_export_is_accepted_and_stores_nothing(
    client: TestClient, store: MemoryStore
) -> None:
    response = client.post("/v1/logs", content=b"", headers=PROTOBUF)
    assert response.status_code == 200
    assert response.content == b""
    assert store.add_calls == 0


def test_the_token_size_and_type_checks_apply_to_the_logs_endpoint(
    store: MemoryStore, clock: Clock
) -> None:
    app = create_app(store, token="s3cret", sweep_interval_s=None, clock=clock, max_body_bytes=512)
    body = logs_body(log_record())
    auth = {"Authorization": "Bearer s3cret"}
    refused = [
        (body, PROTOBUF, 401),
        (body, {**auth, "Content-Type": "text/plain"}, 415),
        (logs_body(log_record(content="x" * 1024)), {**auth, **PROTOBUF}, 413),
    ]
    with TestClient(app, base_url=RECEIVER_URL) as client:
        for content, headers, status in refused:
            assert client.post("/v1/logs", content=content, headers=headers).status_code == status
        assert store.add_calls == 0
        ok = client.post("/v1/logs", content=body, headers={**auth, **PROTOBUF})
        assert ok.status_code == 200
    assert len(store.logs) == 1


def test_a_failing_store_is_a_retryable_503_for_log_records(
    store: MemoryStore, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    store.fail_writes = True
    with TestClient(
        create_app(store, sweep_interval_s=None, clock=clock), base_url=RECEIVER_URL
    ) as client:
        response = client.post("/v1/logs", content=logs_body(log_record()), headers=PROTOBUF)
        assert response.status_code == 503
        assert response.headers["retry-after"] == "1"
        assert response.json()["message"] == (
            "the store could not take the log records (OSError); nothing was stored: retry later"
        )
        assert "storing 1 received log record(s) failed" in caplog.text
        store.fail_writes = False
        assert post_logs(client, log_record()) is not None
    assert len(store.logs) == 1
