"""Big requests against ``trailcheck serve``: the server's memory for one request of many tiny
spans, and how long a good trace waits while a request of many one-span traces is handled.

Each part runs on a fresh server (``trailcheck serve`` on 127.0.0.1, a port the OS picks, SQLite
in a temporary folder, ``--no-grpc``, the default ``--settle`` of 2 s unless given after ``--``):

(a) **Memory.** One OTLP protobuf request of ``--spans`` tiny spans (default 200,000, in traces
    of ``--spans-per-trace``: a root that has ended and its children; about 12 MB), posted once
    the server answered a small export. Printed: the body's size, the answer and its time, the
    server's RSS before, its peak (``VmHWM``) while the request was handled and until every
    trace was stored, and the bytes of the pending rows per span against the span's protobuf
    encoding (read from the store before the sweep took them: ``--settle`` long enough).
(b) **Head-of-line.** One request of ``--traces`` one-span traces (default 100,000: each a root
    that has ended) posted in a thread; at each of ``--good-after`` seconds after it (default 1,
    4 and 8), a good trace of one root span is posted. Printed: the big request's answer and
    time; for each good trace, whether the big request was still being handled, its answer and
    delay, and when the store had it (polled every 50 ms), from its post; and when the big
    request's traces were all stored (or how many were, within ``--guard`` seconds).

The baseline figures come from running it against a checkout of an earlier commit::

    git worktree add /tmp/serve-base 0c444cf
    PYTHONPATH=/tmp/serve-base/src python benchmarks/serve_memory.py
    python benchmarks/serve_memory.py [--spans 200000] [--traces 100000] [-- --settle 2]

Arguments after ``--`` go to ``trailcheck serve``. Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

MiB = 1024 * 1024
START_GUARD_S = 60.0
STORE_GUARD_S = 600.0
PROTOBUF = {"Content-Type": "application/x-protobuf"}
GOOD_TRACE = "600d600d600d600d600d600d600d600d"
WARM_TRACE = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a"


def rss(pid: int) -> tuple[int, int]:
    """The process's resident set and its peak (``VmRSS``, ``VmHWM``), in bytes."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) * 1024
    return fields["VmRSS"], fields["VmHWM"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    url: str
    db: str

    @property
    def pid(self) -> int:
        return self.process.pid


@contextlib.contextmanager
def running_server(folder: Path, extra: list[str]) -> Iterator[Server]:
    port = free_port()
    db = f"sqlite:///{folder / 'big.db'}"
    log = folder / "serve.log"
    command = [
        sys.executable,
        *("-c", "from trailcheck.cli import main; main()"),
        *("serve", "--db", db, "--port", str(port), "--no-grpc", *extra),
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    server = Server(process, f"http://127.0.0.1:{port}", db)
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
        post(server.url, export_body([(WARM_TRACE, 1)]))
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


def export_body(traces: list[tuple[str, int]]) -> bytes:
    """One request: for each ``(trace id, spans)``, a root that has ended and its children,
    the tiniest spans a real exporter sends (one attribute on the resource)."""
    request: Any = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    resource_spans.resource.attributes.append(
        KeyValue(key="service.name", value=AnyValue(string_value="flood"))
    )
    spans = resource_spans.scope_spans.add().spans
    for trace_id, count in traces:
        trace = bytes.fromhex(trace_id)
        for number in range(1, count + 1):
            span = spans.add()
            span.trace_id = trace
            span.span_id = number.to_bytes(8, "big")
            if number > 1:
                span.parent_span_id = (1).to_bytes(8, "big")
            span.name = "s"
            span.start_time_unix_nano = 1_000
            span.end_time_unix_nano = 2_000
    return bytes(request.SerializeToString())


def trace_ids(count: int, salt: int) -> list[str]:
    return [f"{salt:08x}{number:024x}" for number in range(1, count + 1)]


def post(url: str, body: bytes) -> tuple[int, str, float]:
    began = time.monotonic()
    response = httpx.post(f"{url}/v1/traces", content=body, headers=PROTOBUF, timeout=600.0)
    return response.status_code, response.text[:200], time.monotonic() - began


class PeakWatch:
    """Polls a process's RSS every 20 ms, in a thread, for its peak (VmHWM misses nothing, but
    this also says when the peak came)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            with contextlib.suppress(FileNotFoundError):
                self.peak = max(self.peak, rss(self.pid)[0])

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def stored_count(db: str, ids: list[str]) -> int:
    from sqlalchemy import func, select

    from trailcheck.store import Store, schema

    with Store.open(db) as store, store.engine.connect() as connection:
        found = 0
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            query = select(func.count()).where(schema.traces.c.trace_id.in_(chunk))
            found += int(connection.scalar(query) or 0)
        return found


def pending_bytes(db: str) -> tuple[int, int]:
    """The pending rows' count and bytes (their payloads and ids)."""
    from sqlalchemy import text

    from trailcheck.store import Store

    with Store.open(db) as store, store.engine.connect() as connection:
        row = connection.execute(
            text(
                "SELECT count(*), coalesce(sum(length(payload) + length(trace_id)"
                " + length(span_id)), 0) FROM pending_spans"
            )
        ).one()
        return int(row[0]), int(row[1])


def wait_stored(db: str, ids: list[str], guard_s: float = STORE_GUARD_S) -> float | None:
    """Seconds until the store holds every trace of ``ids`` (None: not within ``guard_s``)."""
    began = time.monotonic()
    while time.monotonic() - began < guard_s:
        if stored_count(db, ids) == len(ids):
            return time.monotonic() - began
        time.sleep(0.05)
    return None


def memory(count: int, per_trace: int, extra: list[str]) -> None:
    ids = trace_ids(count // per_trace, 0xB16)
    body = export_body([(trace_id, per_trace) for trace_id in ids])
    span_bytes = len(body) / count
    with tempfile.TemporaryDirectory() as folder, running_server(Path(folder), extra) as server:
        before, _ = rss(server.pid)
        watch = PeakWatch(server.pid)
        status, text, answer_s = post(server.url, body)
        rows, row_bytes = pending_bytes(server.db)
        stored_s = wait_stored(server.db, ids)
        polled = watch.stop()
        _, peak = rss(server.pid)
    print(
        f"== (a) one request of {count} spans in {len(ids)} traces: {len(body) / MiB:.1f} MiB"
        f" ({span_bytes:.0f} bytes a span)"
    )
    print(f"  answer {status} {text!r} in {answer_s:.1f} s")
    print(
        f"  RSS before {before / MiB:.0f} MiB; peak {peak / MiB:.0f} MiB"
        f" (polled {polled / MiB:.0f})"
    )
    if rows:
        print(
            f"  pending rows after the answer: {rows}, {row_bytes / rows:.0f} bytes a span"
            f" ({row_bytes / rows / span_bytes:.1f}x its protobuf)"
        )
    shown = "NOT within the guard" if stored_s is None else f"{answer_s + stored_s:.1f} s"
    print(f"  every trace stored {shown} after the post")


def head_of_line(count: int, good_after: list[float], guard_s: float, extra: list[str]) -> None:
    ids = trace_ids(count, 0xF100D)
    body = export_body([(trace_id, 1) for trace_id in ids])
    with tempfile.TemporaryDirectory() as folder, running_server(Path(folder), extra) as server:
        big: dict[str, Any] = {}
        began = time.monotonic()

        def post_big() -> None:
            big["answer"] = post(server.url, body)
            big["at"] = time.monotonic() - began

        thread = threading.Thread(target=post_big)
        thread.start()
        goods: dict[int, tuple[float, bool, int, str, float, float | None]] = {}

        def post_good(number: int, after_s: float) -> None:
            time.sleep(max(0.0, began + after_s - time.monotonic()))
            good = f"600d{number:028x}"
            posted = time.monotonic() - began
            during = thread.is_alive()
            status, text, answer_s = post(server.url, export_body([(good, 1)]))
            stored_s = wait_stored(server.db, [good], guard_s)
            stored_at = None if stored_s is None else answer_s + stored_s
            goods[number] = (posted, during, status, text, answer_s, stored_at)

        posters = [
            threading.Thread(target=post_good, args=(number, after_s))
            for number, after_s in enumerate(sorted(good_after), start=1)
        ]
        for poster in posters:
            poster.start()
        for poster in posters:
            poster.join()
        thread.join()
        left_s = max(1.0, guard_s - (time.monotonic() - began))
        all_stored = wait_stored(server.db, ids, left_s)
        done = time.monotonic() - began
        kept = stored_count(server.db, ids)
    big_status, big_text, big_s = big["answer"]
    print(f"== (b) one request of {count} one-span traces ({len(body) / MiB:.1f} MiB)")
    print(f"  big request: {big_status} {big_text!r} in {big_s:.1f} s")
    for number in sorted(goods):
        posted, during, status, text, answer_s, stored_at = goods[number]
        when = "while it was handled" if during else "after its answer"
        shown = f"NOT within {guard_s:.0f} s" if stored_at is None else f"{stored_at:.2f} s"
        print(
            f"  good trace posted at {posted:.1f} s ({when}): answer {status} {text!r} in"
            f" {answer_s:.2f} s; stored {shown} after its post"
        )
    every = f"{done:.1f} s after its post" if all_stored is not None else f"{kept} of them"
    print(f"  the big request's traces stored: {every} (guard {guard_s:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=200_000)
    parser.add_argument("--spans-per-trace", type=int, default=100)
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument(
        "--good-after",
        type=float,
        nargs="+",
        default=[1.0, 4.0, 8.0],
        help="seconds after the big post",
    )
    parser.add_argument("--guard", type=float, default=120.0, help="seconds to wait for storage")
    parser.add_argument("--only", choices=("memory", "head-of-line"))
    parser.add_argument("serve_args", nargs="*", help="after --: options for trailcheck serve")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        raise SystemExit("reads /proc: Linux only")
    import trailcheck

    print(f"trailcheck from {Path(trailcheck.__file__).parent}, pid {os.getpid()}")
    if args.only in (None, "memory"):
        memory(args.spans, args.spans_per_trace, args.serve_args)
    if args.only in (None, "head-of-line"):
        head_of_line(args.traces, args.good_after, args.guard, args.serve_args)


if __name__ == "__main__":
    main()
