"""The ingest app under uvicorn on 127.0.0.1, on a port the OS picks, in a thread: requests go
over loopback as an exporter's would."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import FastAPI

from tests.waiting import GUARD_S, wait_until
from trailcheck.serve import ingest_server


@contextmanager
def live_server(app: FastAPI, token: str | None = None) -> Iterator[str]:
    """Run ``app`` until the block ends; yields its base URL, ``http://127.0.0.1:PORT``, once
    uvicorn says it started (the app's startup done, the socket listening)."""
    server = ingest_server(app, host="127.0.0.1", port=0, token=token)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()

    def started() -> bool:
        assert thread.is_alive(), "the server stopped while starting"
        return bool(server.started)

    wait_until(started, "the live server starting")
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(GUARD_S)  # a guard: uvicorn finishes its requests and its app's shutdown
    assert not thread.is_alive(), "the live server did not stop"
