"""HTTP uploads over a bare socket, for the tests of admission and the attacks: a body that stops
half-way, arrives in chunks, or trickles, as no well-behaved client would send it, and the
server's answer read from the same socket."""

from __future__ import annotations

import contextlib
import http.client
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from tests.waiting import GUARD_S

PROTOBUF = "application/x-protobuf"


@dataclass
class Answer:
    """The status, headers (lowercased names) and body of an answer read off a socket."""

    status: int
    headers: dict[str, str]
    body: bytes


def _address(base_url: str) -> tuple[str, int]:
    parts = urlsplit(base_url)
    assert parts.hostname is not None, base_url
    assert parts.port is not None, base_url
    return parts.hostname, parts.port


def request_head(
    path: str,
    *,
    declared: int | None,
    content_type: str = PROTOBUF,
    extra: tuple[str, ...] = (),
) -> bytes:
    """The request line and headers of a POST: ``Content-Length: declared``, or chunked when
    ``declared`` is None."""
    length = "Transfer-Encoding: chunked" if declared is None else f"Content-Length: {declared}"
    lines = [
        f"POST {path} HTTP/1.1",
        "Host: 127.0.0.1",
        f"Content-Type: {content_type}",
        length,
        *extra,
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def chunk(data: bytes) -> bytes:
    """One chunk of a chunked body (an empty ``data`` is the last)."""
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


@contextlib.contextmanager
def upload_socket(base_url: str) -> Iterator[socket.socket]:
    """A connection to the server, closed when the block ends; reads are guarded by GUARD_S."""
    connection = socket.create_connection(_address(base_url), timeout=GUARD_S)
    try:
        yield connection
    finally:
        connection.close()


def start_upload(
    connection: socket.socket, path: str, first: bytes, *, declared: int | None
) -> None:
    """Send the head of a POST and the first bytes of its body (already framed as chunks when
    ``declared`` is None), and send no more."""
    connection.sendall(request_head(path, declared=declared) + first)


def read_answer(connection: socket.socket) -> Answer:
    """The server's answer on ``connection`` (a guard, not a deadline: GUARD_S)."""
    response = http.client.HTTPResponse(connection)
    response.begin()
    body = response.read()
    headers = {name.lower(): value for name, value in response.getheaders()}
    return Answer(response.status, headers, body)


def assert_closed_by_server(connection: socket.socket) -> None:
    """Fail unless the server closed ``connection``: a read ends the file (or finds it reset)
    rather than getting bytes, or waiting (up to the guard) for more."""
    try:
        data = connection.recv(1)
    except ConnectionResetError:
        return
    assert data == b"", f"the connection is still open and sent {data!r}"
