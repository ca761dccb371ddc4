"""``trailcheck serve``: the OTLP/HTTP ingest endpoint over a store, until interrupted.

The address is checked before anything is opened: listening beyond loopback without a token is
a usage error (exit 2), so an unsafe command line never opens the store or a socket.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from trailcheck.serve import (
    DEFAULT_IDLE_TIMEOUT_S,
    DEFAULT_MAX_BODY_BYTES,
    TOKEN_ENV,
    check_bind,
    create_app,
    serve_forever,
)
from trailcheck.store import Store

stderr = Console(stderr=True, highlight=False, soft_wrap=True)


def _endpoint(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/v1/traces"


def serve_command(
    db: Annotated[
        str | None,
        typer.Option("--db", help="Store URL (default $TRAILCHECK_DB, else .trailcheck/)."),
    ] = None,
    host: Annotated[
        str, typer.Option(help="Address to listen on; beyond loopback needs --token.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (OTLP/HTTP: 4318).")] = 4318,
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
        typer.Option(min=0, help="Seconds without a new span after which a trace is complete."),
    ] = DEFAULT_IDLE_TIMEOUT_S,
    max_body_bytes: Annotated[
        int, typer.Option(min=1, help="Largest request body, before and after gunzip.")
    ] = DEFAULT_MAX_BODY_BYTES,
) -> None:
    """Receive OpenTelemetry spans on POST /v1/traces and store them as traces."""
    check_bind(host, token)
    with Store.open(db) as store:
        app = create_app(
            store, token=token, max_body_bytes=max_body_bytes, idle_timeout_s=idle_timeout
        )
        auth = "bearer token required" if token is not None else "no token (loopback only)"
        stderr.print(f"serving {_endpoint(host, port)} into {store.url}; {auth}", markup=False)
        serve_forever(app, host=host, port=port, token=token)
