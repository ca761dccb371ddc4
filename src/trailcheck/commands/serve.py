"""``trailcheck serve``: the OTLP ingest endpoints over a store, until interrupted: OTLP/HTTP
(``POST /v1/traces``, ``POST /v1/logs``) and, beside it in the same process, OTLP/gRPC
(``TraceService/Export``, ``LogsService/Export``).

The address is checked before anything is opened: listening beyond loopback without a token is
a usage error (exit 2), so an unsafe command line never opens the store or a socket. Both
servers share the host, the token, the body limit and the one Intake, and stop together.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from trailcheck.serve import (
    DEFAULT_IDLE_TIMEOUT_S,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_SETTLE_S,
    TOKEN_ENV,
    GrpcReceiver,
    Intake,
    check_bind,
    create_app,
    grpc_receiver,
    logs_service,
    serve_forever,
    trace_service,
)
from trailcheck.store import Store

stderr = Console(stderr=True, highlight=False, soft_wrap=True)


def _endpoints(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/v1/traces, /v1/logs"


def serve_command(
    db: Annotated[
        str | None,
        typer.Option("--db", help="Store URL (default $TRAILCHECK_DB, else .trailcheck/)."),
    ] = None,
    host: Annotated[
        str, typer.Option(help="Address to listen on; beyond loopback needs --token.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (OTLP/HTTP: 4318).")] = 4318,
    grpc_port: Annotated[
        int, typer.Option(min=0, max=65535, help="OTLP/gRPC port, on the same host.")
    ] = 4317,
    grpc: Annotated[
        bool, typer.Option("--grpc/--no-grpc", help="Receive OTLP/gRPC beside OTLP/HTTP.")
    ] = True,
    token: Annotated[
        str | None,
        typer.Option(
            envvar=TOKEN_ENV,
            show_envvar=True,
            show_default=False,
            help="Bearer token every request must carry.",
        ),
    ] = None,
    idle_timeout: Annotated[
        float,
        typer.Option(
            min=0, help="Seconds without a new span or log record after which a trace is complete."
        ),
    ] = DEFAULT_IDLE_TIMEOUT_S,
    settle: Annotated[
        float,
        typer.Option(
            min=0,
            help="Seconds a trace whose root span ended waits for more of it (log records).",
        ),
    ] = DEFAULT_SETTLE_S,
    max_body_bytes: Annotated[
        int,
        typer.Option(min=1, help="Largest request body (gRPC: message), before and after gunzip."),
    ] = DEFAULT_MAX_BODY_BYTES,
) -> None:
    """Receive OpenTelemetry spans and GenAI log records (OTLP/HTTP POST /v1/traces and
    /v1/logs, OTLP/gRPC) as stored traces."""
    check_bind(host, token)
    with Store.open(db) as store:
        app = create_app(
            store,
            token=token,
            max_body_bytes=max_body_bytes,
            idle_timeout_s=idle_timeout,
            settle_s=settle,
        )
        receiver: GrpcReceiver | None = None
        if grpc:
            intake: Intake = app.state.intake
            receiver = grpc_receiver(
                [trace_service(intake), logs_service(intake)],
                host=host,
                port=grpc_port,
                token=token,
                max_message_bytes=max_body_bytes,
            )
        auth = "bearer token required" if token is not None else "no token (loopback only)"
        grpc_shown = f" and OTLP/gRPC {receiver.address}" if receiver is not None else ""
        stderr.print(
            f"serving {_endpoints(host, port)}{grpc_shown} into {store.url}; {auth}", markup=False
        )
        serve_forever(app, host=host, port=port, token=token, grpc=receiver)
