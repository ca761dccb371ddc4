"""What ``trailcheck serve`` does (its options: :mod:`trailcheck.commands.serve`); importing
it needs the ``serve`` extra."""

from __future__ import annotations

from trailcheck.commands.output import stderr
from trailcheck.commands.store_commands_impl import open_store
from trailcheck.serve import (
    GrpcReceiver,
    Intake,
    check_bind,
    create_app,
    grpc_receiver,
    logs_service,
    serve_forever,
    trace_service,
)


def _endpoints(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/v1/traces, /v1/logs"


def serve_command(
    *,
    db: str | None,
    host: str,
    port: int,
    grpc_port: int,
    grpc: bool,
    token: str | None,
    idle_timeout: float,
    settle: float,
    max_body_bytes: int,
) -> None:
    """The body of :func:`trailcheck.commands.serve.serve_command`."""
    check_bind(host, token)
    with open_store(db) as store:
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
