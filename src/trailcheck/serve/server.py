"""Running the ingest app under uvicorn, after refusing an unsafe address.

:func:`check_bind` runs before the server is built, so ``--host 0.0.0.0`` without a token fails
with a clear message and no socket is ever opened. Tests and embedders build the
:class:`uvicorn.Server` with :func:`ingest_server` and run it themselves (in a thread, on a
free port).
"""

from __future__ import annotations

import uvicorn
from fastapi import FastAPI

from trailcheck.serve.security import check_bind

__all__ = ["ingest_server", "serve_forever"]


def ingest_server(app: FastAPI, *, host: str, port: int, token: str | None) -> uvicorn.Server:
    """A uvicorn server for ``app`` on ``host:port``; UsageError for a non-loopback ``host``
    without a token. ``token`` is the one the app checks, passed again to decide the bind."""
    check_bind(host, token)
    config = uvicorn.Config(app, host=host, port=port, log_level="info", lifespan="on")
    return uvicorn.Server(config)


def serve_forever(app: FastAPI, *, host: str, port: int, token: str | None) -> None:
    """Serve until interrupted (Ctrl-C), finishing the requests in flight."""
    ingest_server(app, host=host, port=port, token=token).run()
