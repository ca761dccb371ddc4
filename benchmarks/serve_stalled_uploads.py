"""Stalled uploads against ``trailcheck serve``: the server's memory while N clients each send
16 MiB - 1 bytes of a 16 MiB body and stall, after they leave, and whether a good trace is
stored meanwhile.

For each N (default 100 and 300), on a fresh server (``trailcheck serve`` on 127.0.0.1, a port
the OS picks, SQLite in a temporary folder, ``--no-grpc --settle 0``):

1. the server's RSS once it answered one small export (its baseline);
2. N connections, each declaring ``Content-Length: 16777216`` and sending 16 MiB - 1 bytes of
   it, all at once from N threads, then holding the connection open; each one's fate is
   counted: still held when all were sent, answered early (the status), or cut (reset or
   closed by the server);
3. a good trace posted meanwhile as an OTLP exporter posts it (retrying 429, 502, 503, 504,
   waiting ``Retry-After`` when given, else 1 s), and whether the store has it, with the time
   it took;
4. the clients close their connections; the server's RSS once it stopped falling (no change
   over 3 s, at most 30 s);
5. the server's peak RSS (``VmHWM``) and how many lines it logged, tracebacks among them.

The baseline figures come from running it against a checkout of an earlier commit::

    git worktree add /tmp/serve-base HEAD
    PYTHONPATH=/tmp/serve-base/src python benchmarks/serve_stalled_uploads.py
    python benchmarks/serve_stalled_uploads.py --stalls 100 300
    python benchmarks/serve_stalled_uploads.py --stalls 300 -- --body-read-timeout 2

Arguments after ``--`` go to ``trailcheck serve``. Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from served import RETRYABLE, rss, running_server, settled_rss

DECLARED = 16 * 1024 * 1024
SENT = DECLARED - 1
GOOD_TRACE = "600d600d600d600d600d600d600d600d"
WARM_TRACE = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a"
MiB = 1024 * 1024


def export_body(trace_id: str) -> bytes:
    """One ended root span: a trace the server completes at its next sweep (``--settle 0``)."""
    request = ExportTraceServiceRequest()
    span = Span(
        trace_id=bytes.fromhex(trace_id),
        span_id=bytes.fromhex("b7ad6b7169203331"),
        name="invoke_agent support",
        start_time_unix_nano=1_000,
        end_time_unix_nano=9_000,
    )
    request.resource_spans.add().scope_spans.add().spans.append(span)
    return bytes(request.SerializeToString())


@dataclass
class Stalls:
    sockets: list[socket.socket] = field(default_factory=list)
    fates: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


def stall_one(port: int, payload: memoryview, stalls: Stalls) -> None:
    head = (
        "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/x-protobuf\r\nContent-Length: {DECLARED}\r\n\r\n"
    ).encode()
    connection = socket.create_connection(("127.0.0.1", port))
    with stalls.lock:
        stalls.sockets.append(connection)
    try:
        connection.sendall(head)
        connection.sendall(payload)
    except OSError as error:
        fate = f"cut while sending ({type(error).__name__})"
    else:
        fate = answered(connection)
    with stalls.lock:
        stalls.fates[fate] += 1


def answered(connection: socket.socket) -> str:
    """``held`` when the server has said nothing, else its status (or that it closed)."""
    connection.setblocking(False)
    try:
        data = connection.recv(64)
    except BlockingIOError:
        return "held"
    except OSError as error:
        return f"cut ({type(error).__name__})"
    finally:
        connection.setblocking(True)
    if not data:
        return "closed by the server"
    return f"answered {data.split(b' ', 2)[1].decode()}"


def post_good_trace(url: str, deadline_s: float) -> tuple[list[int], float]:
    """Post as an exporter would, retrying the retryable codes; the statuses and the time."""
    statuses: list[int] = []
    started = time.monotonic()
    headers = {"Content-Type": "application/x-protobuf"}
    with httpx.Client(timeout=10.0) as client:
        while time.monotonic() - started < deadline_s:
            try:
                response = client.post(
                    f"{url}/v1/traces", content=export_body(GOOD_TRACE), headers=headers
                )
            except httpx.HTTPError:
                statuses.append(0)
                time.sleep(1.0)
                continue
            statuses.append(response.status_code)
            if response.status_code not in RETRYABLE:
                break
            time.sleep(float(response.headers.get("retry-after", "1")))
    return statuses, time.monotonic() - started


def stored(db: str, trace_id: str, guard_s: float) -> bool:
    from trailcheck.store import Store, UnknownTraceError

    guard = time.monotonic() + guard_s
    with Store.open(db) as store:
        while time.monotonic() < guard:
            try:
                store.get_trace(trace_id)
            except UnknownTraceError:
                time.sleep(0.1)
            else:
                return True
    return False


def run(count: int, extra: list[str], good_deadline_s: float) -> None:
    payload = memoryview(bytes(SENT))
    with (
        tempfile.TemporaryDirectory() as directory,
        running_server(Path(directory), ["--settle", "0", *extra]) as server,
    ):
        port = int(server.url.rsplit(":", 1)[1])
        warm = httpx.post(
            f"{server.url}/v1/traces",
            content=export_body(WARM_TRACE),
            headers={"Content-Type": "application/x-protobuf"},
        )
        assert warm.status_code == 200, warm.text
        base, _ = rss(server.pid)

        stalls = Stalls()
        started = time.monotonic()
        threads = [
            threading.Thread(target=stall_one, args=(port, payload, stalls), daemon=True)
            for _ in range(count)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        sent_s = time.monotonic() - started
        held_rss, _ = rss(server.pid)

        statuses, good_s = post_good_trace(server.url, good_deadline_s)
        kept = statuses[-1:] == [200] and stored(server.db, GOOD_TRACE, 30.0)
        during_rss, _ = rss(server.pid)

        for connection in stalls.sockets:
            connection.close()
        after = settled_rss(server.pid)
        _, peak = rss(server.pid)
        log = server.log.read_text(errors="replace").splitlines()

    fates = ", ".join(f"{n} {fate}" for fate, n in stalls.fates.most_common())
    shown = " ".join(str(status) for status in statuses)
    print(f"== {count} stalled uploads of {SENT} bytes (serve {' '.join(extra) or 'defaults'})")
    print(f"  sent in {sent_s:.1f} s: {fates}")
    print(f"  RSS baseline {base / MiB:.0f} MiB; when all were sent {held_rss / MiB:.0f} MiB")
    print(f"  good trace: {shown} in {good_s:.1f} s; stored: {'yes' if kept else 'NO'}")
    print(f"  RSS after the good trace {during_rss / MiB:.0f} MiB; peak {peak / MiB:.0f} MiB")
    print(f"  RSS after the clients left {after / MiB:.0f} MiB")
    tracebacks = sum(line.startswith("Traceback") for line in log)
    print(f"  server log: {len(log)} lines, {tracebacks} tracebacks")
    for line in [line for line in log if "WARNING" in line or "warning" in line][:3]:
        print(f"    {line[:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stalls", type=int, nargs="+", default=[100, 300])
    parser.add_argument("--good-deadline", type=float, default=60.0, help="seconds of retries")
    parser.add_argument("serve_args", nargs="*", help="after --: options for trailcheck serve")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        raise SystemExit("reads /proc: Linux only")
    import trailcheck

    print(f"trailcheck from {Path(trailcheck.__file__).parent}, pid {os.getpid()}")
    for count in args.stalls:
        run(count, args.serve_args, args.good_deadline)


if __name__ == "__main__":
    main()
