"""``trailcheck serve`` as a separate process, as a user runs it: HTTP and gRPC on ports the OS
picks, over a SQLite store in a folder, its output in a log file; its resident set read from
``/proc`` (Linux), and good traces posted and awaited in its store."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import httpx

from tests.serve.otlp_bodies import agent_span, protobuf_body, tool_span
from tests.waiting import GUARD_S, wait_until
from trailcheck.store import Store, UnknownTraceError
from trailcheck.trace import Trace

PROTOBUF: Final = {"Content-Type": "application/x-protobuf"}
# What OTLP exporters retry (the server's busy answer is 503).
RETRIED: Final = frozenset({429, 502, 503, 504})
CUT_OFF: Final = 408
# uvicorn's line once the app has started and the socket listens; serve's line naming the gRPC
# address it bound.
_LISTENING: Final = re.compile(rb"Uvicorn running on http://127\.0\.0\.1:(\d+) ")
_GRPC: Final = re.compile(rb"OTLP/gRPC (127\.0\.0\.1:\d+) into")
_KIB: Final = 1024


@dataclass(frozen=True)
class Memory:
    """The process's resident set now and at its peak (``VmRSS``, ``VmHWM``), in bytes."""

    resident: int
    peak: int


class ServeProcess:
    """``python -m trailcheck serve --db sqlite:///FOLDER/serve.db`` with ``options``, started
    and listening (HTTP and gRPC) when the constructor returns; :meth:`stop` ends it."""

    def __init__(self, folder: Path, options: list[str]) -> None:
        self.db = f"sqlite:///{folder / 'serve.db'}"
        self.log = folder / "serve.log"
        command = [
            *(sys.executable, "-m", "trailcheck", "serve", "--db", self.db),
            *("--host", "127.0.0.1", "--port", "0", "--grpc-port", "0", *options),
        ]
        with self.log.open("wb") as sink:
            self.process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
        try:
            port = wait_until(lambda: self._found(_LISTENING), "the server listening")
        except BaseException:
            self.process.kill()  # not left running behind a failed start
            self.process.wait(GUARD_S)
            raise
        self.url = f"http://127.0.0.1:{int(port)}"
        self.grpc_address = self._found(_GRPC).decode()

    def _found(self, line: re.Pattern[bytes]) -> bytes:
        assert self.process.poll() is None, f"the server exited:\n{self.log_text()}"
        found = line.search(self.log.read_bytes())
        return found[1] if found else b""

    @property
    def pid(self) -> int:
        return self.process.pid

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def memory(self) -> Memory:
        """The resident set, now and at its peak, from ``/proc/PID/status``."""
        fields = {}
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) * _KIB
        return Memory(fields["VmRSS"], fields["VmHWM"])

    def stop(self) -> int:
        """Ctrl-C, and the exit status once it finished its requests."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        return self.process.wait(GUARD_S)  # a guard: SIGINT ends uvicorn and the gRPC server

    def post(self, path: str, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
        """One POST, as sent; its answer."""
        return httpx.post(
            f"{self.url}{path}", content=body, headers=headers or PROTOBUF, timeout=GUARD_S
        )

    def export(self, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
        """POST /v1/traces as an OTLP exporter does: retried while the answer is retryable
        (503 while the server is busy), until it is not; that answer."""

        def answered() -> httpx.Response | None:
            response = self.post("/v1/traces", body, headers)
            return None if response.status_code in RETRIED else response

        return wait_until(answered, "an answer that is not 'busy'", poll_s=0.05)

    def post_good_trace(self) -> str:
        """Export a good trace (an ended agent run with a tool call) under a fresh id; its id,
        once the server took it (200).

        Sent again when its body was cut off (408): a server given a read timeout of a fifth of
        a second, on a machine kept busy by other processes, may find a body that was sent whole
        still unread that long, and the property here is that it goes on storing traces, not
        how fast the machine is."""
        trace_id = uuid.uuid4().hex
        body = protobuf_body(agent_span(trace_id), tool_span(trace_id))

        def taken() -> httpx.Response | None:
            response = self.export(body)
            return None if response.status_code == CUT_OFF else response

        answer = wait_until(taken, "the good trace taken, not cut off", poll_s=0.05)
        assert answer.status_code == 200, answer.text
        return trace_id

    def stored(self, trace_id: str) -> Trace:
        """The trace once the server's sweep has stored it."""
        with Store.open(self.db, must_exist=True) as store:

            def completed() -> Trace | None:
                try:
                    return store.get_trace(trace_id)
                except UnknownTraceError:
                    return None

            return wait_until(completed, f"the server storing trace {trace_id}", poll_s=0.05)

    def still_stores_a_good_trace(self) -> None:
        """A good trace posted now is answered 200 and stored whole."""
        trace = self.stored(self.post_good_trace())
        assert [call.name for call in trace.tool_calls] == ["lookup"]
        assert trace.input == "refund order 42"
