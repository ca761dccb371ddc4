"""``serve --redact``: spans and GenAI log records full of planted secrets, posted over OTLP/HTTP
and over OTLP/gRPC into a SQLite store, leave none of them in the database file's bytes (nor in
its write-ahead log): not in the stored trace, not in the spans still pending, not in the
conflicting version kept aside, not in a quarantined trace. And the traces are stored redacted,
with the markers, the hashes and the counts of each rule."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import orjson
import pytest
import typer
from fastapi import FastAPI
from fastapi.testclient import TestClient
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2_grpc import LogsServiceStub
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status
from typer.testing import CliRunner

from tests.serve.conftest import IDLE_TIMEOUT_S, RECEIVER_URL, Clock
from tests.serve.otlp_bodies import (
    LLM,
    ROOT,
    TOOL,
    llm_span,
    log_record,
    logs_body,
    string,
    tool_span,
)
from tests.waiting import GUARD_S
from trailcheck.commands import serve_impl
from trailcheck.commands.serve import serve_command
from trailcheck.redaction import (
    REDACTIONS_KEY,
    KeyedHash,
    RedactionRulesError,
    Redactor,
    builtin_redactor,
    parse_redaction_rules,
)
from trailcheck.serve import (
    TOKEN_ENV,
    GrpcReceiver,
    Intake,
    create_app,
    grpc_receiver,
    held_trace,
    logs_service,
    trace_service,
)
from trailcheck.store import Store

pytestmark = pytest.mark.live

HASH_KEY = "planted-test-hash-key-0123456789"
RULES = """\
hash_key_env: TEST_REDACT_KEY
patterns:
  - name: employee_id
    regex: 'EMP-[0-9]{6}'
fields:
  - field: user.id
    action: hash
  - field: customer_id
    action: hash
  - field: ssn
    action: drop
"""

COMPLETE = "0af7651916cd43dd8448eb211c80319c"  # stored by the sweep
PENDING = "5b8efff798038103d269b633813fc60c"  # still held, its root running
ORPHAN = "7c0ffee0c0ffee0c0ffee0c0ffee0c0f"  # quarantined: its parent never arrives
ORPHAN_SPAN = "e1e2e3e4e5e6e7e8"

PEM_BODY = "MIIEowIBAAKCAQEAplantedKeyBody0123456789abcdef"
PRIVATE_KEY = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
URL_PASSWORD = "PlantedPassw0rd42"
BEARER = "PlantedBearerToken0123456789"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJwbGFudGVkIjoiand0In0.PlantedJwtSignature42"
OPENAI_KEY = "sk-proj-PlantedOpenAIKey0123456789"
AWS_KEY = "AKIAPLANTEDAWSKEY123"
GITHUB_TOKEN = "ghp_PlantedGithubToken0123456789abcdefgh"
EMAIL = "planted.person@example.org"
IBAN = "GB82WEST12345698765432"
CARD = "4111 1111 1111 1111"
PHONE = "+1 415 555 0142"
BASIC_CREDENTIALS = "UGxhbnRlZEJhc2ljQ3JlZGVudGlhbHM="
EMPLOYEE = "EMP-424242"
USER_ID = "planted-user-0042"
CUSTOMER_ID = "CUST-PLANTED-77"
SSN = "078-05-1120"
EVENT_EMAIL = "planted.event@example.org"
# What must never be in the file: every planted value, in each form it could be written in.
PLANTED = (
    PEM_BODY,
    URL_PASSWORD,
    BEARER,
    "eyJwbGFudGVkIjoiand0In0",
    OPENAI_KEY,
    AWS_KEY,
    GITHUB_TOKEN,
    EMAIL,
    IBAN,
    CARD,
    CARD.replace(" ", ""),
    "415 555 0142",
    BASIC_CREDENTIALS.rstrip("="),
    EMPLOYEE,
    USER_ID,
    CUSTOMER_ID,
    SSN,
    EVENT_EMAIL,
)
# Stored as sent: proof that the bytes searched hold the traces' content at all.
CONTROL = "refund of order A-1001 requested"


def _kv(key: str, value: Any) -> Any:
    return string(key, value)


def _root(trace_id: str, *, ended: bool) -> Any:
    return Span(
        trace_id=bytes.fromhex(trace_id),
        span_id=bytes.fromhex(ROOT),
        name="invoke_agent support",
        start_time_unix_nano=1000,
        end_time_unix_nano=9000 if ended else 0,
        attributes=[
            _kv("gen_ai.operation.name", "invoke_agent"),
            _kv("input.value", f"{CONTROL}; I'm {EMAIL}, call {PHONE}, card {CARD}"),
            _kv("user.id", USER_ID),
            _kv("http.request.header.authorization", f"Basic {BASIC_CREDENTIALS}"),
            _kv("db.connection_string", f"postgres://app:{URL_PASSWORD}@db.internal/shop"),
        ],
    )


def _tool(trace_id: str, *, amount: int = 129) -> Any:
    arguments = {"customer_id": CUSTOMER_ID, "iban": IBAN, "ssn": SSN, "amount": amount}
    result = {"api_key": OPENAI_KEY, "note": f"aws {AWS_KEY}", "by": EMPLOYEE}
    span = tool_span(trace_id, tool="issue_refund")
    span.attributes.extend(
        [
            _kv("gen_ai.tool.call.arguments", orjson.dumps(arguments).decode()),
            _kv("gen_ai.tool.call.result", orjson.dumps(result).decode()),
        ]
    )
    return span


def _llm(trace_id: str) -> Any:
    messages = [{"role": "user", "parts": [{"type": "text", "content": PRIVATE_KEY}]}]
    span = llm_span(trace_id)
    span.attributes.extend([_kv("gen_ai.input.messages", orjson.dumps(messages).decode())])
    span.status.code = Status.STATUS_CODE_ERROR
    span.status.message = f"401 for Bearer {BEARER}"
    event = span.events.add()
    event.name = "retry"
    event.time_unix_nano = 1600
    event.attributes.extend([_kv("token.seen", JWT)])
    named = span.events.add()  # an event's name is free text too
    named.name = f"card declined, tell {EVENT_EMAIL}"
    named.time_unix_nano = 1700
    return span


def _orphan() -> Any:
    return Span(
        trace_id=bytes.fromhex(ORPHAN),
        span_id=bytes.fromhex(ORPHAN_SPAN),
        parent_span_id=bytes.fromhex("ffffffffffffffff"),
        name="execute_tool lookup",
        start_time_unix_nano=2000,
        end_time_unix_nano=3000,
        attributes=[_kv("note", f"{EMAIL} {GITHUB_TOKEN}")],
    )


def _traces_body(*spans: Any) -> bytes:
    request = ExportTraceServiceRequest()
    entry = request.resource_spans.add()
    entry.resource.attributes.extend(
        [_kv("service.name", "shop-agent"), _kv("service.owner", EMAIL)]
    )
    scope = entry.scope_spans.add()
    scope.scope.name = "tests"
    scope.spans.extend(spans)
    return bytes(request.SerializeToString())


def _logs_body(trace_id: str) -> bytes:
    return logs_body(
        log_record(trace_id, LLM, content=f"I'm {EMAIL}, token {GITHUB_TOKEN}"),
    )


@dataclass
class Exporter:
    """Posts export bodies to a receiver over one transport."""

    traces: Callable[[bytes], None]
    logs: Callable[[bytes], None]


@contextmanager
def _http(app: Any) -> Iterator[Exporter]:
    headers = {"Content-Type": "application/x-protobuf"}
    with TestClient(app, base_url=RECEIVER_URL) as client:

        def post(path: str, body: bytes) -> None:
            response = client.post(path, content=body, headers=headers)
            assert response.status_code == 200, response.text

        yield Exporter(
            traces=lambda body: post("/v1/traces", body), logs=lambda body: post("/v1/logs", body)
        )


@contextmanager
def _grpc(intake: Intake) -> Iterator[Exporter]:
    running = grpc_receiver(
        [trace_service(intake), logs_service(intake)],
        host="127.0.0.1",
        port=0,
        token=None,
        max_message_bytes=1024 * 1024,
    )
    running.start()
    try:
        with grpc.insecure_channel(running.address) as channel:
            spans, logs = TraceServiceStub(channel), LogsServiceStub(channel)
            yield Exporter(
                traces=lambda body: spans.Export(
                    ExportTraceServiceRequest.FromString(body), timeout=GUARD_S
                ),
                logs=lambda body: logs.Export(
                    ExportLogsServiceRequest.FromString(body), timeout=GUARD_S
                ),
            )
    finally:
        running.stop(0)


def _app(store: Store, clock: Clock, redactor: Redactor | None) -> Any:
    """The app over ``store``, swept when the test says, its clock the test's."""
    return create_app(
        store,
        idle_timeout_s=IDLE_TIMEOUT_S,
        settle_s=0,
        sweep_interval_s=None,
        watch_interval_s=None,
        clock=clock,
        redactor=redactor,
    )


def _redactor() -> Redactor:
    return parse_redaction_rules(RULES, environ={"TEST_REDACT_KEY": HASH_KEY})


def _file_bytes(path: Path) -> bytes:
    """The database file and its write-ahead log, as they are on disk."""
    wal = path.with_name(path.name + "-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def _export_everything(export: Exporter, intake: Intake, clock: Clock) -> None:
    """A trace stored, one quarantined, and one still pending with a conflicting version of
    one of its spans kept aside: every table that holds content gets some."""
    body = _traces_body(_root(COMPLETE, ended=True), _tool(COMPLETE), _llm(COMPLETE), _orphan())
    export.traces(body)
    export.logs(_logs_body(COMPLETE))
    clock.advance(IDLE_TIMEOUT_S + 1)
    swept = intake.sweep()
    assert swept.stored == [COMPLETE]
    assert list(swept.quarantined) == [ORPHAN]
    export.traces(_traces_body(_root(PENDING, ended=False), _tool(PENDING), _llm(PENDING)))
    export.logs(_logs_body(PENDING))
    export.traces(_traces_body(_tool(PENDING, amount=130)))  # another version: kept aside
    assert intake.sweep().stored == []


def _assert_stored_redacted(store: Store) -> None:
    """The traces are there, redacted: markers, hashes, dropped fields and the counts."""
    hashed = KeyedHash(HASH_KEY.encode())
    trace = store.get_trace(COMPLETE)
    assert trace.input == (
        f"{CONTROL}; I'm [REDACTED:email], call [REDACTED:phone], card [REDACTED:card_number]"
    )
    [call] = trace.tool_calls
    assert call.arguments == {
        "customer_id": hashed.of(CUSTOMER_ID),
        "iban": "[REDACTED:iban]",
        "ssn": "[REDACTED:drop:ssn]",
        "amount": 129,
    }
    assert call.result == {
        "api_key": "[REDACTED:secret_field]",
        "note": "aws [REDACTED:api_key]",
        "by": "[REDACTED:employee_id]",
    }
    spans = {span.span_id: span for span in trace.spans}
    assert spans[ROOT].attributes["user.id"] == hashed.of(USER_ID)
    llm = spans[LLM]
    assert llm.status.message == "401 for [REDACTED:bearer_token]"
    assert llm.llm is not None
    assert llm.llm.input_messages is not None
    assert [m.text for m in llm.llm.input_messages] == ["[REDACTED:private_key]"]
    assert "card declined, tell [REDACTED:email]" in [e.name for e in llm.events]
    bodies = [e.attributes["otel.log.body"] for e in llm.events if "otel.log.body" in e.attributes]
    assert bodies == [{"content": "I'm [REDACTED:email], token [REDACTED:api_key]"}]
    counts = trace.metadata[REDACTIONS_KEY]
    assert counts == {
        "api_key": {
            "log.attributes.otel.log.body": 1,
            "span.attributes.gen_ai.tool.call.result": 1,
        },
        "bearer_token": {"span.events.attributes.token.seen": 1, "span.status.message": 1},
        "card_number": {"span.attributes.input.value": 1},
        "email": {
            "log.attributes.otel.log.body": 1,
            "span.attributes.input.value": 1,
            "span.events.name": 1,
            "span.resource.service.owner": 3,  # on each of the trace's three spans
        },
        "employee_id": {"span.attributes.gen_ai.tool.call.result": 1},
        "hash:customer_id": {"span.attributes.gen_ai.tool.call.arguments": 1},
        "hash:user.id": {"span.attributes.user.id": 1},
        "iban": {"span.attributes.gen_ai.tool.call.arguments": 1},
        "phone": {"span.attributes.input.value": 1},
        "private_key": {"span.attributes.gen_ai.input.messages": 1},
        "secret_field": {
            "span.attributes.gen_ai.tool.call.result": 1,
            "span.attributes.http.request.header.authorization": 1,
        },
        "drop:ssn": {"span.attributes.gen_ai.tool.call.arguments": 1},
        "url_password": {"span.attributes.db.connection_string": 1},
    }
    held = held_trace(store, PENDING)
    assert {span.span_id for span in held.spans} == {ROOT, TOOL, LLM}
    [kept] = held.conflicts
    arguments = orjson.loads(kept.span.attributes["gen_ai.tool.call.arguments"])
    assert arguments == {**call.arguments, "amount": 130}
    [log] = held.logs
    assert log.event.attributes["otel.log.body"] == {
        "content": "I'm [REDACTED:email], token [REDACTED:api_key]"
    }
    orphan = held_trace(store, ORPHAN)
    assert orphan.trace.quarantined
    assert orphan.spans[0].attributes["note"] == "[REDACTED:email] [REDACTED:api_key]"


@pytest.mark.parametrize("transport", ["http", "grpc"])
def test_planted_secrets_never_reach_the_database_file(tmp_path: Path, transport: str) -> None:
    path = tmp_path / "trailcheck.db"
    clock = Clock()
    with Store.open(f"sqlite:///{path}") as store:
        app = _app(store, clock, _redactor())
        intake: Intake = app.state.intake
        with _http(app) if transport == "http" else _grpc(intake) as export:
            _export_everything(export, intake, clock)
        while_open = _file_bytes(path)
        _assert_stored_redacted(store)
    closed = _file_bytes(path)
    for on_disk in (while_open, closed):
        assert CONTROL.encode() in on_disk  # the content is in the bytes searched
        found = [value for value in PLANTED if value.encode() in on_disk]
        assert found == []


def test_without_redact_the_same_exports_do_reach_the_file(tmp_path: Path) -> None:
    """The control: the planted values are found in the file when nothing redacts them, so
    the test above would see a secret that got through."""
    path = tmp_path / "trailcheck.db"
    clock = Clock()
    with Store.open(f"sqlite:///{path}") as store:
        app = _app(store, clock, None)
        intake: Intake = app.state.intake
        with _http(app) as export:
            _export_everything(export, intake, clock)
        assert REDACTIONS_KEY not in store.get_trace(COMPLETE).metadata
    on_disk = _file_bytes(path)
    # All but the card's compact form, which was only ever sent with spaces.
    assert [value for value in PLANTED if value.encode() not in on_disk] == [CARD.replace(" ", "")]


def test_an_export_sent_again_is_a_retry_once_redacted(tmp_path: Path) -> None:
    """Redaction is deterministic (the keyed hash too): an exporter's retry of spans and log
    records, before and after their trace was stored, adds nothing and conflicts with nothing."""
    clock = Clock()
    with Store.open(f"sqlite:///{tmp_path / 'r.db'}") as store:
        app = _app(store, clock, _redactor())
        intake: Intake = app.state.intake
        body = _traces_body(_root(COMPLETE, ended=True), _tool(COMPLETE), _llm(COMPLETE))
        with _http(app) as export:
            for _ in range(2):
                export.traces(body)
                export.logs(_logs_body(COMPLETE))
            assert intake.sweep().stored == [COMPLETE]
            export.traces(body)
            export.logs(_logs_body(COMPLETE))
        counts = intake.counts
        assert counts.get("spans", "retried") == 6
        assert counts.get("spans", "conflicting") == counts.get("spans", "late") == 0
        assert counts.get("log_records", "late") == 0
        assert store.pending_traces() == []


def _serve(arguments: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[FastAPI]]:
    """``trailcheck serve`` with these arguments, its server recorded instead of run."""
    served: list[FastAPI] = []

    def record(app: FastAPI, *, grpc: GrpcReceiver | None, **_: Any) -> None:
        served.append(app)
        if grpc is not None:
            grpc.stop(0)

    monkeypatch.setattr(serve_impl, "serve_forever", record)
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    cli = typer.Typer()
    cli.command("serve")(serve_command)
    cli.command("other")(lambda: None)  # two commands, so "serve" is a subcommand
    return CliRunner().invoke(cli, ["serve", "--grpc-port", "0", *arguments]), served


def test_serve_redact_builtin_gives_the_intake_the_built_in_redactor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, [app] = _serve(
        ["--db", f"sqlite:///{tmp_path / 's.db'}", "--redact", "builtin"], monkeypatch
    )
    assert result.exit_code == 0, result.output
    assert app.state.intake.redactor is builtin_redactor()
    assert "redacting before anything is stored: private_key, url_password," in result.output


def test_serve_with_a_bad_rules_file_opens_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = tmp_path / "redact.yaml"
    rules.write_text("hash_key_env: TEST_REDACT_KEY\nfields: [{field: user.id, action: hash}]\n")
    monkeypatch.delenv("TEST_REDACT_KEY", raising=False)
    db = tmp_path / "never.db"
    result, served = _serve(["--db", f"sqlite:///{db}", "--redact", str(rules)], monkeypatch)
    assert isinstance(result.exception, RedactionRulesError)
    assert "the environment variable TEST_REDACT_KEY is not set" in str(result.exception)
    assert served == []
    assert not db.exists()
