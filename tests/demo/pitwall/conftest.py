"""A loopback Ergast archive: :class:`ArchivePages` behind a real ``http.server`` on 127.0.0.1.

The ``archive`` fixture starts a ``ThreadingHTTPServer`` on port 0 in a daemon thread, serving
``/ergast/f1/<path>?limit=..&offset=..`` from :class:`ArchivePages` over the Interlagos fixture,
and shuts it down after the test. A test reconfigures it through the :class:`LoopbackArchive` it
gets: ``archive.serve(max_limit=30)`` for a smaller page cap, ``archive.fail(path, Failure(...))``
to make one path answer a status, no answer at all (held until the client hangs up), a raw body,
or a JSON body changed by a function.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.waiting import GUARD_S
from trailcheck.demo.pitwall.archive_pages import ArchivePages
from trailcheck.demo.pitwall.fixture import fixture_source
from trailcheck.demo.pitwall.memory_source import InMemorySource

PREFIX = "/ergast/f1"

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Failure:
    """How one path misbehaves: an HTTP ``status`` instead of the page, ``held``: no answer
    until the client hangs up (so a client timeout under test fires first, however slow the
    machine, with no delay racing it), a ``raw`` body instead of the JSON, or ``patch`` applied
    to the JSON body."""

    status: int | None = None
    held: bool = False
    raw: bytes | None = None
    patch: Callable[[Json], None] | None = None


@dataclass
class LoopbackArchive:
    """What a test sees of the server: its base URL, its pages, the failures and every hit."""

    base_url: str
    pages: ArchivePages
    failures: dict[str, Failure] = field(default_factory=dict)
    hits: list[tuple[str, int, int]] = field(default_factory=list)
    """(path, limit, offset) of every request the server answered."""

    def serve(
        self, *, source: InMemorySource | None = None, max_limit: int = 100, note: str | None = None
    ) -> None:
        self.pages = ArchivePages(source or fixture_source(), max_limit=max_limit, note=note)

    def fail(self, path: str, failure: Failure) -> None:
        self.failures[path] = failure

    def respond(self, target: str) -> tuple[int, bool, bytes]:
        """Status, whether held, and body for a request target (``/ergast/f1/...?limit=..``)."""
        url = urlsplit(target)
        query = parse_qs(url.query)
        limit = int(query.get("limit", ["30"])[0])
        offset = int(query.get("offset", ["0"])[0])
        if not url.path.startswith(PREFIX + "/"):
            return 404, False, b'{"detail": "not under /ergast/f1"}'
        path = url.path.removeprefix(PREFIX)
        self.hits.append((path, limit, offset))
        failure = self.failures.get(path, Failure())
        if failure.status is not None:
            return failure.status, failure.held, b'{"detail": "refused by the test"}'
        if failure.raw is not None:
            return 200, failure.held, failure.raw
        status, body = self.pages.answer(path, limit, offset)
        if failure.patch is not None:
            failure.patch(body)
        return status, failure.held, json.dumps(body).encode()


def _handler(archive: LoopbackArchive) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, held, body = archive.respond(self.path)
            if held:
                # A GET has no body, so nothing more comes from the client until it hangs up:
                # the read ends (empty, or reset) when the client gives up.
                with contextlib.suppress(ConnectionResetError):
                    self.rfile.read(1)
                return
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                return  # the client went away: nothing to answer

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test asserts on ``archive.hits`` instead."""

    return Handler


@pytest.fixture
def archive() -> Iterator[LoopbackArchive]:
    """The loopback archive over the Interlagos fixture; closed after the test."""
    state = LoopbackArchive(base_url="", pages=ArchivePages(fixture_source()))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}{PREFIX}"
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=GUARD_S)
