"""``trailcheck serve``: options into the app, the gRPC receiver and the server, and the refusal
to listen beyond loopback without a token before anything is opened."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import grpc as grpc_module
import pytest
import typer
from fastapi import FastAPI
from fastapi.testclient import TestClient
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from typer.testing import CliRunner

from tests.online.test_worker import scores, traffic
from tests.serve.conftest import RECEIVER_URL
from tests.serve.otlp_bodies import TOOL, TRACE_A, protobuf_body, tool_span
from tests.waiting import GUARD_S, wait_until
from trailcheck.commands import serve_impl as serve_module
from trailcheck.commands.serve import serve_command
from trailcheck.errors import UsageError
from trailcheck.serve import READ_TOKEN_ENV, TOKEN_ENV, GrpcReceiver


def _cli() -> typer.Typer:
    app = typer.Typer()
    app.command("serve")(serve_command)
    app.command("other")(lambda: None)  # two commands, so "serve" is a subcommand as in cli.py
    return app


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []

    def record(
        app: FastAPI, *, host: str, port: int, token: str | None, grpc: GrpcReceiver | None
    ) -> None:
        calls.append({"app": app, "host": host, "port": port, "token": token, "grpc": grpc})
        if isinstance(grpc, GrpcReceiver):
            grpc.stop(0)  # bound, never started: free the port

    monkeypatch.setattr(serve_module, "serve_forever", record)
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    monkeypatch.delenv(READ_TOKEN_ENV, raising=False)
    return calls


@pytest.fixture
def receivers(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The gRPC receivers the command asks for, recorded instead of bound."""
    calls: list[dict[str, Any]] = []

    def record(services: list[Any], **options: Any) -> SimpleNamespace:
        calls.append({"services": services, **options})
        return SimpleNamespace(address=f"{options['host']}:{options['port']}")

    monkeypatch.setattr(serve_module, "grpc_receiver", record)
    return calls


def test_serve_on_loopback_opens_the_store_and_runs_both_servers(
    served: list[dict[str, Any]], tmp_path: Path
) -> None:
    db = tmp_path / "serve.db"
    result = CliRunner().invoke(
        _cli(),
        [
            *("serve", "--db", f"sqlite:///{db}", "--port", "4319"),
            *("--grpc-port", "0", "--idle-timeout", "5", "--settle", "0.5"),
        ],
    )
    assert result.exit_code == 0, result.output
    [call] = served
    assert (call["host"], call["port"], call["token"]) == ("127.0.0.1", 4319, None)
    assert call["app"].state.intake.idle_timeout_ns == 5_000_000_000
    assert call["app"].state.intake.settle_ns == 500_000_000
    assert db.exists()
    receiver = call["grpc"]
    assert receiver.port > 0  # 0 asked the OS for a free port, and the line shows the one bound
    assert (
        f"http://127.0.0.1:4319/v1/traces, /v1/logs and OTLP/gRPC 127.0.0.1:{receiver.port}"
        in result.output
    )


def test_spans_sent_to_the_commands_grpc_receiver_land_in_the_apps_store(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pending: list[bytes] = []

    def serve_briefly(
        app: FastAPI, *, host: str, port: int, token: str | None, grpc: GrpcReceiver | None
    ) -> None:
        assert grpc is not None
        grpc.start()
        try:
            with grpc_module.insecure_channel(grpc.address) as channel:
                request = ExportTraceServiceRequest.FromString(protobuf_body(tool_span()))
                TraceServiceStub(channel).Export(request, timeout=GUARD_S)
            pending.extend(app.state.intake.store.pending_payloads(TRACE_A))
        finally:
            grpc.stop()

    monkeypatch.setattr(serve_module, "serve_forever", serve_briefly)
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    db = f"sqlite:///{tmp_path / 'grpc.db'}"
    result = CliRunner().invoke(_cli(), ["serve", "--db", db, "--grpc-port", "0"])
    assert result.exit_code == 0, result.output
    assert len(pending) == 1
    assert TOOL.encode() in pending[0].span


def test_grpc_defaults_to_4317_with_the_https_host_token_and_limit(
    served: list[dict[str, Any]], receivers: list[dict[str, Any]], tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'd.db'}"
    result = CliRunner().invoke(
        _cli(), ["serve", "--db", db, "--token", "t0k", "--max-body-bytes", "1000"]
    )
    assert result.exit_code == 0, result.output
    [call] = receivers
    assert (call["host"], call["port"], call["token"]) == ("127.0.0.1", 4317, "t0k")
    assert call["max_message_bytes"] == 1000
    assert served[0]["app"].state.intake.settle_ns == 2_000_000_000  # the default --settle
    assert [service.name for service in call["services"]] == [
        "opentelemetry.proto.collector.trace.v1.TraceService",
        "opentelemetry.proto.collector.logs.v1.LogsService",
    ]
    assert "OTLP/gRPC 127.0.0.1:4317" in result.output


def test_no_grpc_runs_only_the_http_endpoint(
    served: list[dict[str, Any]], receivers: list[dict[str, Any]], tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        _cli(), ["serve", "--db", f"sqlite:///{tmp_path / 'n.db'}", "--no-grpc"]
    )
    assert result.exit_code == 0, result.output
    assert receivers == []
    assert served[0]["grpc"] is None
    assert "gRPC" not in result.output


def test_the_token_comes_from_the_environment(
    served: list[dict[str, Any]],
    receivers: list[dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(TOKEN_ENV, "from-env")
    result = CliRunner().invoke(
        _cli(), ["serve", "--db", f"sqlite:///{tmp_path / 'a.db'}", "--host", "0.0.0.0"]
    )
    assert result.exit_code == 0, result.output
    assert served[0]["token"] == "from-env"
    assert served[0]["host"] == "0.0.0.0"
    assert (receivers[0]["token"], receivers[0]["host"]) == ("from-env", "0.0.0.0")
    assert "from-env" not in result.output


def test_listening_beyond_loopback_without_a_token_is_refused_before_opening_anything(
    served: list[dict[str, Any]], tmp_path: Path
) -> None:
    db = tmp_path / "never.db"
    result = CliRunner().invoke(_cli(), ["serve", "--db", f"sqlite:///{db}", "--host", "0.0.0.0"])
    assert isinstance(result.exception, UsageError)
    assert result.exception.exit_code == 2
    assert "refusing to listen on '0.0.0.0' without a token" in str(result.exception)
    assert served == []
    assert not db.exists()


def test_the_read_only_token_reaches_the_app_and_the_grpc_receiver(
    served: list[dict[str, Any]],
    receivers: list[dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(READ_TOKEN_ENV, "l00k-from-env")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    result = CliRunner().invoke(_cli(), ["serve", "--db", db, "--token", "t0k"])
    assert result.exit_code == 0, result.output
    assert receivers[0]["read_token"] == "l00k-from-env"
    with TestClient(served[0]["app"], base_url=RECEIVER_URL) as client:
        metrics = client.get("/metrics", headers={"Authorization": "Bearer l00k-from-env"})
    assert metrics.status_code == 200
    assert "the read-only token reads /metrics only" in result.output
    assert "l00k-from-env" not in result.output


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--read-token", "l00k"], "a read-only token without a read-write one"),
        (["--token", "same", "--read-token", "same"], "the read-only token is the read-write"),
        (["--token", "t0k", "--read-token", ""], "token is empty"),
    ],
)
def test_a_bad_pair_of_tokens_is_refused_before_opening_anything(
    served: list[dict[str, Any]], tmp_path: Path, options: list[str], message: str
) -> None:
    db = tmp_path / "never.db"
    result = CliRunner().invoke(_cli(), ["serve", "--db", f"sqlite:///{db}", *options])
    assert isinstance(result.exception, UsageError)
    assert result.exception.exit_code == 2
    assert message in str(result.exception)
    assert served == []
    assert not db.exists()


def test_a_taken_grpc_port_is_a_usage_error_and_nothing_is_served(
    served: list[dict[str, Any]], tmp_path: Path
) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        result = CliRunner().invoke(
            _cli(), ["serve", "--db", f"sqlite:///{tmp_path / 't.db'}", "--grpc-port", str(taken)]
        )
    assert isinstance(result.exception, UsageError)
    assert f"cannot listen for OTLP/gRPC on 127.0.0.1:{taken}" in str(result.exception)
    assert served == []


def test_a_bad_option_is_a_usage_error(served: list[dict[str, Any]]) -> None:
    result = CliRunner().invoke(_cli(), ["serve", "--max-body-bytes", "0"])
    assert result.exit_code == 2
    assert served == []


def test_a_body_limit_over_the_bytes_in_flight_is_a_usage_error_naming_both_options(
    served: list[dict[str, Any]], tmp_path: Path
) -> None:
    db = tmp_path / "never.db"
    result = CliRunner().invoke(
        _cli(),
        [
            *("serve", "--db", f"sqlite:///{db}"),
            *("--max-body-bytes", "2000", "--max-inflight-bytes", "1999"),
        ],
    )
    assert isinstance(result.exception, UsageError)
    assert result.exception.exit_code == 2
    message = str(result.exception)
    assert "--max-body-bytes 2000 is over --max-inflight-bytes 1999" in message
    assert served == []
    assert not db.exists()


@pytest.mark.parametrize("option", ["--body-timeout", "--body-read-timeout"])
@pytest.mark.parametrize("seconds", ["0", "-1", "inf", "nan"])
def test_a_body_timeout_that_is_not_a_positive_number_is_a_usage_error(
    served: list[dict[str, Any]], tmp_path: Path, option: str, seconds: str
) -> None:
    db = tmp_path / "never.db"
    result = CliRunner().invoke(_cli(), ["serve", "--db", f"sqlite:///{db}", option, seconds])
    assert isinstance(result.exception, UsageError), result.output
    assert f"{option} must be a number of seconds more than 0" in str(result.exception)
    assert served == []
    assert not db.exists()


def test_the_upload_options_reach_the_admission_the_app_and_grpc_share(
    served: list[dict[str, Any]], receivers: list[dict[str, Any]], tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        _cli(),
        [
            *("serve", "--db", f"sqlite:///{tmp_path / 'u.db'}", "--max-body-bytes", "1000"),
            *("--max-uploads", "3", "--max-inflight-bytes", "5000", "--body-timeout", "7.5"),
            *("--body-read-timeout", "0.2", "--body-min-rate", "0"),
        ],
    )
    assert result.exit_code == 0, result.output
    admission = served[0]["app"].state.admission
    assert receivers[0]["admission"] is admission
    limits = admission.limits
    assert (limits.max_uploads, limits.max_inflight_bytes) == (3, 5000)
    assert (limits.body_timeout_s, limits.read_timeout_s, limits.min_rate) == (7.5, 0.2, 0)


def test_with_online_a_worker_scores_what_the_receiver_stores_and_stops_with_the_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    online = tmp_path / "online.yaml"
    online.write_text(
        "evaluators:\n  - name: refund-policy\n    rule: refund_without_identity_check\n"
    )
    scored: list[dict[str, bool]] = []

    def serve_while_traffic_arrives(
        app: FastAPI, *, host: str, port: int, token: str | None, grpc: GrpcReceiver | None
    ) -> None:
        if isinstance(grpc, GrpcReceiver):
            grpc.stop(0)
        store = app.state.intake.store
        store.ingest(traffic(3))
        wait_until(lambda: len(scores(store, "refund-policy")) == 3, "the online scores")
        scored.append(scores(store, "refund-policy"))

    monkeypatch.setattr(serve_module, "serve_forever", serve_while_traffic_arrives)
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    db = f"sqlite:///{tmp_path / 'online.db'}"
    result = CliRunner().invoke(_cli(), ["serve", "--db", db, "--online", str(online)])

    assert result.exit_code == 0, result.output
    assert "scoring online: refund-policy@" in result.output
    [seen] = scored
    assert sorted(seen.values()) == [False, True, True]  # trace 0 refunds unverified
    assert not any(t.name == "online-worker" for t in threading.enumerate())
