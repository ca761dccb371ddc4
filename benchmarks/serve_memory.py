"""Big requests against ``trailcheck serve``: the server's memory for one request of many tiny
spans, and how long a good trace waits while a request of many one-span traces is handled.

Each part runs on a fresh server (``trailcheck serve`` on 127.0.0.1, a port the OS picks, SQLite
in a temporary folder, ``--no-grpc``, the default ``--settle`` of 2 s unless given after ``--``),
first of the baseline (``--baseline SRC``: the ``src`` folder of a checkout of an earlier commit,
the server's ``PYTHONPATH``), then of this checkout, and the figures are printed side by side:

(a) **Memory.** One OTLP protobuf request of ``--spans`` tiny spans (default 200,000, in traces
    of ``--spans-per-trace``: a root that has ended and its children; about 12 MB), posted once
    the server answered a small export (``--copies N``: N such requests, of other traces, at
    once). Printed: the answer and its time, the server's RSS
    before, its peak (``VmHWM``) while the request was handled and until every trace was
    stored, the bytes of the pending rows per span (payload and ids, of the rows still pending
    when the answer came) against the span's protobuf encoding, and when every trace was stored.
(b) **Head-of-line.** One request of ``--traces`` one-span traces (default 100,000: each a root
    that has ended) posted in a thread; at each of ``--good-after`` seconds after it (default 0.5,
    1.5, 4 and 8), a good trace of one root span is posted from a thread of its own. Printed: the
    big request's answer and time; for each good trace, whether the big request was still being
    handled, its answer and delay, and when the store had it (polled every 50 ms), from its
    post; and when the big request's traces were all stored (or how many were, within
    ``--guard`` seconds).

The store is read with ``sqlite3`` alone, so a baseline's database is never migrated by this
checkout::

    git worktree add /tmp/serve-base 0c444cf
    python benchmarks/serve_memory.py --baseline /tmp/serve-base/src
    python benchmarks/serve_memory.py [--spans 200000] [--traces 100000] [-- --settle 2]

Arguments after ``--`` go to ``trailcheck serve``. Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from served import Server, rss, running_server

MiB = 1024 * 1024
STORE_GUARD_S = 600.0
PROTOBUF = {"Content-Type": "application/x-protobuf"}
WARM_TRACE = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a"
THIS = str(Path(__file__).resolve().parents[1] / "src")


@contextlib.contextmanager
def warm_server(folder: Path, src: str, extra: list[str]) -> Iterator[Server]:
    """``trailcheck serve`` from ``src``, answered one small request before it is measured."""
    with running_server(folder, extra, src=src) as server:
        post(server.url, export_body([(WARM_TRACE, 1)]))
        yield server


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
    return response.status_code, response.text[:120], time.monotonic() - began


def _read(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
    connection.execute("PRAGMA query_only = 1")
    return connection


def stored_count(path: Path, ids: list[str]) -> int:
    found = 0
    with contextlib.closing(_read(path)) as connection:
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            query = f"SELECT count(*) FROM traces WHERE trace_id IN ({marks})"
            found += connection.execute(query, chunk).fetchone()[0]
    return found


def pending_bytes(path: Path) -> tuple[int, int]:
    """The pending rows' count and bytes (their payloads and ids)."""
    query = (
        "SELECT count(*), coalesce(sum(length(payload) + length(trace_id) + length(span_id)), 0)"
        " FROM pending_spans"
    )
    with contextlib.closing(_read(path)) as connection:
        rows, size = connection.execute(query).fetchone()
    return int(rows), int(size)


def wait_stored(path: Path, ids: list[str], guard_s: float = STORE_GUARD_S) -> float | None:
    """Seconds until the store holds every trace of ``ids`` (None: not within ``guard_s``)."""
    began = time.monotonic()
    while time.monotonic() - began < guard_s:
        if stored_count(path, ids) == len(ids):
            return time.monotonic() - began
        time.sleep(0.05)
    return None


@dataclass
class MemoryFigures:
    status: int
    answer_s: float
    before: int
    peak: int
    rows: int
    row_bytes: int
    stored_s: float | None


def memory(src: str, requests: list[tuple[list[str], bytes]], extra: list[str]) -> MemoryFigures:
    """The figures of the ``requests`` (trace ids, body) posted at once, each from a thread;
    the answer is the slowest one's."""
    with (
        tempfile.TemporaryDirectory() as folder,
        warm_server(Path(folder), src, extra) as server,
    ):
        before, _ = rss(server.pid)
        answers: list[tuple[int, str, float]] = []
        posters = [
            threading.Thread(target=lambda b=body: answers.append(post(server.url, b)))
            for _, body in requests
        ]
        for poster in posters:
            poster.start()
        for poster in posters:
            poster.join()
        status, _, answer_s = max(answers, key=lambda answer: (answer[0], answer[2]))
        rows, row_bytes = pending_bytes(server.path)
        stored_s = wait_stored(server.path, [i for ids, _ in requests for i in ids])
        _, peak = rss(server.pid)
    stored = None if stored_s is None else answer_s + stored_s
    return MemoryFigures(status, answer_s, before, peak, rows, row_bytes, stored)


@dataclass
class GoodTrace:
    posted_s: float
    during: bool
    status: int
    answer_s: float
    stored_s: float | None


@dataclass
class LineFigures:
    status: int = 0
    answer_s: float = 0.0
    goods: dict[int, GoodTrace] = field(default_factory=dict)
    all_stored_s: float | None = None
    kept: int = 0


def head_of_line(
    src: str, ids: list[str], body: bytes, good_after: list[float], guard_s: float, extra: list[str]
) -> LineFigures:
    figures = LineFigures()
    with (
        tempfile.TemporaryDirectory() as folder,
        warm_server(Path(folder), src, extra) as server,
    ):
        began = time.monotonic()

        def post_big() -> None:
            figures.status, _, figures.answer_s = post(server.url, body)

        big = threading.Thread(target=post_big)
        big.start()

        def post_good(number: int, after_s: float) -> None:
            time.sleep(max(0.0, began + after_s - time.monotonic()))
            good = f"600d{number:028x}"
            posted = time.monotonic() - began
            during = big.is_alive()
            status, _, answer_s = post(server.url, export_body([(good, 1)]))
            stored_s = wait_stored(server.path, [good], guard_s)
            stored = None if stored_s is None else answer_s + stored_s
            figures.goods[number] = GoodTrace(posted, during, status, answer_s, stored)

        posters = [
            threading.Thread(target=post_good, args=(number, after_s))
            for number, after_s in enumerate(sorted(good_after), start=1)
        ]
        for poster in posters:
            poster.start()
        for poster in posters:
            poster.join()
        big.join()
        left_s = max(1.0, guard_s - (time.monotonic() - began))
        if wait_stored(server.path, ids, left_s) is not None:
            figures.all_stored_s = time.monotonic() - began
        figures.kept = stored_count(server.path, ids)
    return figures


def _s(seconds: float | None, guard_s: float) -> str:
    return f"not within {guard_s:.0f} s" if seconds is None else f"{seconds:.2f} s"


def _row(label: str, *cells: str) -> None:
    print(f"  {label:<44}" + "".join(f"{cell:>26}" for cell in cells))


def print_memory(runs: dict[str, MemoryFigures], spans: int, body: bytes, copies: int) -> None:
    span_bytes = len(body) / spans
    how = "one request" if copies == 1 else f"{copies} requests at once, each"
    print(
        f"== (a) {how} of {spans} spans: {len(body) / MiB:.1f} MiB ({span_bytes:.0f} bytes a span)"
    )
    _row("", *runs)
    _row("answer", *(f"{f.status} in {f.answer_s:.1f} s" for f in runs.values()))
    _row("RSS before", *(f"{f.before / MiB:.0f} MiB" for f in runs.values()))
    _row("peak RSS (VmHWM)", *(f"{f.peak / MiB:.0f} MiB" for f in runs.values()))
    _row(
        "pending row per span (payload and ids)",
        *(
            f"{f.row_bytes / f.rows:.0f} B ({f.row_bytes / f.rows / span_bytes:.1f}x)"
            if f.rows
            else "none pending"
            for f in runs.values()
        ),
    )
    _row(
        "every trace stored, from the post", *(_s(f.stored_s, STORE_GUARD_S) for f in runs.values())
    )
    if len(runs) == 2:
        before, after = runs.values()
        print(f"  peak RSS after / before: {after.peak / before.peak:.2f}")


def print_line(runs: dict[str, LineFigures], traces: int, body: bytes, guard_s: float) -> None:
    print(f"== (b) one request of {traces} one-span traces ({len(body) / MiB:.1f} MiB)")
    _row("", *runs)
    _row("big request: answer", *(f"{f.status} in {f.answer_s:.1f} s" for f in runs.values()))
    numbers = sorted(next(iter(runs.values())).goods)
    for number in numbers:
        goods = [f.goods[number] for f in runs.values()]
        _row(
            f"good trace posted {goods[0].posted_s:.1f} s in: answered",
            *(f"{g.status} in {g.answer_s:.2f} s{'' if g.during else ' (after)'}" for g in goods),
        )
        _row("  stored, from its post", *(_s(g.stored_s, guard_s) for g in goods))
    _row(
        "big request's traces all stored",
        *(
            f"{f.all_stored_s:.1f} s" if f.all_stored_s is not None else f"{f.kept} within guard"
            for f in runs.values()
        ),
    )
    print("  (after): the big request had been answered when this good trace was posted")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", help="the src folder of an earlier checkout, run first")
    parser.add_argument("--spans", type=int, default=200_000)
    parser.add_argument("--spans-per-trace", type=int, default=100)
    parser.add_argument("--copies", type=int, default=1, help="such requests posted at once")
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument(
        "--good-after", type=float, nargs="+", default=[0.5, 1.5, 4.0, 8.0], help="seconds"
    )
    parser.add_argument("--guard", type=float, default=120.0, help="seconds to wait for storage")
    parser.add_argument("--only", choices=("memory", "head-of-line"))
    parser.add_argument("serve_args", nargs="*", help="after --: options for trailcheck serve")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        raise SystemExit("reads /proc: Linux only")
    sources = {"before": args.baseline} if args.baseline else {}
    sources["after" if args.baseline else "this checkout"] = THIS
    print(f"servers from {', '.join(f'{k}: {v}' for k, v in sources.items())}")
    if args.only in (None, "memory"):
        requests = []
        for copy in range(args.copies):
            ids = trace_ids(args.spans // args.spans_per_trace, 0xB16 + copy)
            requests.append((ids, export_body([(i, args.spans_per_trace) for i in ids])))
        figures = {k: memory(src, requests, args.serve_args) for k, src in sources.items()}
        print_memory(figures, args.spans, requests[0][1], args.copies)
    if args.only in (None, "head-of-line"):
        ids = trace_ids(args.traces, 0xF100D)
        body = export_body([(trace_id, 1) for trace_id in ids])
        lines = {
            k: head_of_line(src, ids, body, args.good_after, args.guard, args.serve_args)
            for k, src in sources.items()
        }
        print_line(lines, args.traces, body, args.guard)


if __name__ == "__main__":
    main()
