"""Running the ingest app under uvicorn, after refusing an unsafe address, with the OTLP/gRPC
receiver beside it in the same process.

:func:`check_bind` runs before the server is built, so ``--host 0.0.0.0`` without a token fails
with a clear message and no socket is ever opened. Tests and embedders build the
:class:`uvicorn.Server` with :func:`ingest_server` and run it themselves (in a thread, on a
free port).

The gRPC receiver starts before uvicorn and is stopped when uvicorn returns, whether it was
interrupted (Ctrl-C, SIGTERM), failed to start (its port taken) or raised: the two stop together.
"""

from __future__ import annotations

import uvicorn
from fastapi import FastAPI

from trailcheck.serve.grpc_receiver import GrpcReceiver
from trailcheck.serve.security import check_bind

__all__ = ["ingest_server", "serve_forever"]


def ingest_server(
    app: FastAPI, *, host: str, port: int, token: str | None, read_token: str | None = None
) -> uvicorn.Server:
    """A uvicorn server for ``app`` on ``host:port``; UsageError for a non-loopback ``host``
    without a token. ``token`` and ``read_token`` are those the app checks, passed again to
    decide the bind."""
    check_bind(host, token, read_token=read_token)
    config = uvicorn.Config(app, host=host, port=port, log_level="info", lifespan="on")
    return uvicorn.Server(config)


def serve_forever(
    app: FastAPI, *, host: str, port: int, token: str | None, grpc: GrpcReceiver | None = None
) -> None:
    """Serve until interrupted (Ctrl-C), finishing the requests in flight; with ``grpc``, the
    gRPC receiver too, started first and stopped last."""
    server = ingest_server(app, host=host, port=port, token=token)
    if grpc is None:
        server.run()
        return
    grpc.start()
    try:
        server.run()
    finally:
        grpc.stop()
