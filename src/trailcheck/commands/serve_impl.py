"""What ``trailcheck serve`` does (its options: :mod:`trailcheck.commands.serve`); importing
it needs the ``serve`` extra."""

from __future__ import annotations

import math

from trailcheck.commands.output import stderr
from trailcheck.commands.store_commands_impl import open_store
from trailcheck.errors import UsageError
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
from trailcheck.serve.admission import Admission, UploadLimits


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
    max_uploads: int,
    max_inflight_bytes: int,
    body_timeout: float,
    body_read_timeout: float,
    body_min_rate: int,
) -> None:
    """The body of :func:`trailcheck.commands.serve.serve_command`."""
    check_bind(host, token)
    for option, seconds in (
        ("--body-timeout", body_timeout),
        ("--body-read-timeout", body_read_timeout),
    ):
        if not 0 < seconds < math.inf:
            raise UsageError(f"{option} must be a number of seconds more than 0, got {seconds:g}")
    if max_body_bytes > max_inflight_bytes:
        raise UsageError(
            f"--max-body-bytes {max_body_bytes} is over --max-inflight-bytes"
            f" {max_inflight_bytes}: a body that large could never be taken; lower the one or"
            " raise the other"
        )
    limits = UploadLimits(
        max_uploads=max_uploads,
        max_inflight_bytes=max_inflight_bytes,
        body_timeout_s=body_timeout,
        read_timeout_s=body_read_timeout,
        min_rate=body_min_rate,
    )
    admission = Admission(limits)
    with open_store(db) as store:
        app = create_app(
            store,
            token=token,
            max_body_bytes=max_body_bytes,
            idle_timeout_s=idle_timeout,
            settle_s=settle,
            admission=admission,
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
                admission=admission,
            )
        auth = "bearer token required" if token is not None else "no token (loopback only)"
        grpc_shown = f" and OTLP/gRPC {receiver.address}" if receiver is not None else ""
        stderr.print(
            f"serving {_endpoints(host, port)}{grpc_shown} into {store.url}; {auth}", markup=False
        )
        serve_forever(app, host=host, port=port, token=token, grpc=receiver)
