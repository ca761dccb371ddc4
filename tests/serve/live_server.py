"""The ingest app under uvicorn on 127.0.0.1, on a port the OS picks, in a thread: requests go
over loopback as an exporter's would."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import FastAPI

from trailcheck.serve import ingest_server

DEADLINE_S = 20.0


@contextmanager
def live_server(app: FastAPI, token: str | None = None) -> Iterator[str]:
    """Run ``app`` until the block ends; yields its base URL, ``http://127.0.0.1:PORT``."""
    server = ingest_server(app, host="127.0.0.1", port=0, token=token)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + DEADLINE_S
    while not server.started:
        assert thread.is_alive(), "the server stopped while starting"
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(DEADLINE_S)
    assert not thread.is_alive()
