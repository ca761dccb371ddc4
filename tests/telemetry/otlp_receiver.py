"""A loopback OTLP/HTTP logs receiver for tests: scripted answers, every request kept.

::

    with running_receiver() as receiver:
        receiver.enqueue(Answer(503, retry_after="0"))   # then 200s
        ... send to receiver.endpoint (http://127.0.0.1:PORT) ...
        receiver.records()                             # every LogRecord received, decoded

A stdlib ``ThreadingHTTPServer`` on 127.0.0.1, port 0, in a daemon thread; ``POST /v1/logs``
answers with the next scripted :class:`Answer` (200 with an empty protobuf body when none is
left) and keeps the path, headers and raw body of every request.
"""

from __future__ import annotations

import socket
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsPartialSuccess,
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord

from tests.waiting import GUARD_S

__all__ = [
    "Answer",
    "Received",
    "Receiver",
    "attributes",
    "dead_endpoint",
    "running_receiver",
]


@dataclass(frozen=True, slots=True)
class Answer:
    """One scripted answer: a status, an optional ``Retry-After``, and rejected records."""

    status: int = 200
    retry_after: str | None = None
    rejected: int = 0


@dataclass(frozen=True, slots=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def request(self) -> ExportLogsServiceRequest:
        message = ExportLogsServiceRequest()
        message.ParseFromString(self.body)
        return message


@dataclass
class Receiver:
    endpoint: str = ""
    received: list[Received] = field(default_factory=list)
    script: deque[Answer] = field(default_factory=deque)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def enqueue(self, *answers: Answer) -> None:
        with self.lock:
            self.script.extend(answers)

    def next_answer(self, request: Received) -> Answer:
        with self.lock:
            self.received.append(request)
            return self.script.popleft() if self.script else Answer()

    def records(self) -> list[LogRecord]:
        """Every log record of every request, in order."""
        return [
            record
            for received in self.received
            for resource in received.request().resource_logs
            for scope in resource.scope_logs
            for record in scope.log_records
        ]


def _value(value: AnyValue) -> Any:
    return getattr(value, value.WhichOneof("value") or "string_value")


def attributes(record: Any) -> dict[str, Any]:
    """A record's (or resource's) attributes as a plain dict."""
    return {pair.key: _value(pair.value) for pair in record.attributes}


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            received = Received(
                path=self.path,
                headers={key.lower(): value for key, value in self.headers.items()},
                body=self.rfile.read(length),
            )
            answer = receiver.next_answer(received)
            body = b""
            if answer.status == 200:
                response = ExportLogsServiceResponse()
                if answer.rejected:
                    response.partial_success.CopyFrom(
                        ExportLogsPartialSuccess(
                            rejected_log_records=answer.rejected, error_message="too old"
                        )
                    )
                body = response.SerializeToString()
            self.send_response(answer.status)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(body)))
            if answer.retry_after is not None:
                self.send_header("Retry-After", answer.retry_after)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests assert on ``receiver.received``."""

    return Handler


@contextmanager
def running_receiver() -> Iterator[Receiver]:
    receiver = Receiver()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(receiver))
    receiver.endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()  # returns once serve_forever has ended
        server.server_close()
        thread.join(GUARD_S)  # a guard: the thread has nothing left to do


def dead_endpoint() -> str:
    """A loopback URL nothing listens on: a port bound, then released."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
