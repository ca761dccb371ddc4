"""``trailcheck serve``: the OTLP ingest endpoints over a store, until interrupted: OTLP/HTTP
(``POST /v1/traces``, ``POST /v1/logs``) and, beside it in the same process, OTLP/gRPC
(``TraceService/Export``, ``LogsService/Export``).

The address is checked before anything is opened: listening beyond loopback without a token is
a usage error (exit 2), so an unsafe command line never opens the store or a socket. Both
servers share the host, the token, the body limit, the one Intake and the one admission (how
many uploads, and how many of their bytes, are in flight at once; how long a body may take), and
stop together.

The options; what the command does is in :mod:`trailcheck.commands.serve_impl`, imported when it
runs, with the ``serve`` extra (FastAPI, uvicorn, grpcio): without it, one line says so.
"""

from typing import Annotated, Final

import typer

from trailcheck.extras import needs_extra

__all__ = ["serve_command"]

# The defaults of trailcheck.serve, spelled out so that --help needs none of its packages.
TOKEN_ENV: Final = "TRAILCHECK_SERVE_TOKEN"
DEFAULT_IDLE_TIMEOUT_S: Final = 300.0
DEFAULT_SETTLE_S: Final = 2.0
DEFAULT_MAX_BODY_BYTES: Final = 16 * 1024 * 1024
DEFAULT_MAX_UPLOADS: Final = 32
DEFAULT_MAX_INFLIGHT_BYTES: Final = 128 * 1024 * 1024
DEFAULT_BODY_TIMEOUT_S: Final = 30.0
DEFAULT_BODY_READ_TIMEOUT_S: Final = 10.0
DEFAULT_BODY_MIN_RATE: Final = 16 * 1024


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
    max_uploads: Annotated[
        int,
        typer.Option(min=1, help="Request bodies (gRPC: calls) taken at once; more get 503."),
    ] = DEFAULT_MAX_UPLOADS,
    max_inflight_bytes: Annotated[
        int,
        typer.Option(min=1, help="Bytes the uploads in flight may hold together; more get 503."),
    ] = DEFAULT_MAX_INFLIGHT_BYTES,
    body_timeout: Annotated[
        float,
        typer.Option(help="Seconds a whole body (gRPC: message) may take (more than 0)."),
    ] = DEFAULT_BODY_TIMEOUT_S,
    body_read_timeout: Annotated[
        float,
        typer.Option(help="Seconds a body may go without a byte (more than 0)."),
    ] = DEFAULT_BODY_READ_TIMEOUT_S,
    body_min_rate: Annotated[
        int,
        typer.Option(
            min=0, help="Bytes/s a body must average after its first --body-read-timeout (0: any)."
        ),
    ] = DEFAULT_BODY_MIN_RATE,
) -> None:
    """Receive OpenTelemetry spans and GenAI log records (OTLP/HTTP POST /v1/traces and
    /v1/logs, OTLP/gRPC) as stored traces."""
    with needs_extra("serve", "trailcheck serve"):
        from trailcheck.commands.serve_impl import serve_command as body

    body(
        db=db,
        host=host,
        port=port,
        grpc_port=grpc_port,
        grpc=grpc,
        token=token,
        idle_timeout=idle_timeout,
        settle=settle,
        max_body_bytes=max_body_bytes,
        max_uploads=max_uploads,
        max_inflight_bytes=max_inflight_bytes,
        body_timeout=body_timeout,
        body_read_timeout=body_read_timeout,
        body_min_rate=body_min_rate,
    )
