"""``trailcheck serve`` under the attacks of issue 35, at full size: for each, the answer, the
time, the server's resident set (before, at its peak, and once the load ended and the server was
idle), and how long a good trace posted during the attack took to be stored.

Each attack runs on a fresh server (``trailcheck serve`` on 127.0.0.1, a port the OS picks,
SQLite in a temporary folder, ``--no-grpc --settle 0``, the other options at their defaults
unless given after ``--``), warmed by one small export:

- ``stalled``: N connections (300) each declare a 16 MiB body and send 16 MiB - 1 bytes of it,
  then hold the connection; they leave once the good trace is stored (or refused for good);
- ``spans``: one request of 200k spans (2,000 traces of 100 bare spans, about 12 MB);
- ``spans-x4``: four such requests at once;
- ``traces``: one request of 100k one-span traces (about 6 MB);
- ``members``: a 16 MB gzip body of about 800k one-byte members (a valid export once inflated);
- ``bomb``: 16 KB of gzip that inflates to 16 MiB of zero bytes;
- ``concurrent``: 200 small exports posted at once, each retried while the answer is 503.

The good trace (one ended root span) is posted as an OTLP exporter posts it, retrying 429, 502,
503 and 504 after ``Retry-After``, half a second after the attack began; its delay is from its
first post until the store has it. Columns:

- *answer*: the attack's HTTP statuses (with counts), or ``reset`` for a connection cut while
  it was still sending;
- *time*: from the attack's start until every request of it was answered (for ``stalled``,
  until every connection was answered or cut by the server);
- *RSS base / peak / idle*: the server's resident set after the warm-up export, its peak
  (``VmHWM``: a fresh process per attack, so the attack's peak), and once the attack's traces
  were stored, its clients gone and the RSS unchanged for 3 s (the server trims its heap when
  idle);
- *good trace*: the statuses it got, and the seconds until it was stored.

Prints a markdown table, to paste into docs/serve.md::

    python benchmarks/serve_under_load.py                        # every attack, full size
    python benchmarks/serve_under_load.py --attacks stalled bomb --stalls 100
    python benchmarks/serve_under_load.py --attacks spans -- --max-body-bytes 33554432

Linux only (``/proc``). Arguments after ``--`` go to ``trailcheck serve``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gzip
import math
import os
import platform
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from scale_speed import loadavg
from served import RETRYABLE, Server, rss, running_server, settled_rss

MiB = 1024 * 1024
PROTOBUF = {"Content-Type": "application/x-protobuf"}
GZIP = {**PROTOBUF, "Content-Encoding": "gzip"}
STALL_DECLARED = 16 * MiB
GOOD_AFTER_S = 0.5  # the good trace is posted this long after the attack began
STORE_GUARD_S = 900.0  # an attack's traces not stored by then: reported, not awaited further


def bare_span(trace_id: bytes, span_id: int, parent: int | None) -> Span:
    """A span with nothing but its ids, name and times: the smallest a sender may send."""
    return Span(
        trace_id=trace_id,
        span_id=span_id.to_bytes(8, "big"),
        parent_span_id=b"" if parent is None else parent.to_bytes(8, "big"),
        name="invoke_agent a" if parent is None else "execute_tool t",
        start_time_unix_nano=1_000 + span_id,
        end_time_unix_nano=9_000_000 + span_id,
    )


def export_of(spans: list[Span]) -> bytes:
    request = ExportTraceServiceRequest()
    request.resource_spans.add().scope_spans.add().spans.extend(spans)
    return bytes(request.SerializeToString())


def traces_body(traces: int, spans_per_trace: int) -> tuple[bytes, int]:
    """``traces`` traces of an ended root and ``spans_per_trace - 1`` children; the body and
    how many traces it holds."""
    spans = []
    for _ in range(traces):
        trace_id = uuid.uuid4().bytes
        spans.append(bare_span(trace_id, 1, None))
        spans.extend(bare_span(trace_id, n, 1) for n in range(2, spans_per_trace + 1))
    return export_of(spans), traces


def good_body() -> tuple[bytes, str]:
    trace_id = uuid.uuid4()
    return export_of([bare_span(trace_id.bytes, 1, None)]), trace_id.hex


def stored_traces(db: str) -> int:
    path = db.removeprefix("sqlite:///")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as connection:
        (count,) = connection.execute("select count(*) from traces").fetchone()
    return int(count)


def trace_stored(db: str, trace_id: str) -> bool:
    path = db.removeprefix("sqlite:///")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as connection:
        row = connection.execute("select 1 from traces where trace_id = ?", (trace_id,))
        return row.fetchone() is not None


@dataclass
class GoodTrace:
    """The good trace posted during an attack: its statuses and when it was stored."""

    statuses: list[int] = field(default_factory=list)
    stored_s: float | None = None

    def shown(self) -> str:
        counts = Counter(self.statuses)
        answers = ", ".join(f"{n}× {s}" if n > 1 else str(s) for s, n in counts.items())
        stored = "not stored" if self.stored_s is None else f"stored in {self.stored_s:.1f} s"
        return f"{answers}; {stored}"


def post_good_trace(server: Server, good: GoodTrace, deadline_s: float) -> None:
    """Post as an exporter would, retrying the retryable codes, then wait for the store."""
    body, trace_id = good_body()
    started = time.monotonic()
    with httpx.Client(timeout=deadline_s) as client:
        while time.monotonic() - started < deadline_s:
            try:
                answer = client.post(f"{server.url}/v1/traces", content=body, headers=PROTOBUF)
            except httpx.HTTPError:
                good.statuses.append(0)
                time.sleep(1.0)
                continue
            good.statuses.append(answer.status_code)
            if answer.status_code not in RETRYABLE:
                break
            time.sleep(float(answer.headers.get("retry-after", "1")))
    if good.statuses[-1:] == [200]:
        while time.monotonic() - started < deadline_s:
            if trace_stored(server.db, trace_id):
                good.stored_s = time.monotonic() - started
                break
            time.sleep(0.05)


# --- the attacks --------------------------------------------------------------------------------


@dataclass
class Attack:
    """What an attack sends (returning each request's status), how many traces it adds to the
    store, and how its clients leave when they hold on (stalled uploads)."""

    send: Callable[[], list[str]]
    traces: int = 0
    leave: Callable[[], None] = lambda: None


def stalled(server: Server, count: int) -> Attack:
    """N connections send all but one byte of a 16 MiB body and wait for an answer."""
    payload = memoryview(bytes(STALL_DECLARED - 1))
    head = (
        "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-protobuf\r\n"
        f"Content-Length: {STALL_DECLARED}\r\n\r\n"
    ).encode()
    port = int(server.url.rsplit(":", 1)[1])
    connections: list[socket.socket] = []
    lock = threading.Lock()

    def one(_: int) -> str:
        connection = socket.create_connection(("127.0.0.1", port))
        with lock:
            connections.append(connection)
        try:
            connection.sendall(head)
            connection.sendall(payload)
            data = connection.recv(64)
        except OSError:
            return "reset"
        return data.split(b" ", 2)[1].decode() if data else "closed"

    def send() -> list[str]:
        with ThreadPoolExecutor(count) as pool:
            return list(pool.map(one, range(count)))

    def leave() -> None:
        # A shutdown reaches the server at once, where a close would wait for the recv.
        with lock:
            for connection in connections:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
                connection.close()

    return Attack(send, leave=leave)


def requests(server: Server, bodies: list[bytes], headers: dict[str, str], traces: int) -> Attack:
    """``bodies`` posted at once, each retried while it is answered 503 (as exporters do)."""

    def one(body: bytes) -> str:
        with httpx.Client(timeout=STORE_GUARD_S) as client:
            while True:
                answer = client.post(f"{server.url}/v1/traces", content=body, headers=headers)
                if answer.status_code not in RETRYABLE:
                    return str(answer.status_code)
                time.sleep(float(answer.headers.get("retry-after", "1")))

    def send() -> list[str]:
        with ThreadPoolExecutor(len(bodies)) as pool:
            return list(pool.map(one, bodies))

    return Attack(send, traces)


def members_body(size: int) -> tuple[bytes, int]:
    """A gzip body of about ``size`` bytes, each byte of a valid export (traces of 100 bare
    spans) in its own member; the body and its traces."""
    per_byte = len(gzip.compress(b"x", mtime=0))
    one_trace, _ = traces_body(1, 100)
    traces = max(1, size // (per_byte * len(one_trace)))
    payload, _ = traces_body(traces, 100)
    body = b"".join(gzip.compress(payload[i : i + 1], mtime=0) for i in range(len(payload)))
    return body, traces


def build(name: str, server: Server, args: argparse.Namespace) -> Attack:
    if name == "stalled":
        return stalled(server, args.stalls)
    if name in ("spans", "spans-x4"):
        bodies = [traces_body(args.spans // 100, 100) for _ in range(4 if "x4" in name else 1)]
        return requests(server, [b for b, _ in bodies], PROTOBUF, sum(n for _, n in bodies))
    if name == "traces":
        body, count = traces_body(args.traces, 1)
        return requests(server, [body], PROTOBUF, count)
    if name == "members":
        body, count = members_body(args.members_mb * 1_000_000)
        return requests(server, [body], GZIP, count)
    if name == "bomb":
        bomb = gzip.compress(bytes(16 * MiB + 1), compresslevel=9)
        return requests(server, [bomb], GZIP, 0)
    if name == "concurrent":
        bodies = [good_body()[0] for _ in range(args.concurrent)]
        return requests(server, bodies, PROTOBUF, len(bodies))
    raise SystemExit(f"unknown attack {name!r}")


# --- running one ---------------------------------------------------------------------------------


@dataclass
class Row:
    answer: str
    seconds: float
    base: int
    peak: int
    idle: int
    good: str


def answered(statuses: list[str]) -> str:
    return ", ".join(f"{n}× {s}" if n > 1 else s for s, n in Counter(statuses).most_common())


def run(name: str, args: argparse.Namespace) -> Row:
    with (
        tempfile.TemporaryDirectory() as folder,
        running_server(Path(folder), ["--settle", "0", *args.serve]) as server,
    ):
        warm, warm_id = good_body()
        assert httpx.post(f"{server.url}/v1/traces", content=warm, headers=PROTOBUF).is_success
        while not trace_stored(server.db, warm_id):
            time.sleep(0.05)
        base, _ = rss(server.pid)
        attack = build(name, server, args)

        statuses: list[str] = []
        answered_at: list[float] = []

        def send() -> None:
            statuses.extend(attack.send())
            answered_at.append(time.monotonic())

        good = GoodTrace()
        sender = threading.Thread(target=send, daemon=True)
        poster = threading.Thread(
            target=post_good_trace, args=(server, good, args.good_deadline), daemon=True
        )
        started = time.monotonic()
        sender.start()
        time.sleep(GOOD_AFTER_S)
        poster.start()
        poster.join(args.good_deadline + 60)
        sender.join(args.hold)  # clients the server has not answered by then leave
        attack.leave()
        sender.join(STORE_GUARD_S)
        seconds = (answered_at or [math.inf])[0] - started

        expected = 2 + attack.traces  # the warm-up, the good trace and the attack's
        guard = time.monotonic() + STORE_GUARD_S
        while stored_traces(server.db) < expected and time.monotonic() < guard:
            time.sleep(0.5)
        stored = stored_traces(server.db)
        idle = settled_rss(server.pid)
        _, peak = rss(server.pid)
    answer = answered(statuses)
    if stored < expected:
        answer += f" (only {stored - 2} of {expected - 2} traces stored)"
    return Row(answer, seconds, base, peak, idle, good.shown())


ATTACKS = ["stalled", "spans", "spans-x4", "traces", "members", "bomb", "concurrent"]


def describe(name: str, args: argparse.Namespace) -> str:
    return {
        "stalled": f"{args.stalls} stalled uploads of 16 MiB − 1 bytes",
        "spans": f"{args.spans:,} spans in one request",
        "spans-x4": f"4 requests of {args.spans:,} spans at once",
        "traces": f"{args.traces:,} one-span traces in one request",
        "members": f"{args.members_mb} MB of one-byte gzip members",
        "bomb": "gzip bomb (16 MiB of zeros)",
        "concurrent": f"{args.concurrent} exports at once",
    }[name]


def machine() -> str:
    """The CPU model, its count and the memory, from /proc."""
    cpu = memory = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            memory = f"{int(line.split()[1]) / MiB:.1f} GiB"
    return f"{platform.node()}: {os.cpu_count()} × {cpu}, {memory}; load {loadavg()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attacks", nargs="+", choices=ATTACKS, default=ATTACKS)
    parser.add_argument("--stalls", type=int, default=300)
    parser.add_argument("--spans", type=int, default=200_000)
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--members-mb", type=int, default=16)
    parser.add_argument("--concurrent", type=int, default=200)
    parser.add_argument("--good-deadline", type=float, default=300.0, help="seconds of retries")
    parser.add_argument(
        "--hold",
        type=float,
        default=60.0,
        help="seconds unanswered clients wait after the good trace before they leave",
    )
    parser.add_argument("serve", nargs="*", help="after --: options for trailcheck serve")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        raise SystemExit("reads /proc: Linux only")
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    today = datetime.date.today().isoformat()
    print(f"<!-- {today}; commit {commit}; {machine()} -->")
    print(f"<!-- python benchmarks/serve_under_load.py {' '.join(sys.argv[1:])} -->")
    print()
    print("| attack | answer | time | RSS base | RSS peak | RSS idle after | good trace |")
    print("|---|---|---:|---:|---:|---:|---|")
    for name in args.attacks:
        row = run(name, args)
        print(
            f"| {describe(name, args)} | {row.answer} | {row.seconds:.1f} s"
            f" | {row.base / MiB:.0f} MiB | {row.peak / MiB:.0f} MiB | {row.idle / MiB:.0f} MiB"
            f" | {row.good} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
