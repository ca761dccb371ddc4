"""A real ``trailcheck serve`` for the serve benchmarks: started over a fresh SQLite file, its
resident set read from ``/proc``, stopped with SIGINT as an operator stops it.

``src`` runs another checkout's code (``PYTHONPATH``), to measure a baseline in the same run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

MiB: Final = 1024 * 1024
RETRYABLE: Final = {429, 502, 503, 504}
START_GUARD_S: Final = 60.0
SETTLE_QUIET_S: Final = 3.0
SETTLE_GUARD_S: Final = 30.0


def rss(pid: int) -> tuple[int, int]:
    """The process's resident set and its peak (``VmRSS``, ``VmHWM``), in bytes."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) * 1024
    return fields["VmRSS"], fields["VmHWM"]


def settled_rss(pid: int) -> int:
    """The RSS once it has not changed by more than 1 MiB for SETTLE_QUIET_S seconds."""
    last, _ = rss(pid)
    quiet_since = time.monotonic()
    guard = quiet_since + SETTLE_GUARD_S
    while time.monotonic() < guard:
        time.sleep(0.25)
        now, _ = rss(pid)
        if abs(now - last) > MiB:
            last, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since >= SETTLE_QUIET_S:
            break
    return last


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    url: str
    path: Path
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def db(self) -> str:
        return f"sqlite:///{self.path}"


@contextlib.contextmanager
def running_server(folder: Path, extra: list[str], *, src: str | None = None) -> Iterator[Server]:
    """``trailcheck serve --no-grpc`` over a new SQLite file in ``folder``, with ``extra``
    options, until the block ends; a count of the tracebacks in its log is printed, if any."""
    port = free_port()
    path = folder / "serve.db"
    log = folder / "serve.log"
    command = [
        sys.executable,
        *("-c", "from trailcheck.cli import main; main()"),
        *("serve", "--db", f"sqlite:///{path}", "--port", str(port), "--no-grpc", *extra),
    ]
    env = {**os.environ, "PYTHONPATH": src} if src is not None else None
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
    server = Server(process, f"http://127.0.0.1:{port}", path, log)
    try:
        guard = time.monotonic() + START_GUARD_S
        while True:
            if process.poll() is not None:
                raise SystemExit(f"serve exited: {log.read_text()}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                break
            if time.monotonic() > guard:
                raise SystemExit("serve did not start listening")
            time.sleep(0.05)
        yield server
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        tracebacks = log.read_text(errors="replace").count("Traceback")
        if tracebacks:
            print(f"  server log: {tracebacks} traceback(s) in {log}")
