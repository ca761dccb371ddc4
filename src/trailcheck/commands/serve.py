"""``trailcheck serve``: the OTLP ingest endpoints over a store, until interrupted: OTLP/HTTP
(``POST /v1/traces``, ``POST /v1/logs``) and, beside it in the same process, OTLP/gRPC
(``TraceService/Export``, ``LogsService/Export``).

The address is checked before anything is opened: listening beyond loopback without a token is
a usage error (exit 2), so an unsafe command line never opens the store or a socket. Both
servers share the host, the token, the body limit, the one Intake and the one admission (how
many uploads, and how many of their bytes, are in flight at once; how long a body may take), and
stop together.

The options, declared once in :class:`ServeRequest`; what the command does is in
:mod:`trailcheck.commands.serve_impl`, imported when it runs, with the ``serve`` extra (FastAPI,
uvicorn, grpcio): without it, one line says so. At length: ``docs/serve.md``.
"""

from pathlib import Path
from typing import Annotated, Final, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation
from trailcheck.commands.options import DbOption, RedactOption
from trailcheck.extras import needs_extra

__all__ = ["ServeRequest", "serve_command"]

# The defaults of trailcheck.serve, spelled out so that --help needs none of its packages.
TOKEN_ENV: Final = "TRAILCHECK_SERVE_TOKEN"
READ_TOKEN_ENV: Final = "TRAILCHECK_READ_TOKEN"
DEFAULT_IDLE_TIMEOUT_S: Final = 300.0
DEFAULT_SETTLE_S: Final = 2.0
DEFAULT_MAX_BODY_BYTES: Final = 16 * 1024 * 1024
DEFAULT_MAX_UPLOADS: Final = 32
DEFAULT_MAX_INFLIGHT_BYTES: Final = 128 * 1024 * 1024
DEFAULT_BODY_TIMEOUT_S: Final = 30.0
DEFAULT_BODY_READ_TIMEOUT_S: Final = 10.0
DEFAULT_BODY_MIN_RATE: Final = 16 * 1024


class ServeRequest(NamedTuple):
    """What ``trailcheck serve`` was asked."""

    db: DbOption = None
    redact: RedactOption = None
    host: Annotated[
        str,
        typer.Option(
            rich_help_panel="Listen",
            metavar="HOST",
            help="Address to listen on; beyond loopback needs `--token`.",
        ),
    ] = "127.0.0.1"
    port: Annotated[
        int,
        typer.Option(
            rich_help_panel="Listen",
            min=0,
            max=65535,
            metavar="PORT",
            help="Port (OTLP/HTTP: 4318).",
        ),
    ] = 4318
    grpc_port: Annotated[
        int,
        typer.Option(
            rich_help_panel="Listen",
            min=0,
            max=65535,
            metavar="PORT",
            help="OTLP/gRPC port, on the same host.",
        ),
    ] = 4317
    grpc: Annotated[
        bool,
        typer.Option(
            "--grpc/--no-grpc", rich_help_panel="Listen", help="Receive OTLP/gRPC beside OTLP/HTTP."
        ),
    ] = True
    token: Annotated[
        str | None,
        typer.Option(
            rich_help_panel="Listen",
            envvar=TOKEN_ENV,
            show_envvar=True,
            show_default=False,
            metavar="TOKEN",
            help="Bearer token every request must carry; this one (read-write) sends spans.",
        ),
    ] = None
    read_token: Annotated[
        str | None,
        typer.Option(
            rich_help_panel="Listen",
            envvar=READ_TOKEN_ENV,
            show_envvar=True,
            show_default=False,
            metavar="TOKEN",
            help="A read-only token, beside `--token`: it reads `/metrics`, sends nothing.",
        ),
    ] = None
    idle_timeout: Annotated[
        float,
        typer.Option(
            rich_help_panel="Traces",
            min=0,
            metavar="SECONDS",
            help="Seconds without a new span or log record after which a trace is complete.",
        ),
    ] = DEFAULT_IDLE_TIMEOUT_S
    settle: Annotated[
        float,
        typer.Option(
            rich_help_panel="Traces",
            min=0,
            metavar="SECONDS",
            help="Seconds a trace whose root span ended waits for more of it (log records).",
        ),
    ] = DEFAULT_SETTLE_S
    max_body_bytes: Annotated[
        int,
        typer.Option(
            rich_help_panel="Uploads",
            min=1,
            metavar="BYTES",
            help="Largest request body (gRPC: message), before and after gunzip.",
        ),
    ] = DEFAULT_MAX_BODY_BYTES
    max_uploads: Annotated[
        int,
        typer.Option(
            rich_help_panel="Uploads",
            min=1,
            metavar="N",
            help="Request bodies (gRPC: calls) taken at once; more get 503.",
        ),
    ] = DEFAULT_MAX_UPLOADS
    max_inflight_bytes: Annotated[
        int,
        typer.Option(
            rich_help_panel="Uploads",
            min=1,
            metavar="BYTES",
            help="Bytes the uploads in flight may hold together; more get 503.",
        ),
    ] = DEFAULT_MAX_INFLIGHT_BYTES
    max_client_uploads: Annotated[
        int | None,
        typer.Option(
            rich_help_panel="Uploads",
            min=1,
            metavar="N",
            show_default=False,
            help="Uploads one client address may have in flight (default: a quarter of"
            " `--max-uploads`).",
        ),
    ] = None
    max_client_bytes: Annotated[
        int | None,
        typer.Option(
            rich_help_panel="Uploads",
            min=1,
            metavar="BYTES",
            show_default=False,
            help="Bytes one client's bodies over 1 MiB may hold together past its first"
            " (default: half of `--max-inflight-bytes`).",
        ),
    ] = None
    body_timeout: Annotated[
        float,
        typer.Option(
            rich_help_panel="Uploads",
            metavar="SECONDS",
            help="Seconds a whole body (gRPC: message) may take (more than 0).",
        ),
    ] = DEFAULT_BODY_TIMEOUT_S
    body_read_timeout: Annotated[
        float,
        typer.Option(
            rich_help_panel="Uploads",
            metavar="SECONDS",
            help="Seconds a body may go without a byte (more than 0).",
        ),
    ] = DEFAULT_BODY_READ_TIMEOUT_S
    body_min_rate: Annotated[
        int,
        typer.Option(
            rich_help_panel="Uploads",
            min=0,
            metavar="BYTES/S",
            help="Bytes per second a body must average after its first `--body-read-timeout`"
            " (0: any).",
        ),
    ] = DEFAULT_BODY_MIN_RATE
    retention: Annotated[
        str | None,
        typer.Option(
            rich_help_panel="Traces",
            metavar="AGE",
            show_default=False,
            help="Prune the stored traces older than this (`30d`) hourly, keeping what a case,"
            " run or person holds (`trailcheck store prune`).",
        ),
    ] = None
    online: Annotated[
        Path | None,
        typer.Option(
            rich_help_panel="Online",
            metavar="FILE",
            help="Score the stored traces by this online file's evaluators as they arrive"
            " (a worker beside the receiver; docs/online.md).",
        ),
    ] = None
    judge_model: Annotated[
        str | None,
        typer.Option(
            rich_help_panel="Online",
            metavar="NAME",
            help="The online judges' model (OpenAI API), unless a judge names its own.",
        ),
    ] = None
    judge_base_url: Annotated[
        str | None,
        typer.Option(
            rich_help_panel="Online", metavar="URL", help="The judges' OpenAI-compatible endpoint."
        ),
    ] = None
    api_key_env: Annotated[
        str,
        typer.Option(
            rich_help_panel="Online",
            metavar="VAR",
            help="The environment variable holding the judges' API key.",
        ),
    ] = "OPENAI_API_KEY"


@command(ServeRequest)
def serve_command(request: ServeRequest) -> None:
    """Receive OpenTelemetry spans and GenAI log records (OTLP/HTTP `POST /v1/traces` and
    `/v1/logs`, OTLP/gRPC) as stored traces."""
    with needs_extra("serve", "trailcheck serve"):
        body = implementation("trailcheck.commands.serve_impl:serve_command", ServeRequest)
    body(request)
