"""A PostgreSQL store at scale: N generated traces ingested with COPY, then ``traces list``
filters and ``trailcheck detect`` streaming over the whole store, with its peak memory.

Generates N seeded traces (those of ``import_speed.py``: 12 spans, 6.6 kB each; one in ten
belongs to one of 100 sessions, s-0, s-10 ... s-990) straight into a fresh schema with
``ingest_traces(copy=True)``, 2,000 per transaction, in two steps: the first tenth, then the rest.
After each step ``trailcheck detect`` runs as a subprocess over the whole store (its wall time and
its peak RSS, workers included: memory must not grow with the store), then, after the last step,
the ``Store.list_traces`` queries behind ``trailcheck traces list`` (first 50 rows) with each
filter, timed over several rounds (median). The schema is dropped at the end. Needs a
PostgreSQL URL (``--db`` or ``$TRAILCHECK_TEST_POSTGRES_URL``; ``source
scripts/postgres-start.sh`` starts a throwaway one)::

    uv run python benchmarks/store_scale.py --traces 1000000
    uv run python benchmarks/store_scale.py --traces 20000          # quick
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from import_speed import make_trace
from trailcheck.store import Store
from trailcheck.store.ingest import ingest_traces
from trailcheck.trace import Trace

BATCH = 2_000
SESSIONS = 1_000


def _traces(start: int, stop: int) -> Iterator[Trace]:
    rng = random.Random(start)
    for index in range(start, stop):
        trace = make_trace(index, rng)
        if index % 10 == 0:
            metadata = {**trace.metadata, "session_id": f"s-{index % SESSIONS}"}
            trace = trace.model_copy(update={"metadata": metadata})
        yield trace


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def ingest(url: str, start: int, stop: int) -> float:
    with Store.open(url) as store:
        began = time.perf_counter()
        summary = ingest_traces(store.engine, _traces(start, stop), batch_size=BATCH, copy=True)
        seconds = time.perf_counter() - began
    if not summary.ok:
        sys.exit(f"ingest refused traces: {summary.conflicts[:1]} {summary.refused[:1]}")
    return seconds


# Runs the command and prints the peak RSS (KiB) of its process tree. A small process of its own:
# a child's peak counts the memory of the process it was forked from, which here is this one,
# grown by the ingest.
_MEASURED = (
    "import resource, subprocess, sys;"
    " subprocess.run(sys.argv[1:], check=True, capture_output=True);"
    " print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def detect(url: str) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of ``trailcheck detect`` (the command or a worker)."""
    command = [sys.executable, "-m", "trailcheck", "detect", "--db", url]
    began = time.perf_counter()
    measured = subprocess.run(
        [sys.executable, "-c", _MEASURED, *command], check=True, capture_output=True, text=True
    )
    seconds = time.perf_counter() - began
    return seconds, int(measured.stdout.split()[-1]) / 1024


def list_queries(store: Store) -> dict[str, Callable[[], object]]:
    middle = datetime.fromtimestamp(1_790_000_000 + 10 * store_size(store) // 2, tz=UTC)
    return {
        "no filter": lambda: store.list_traces(limit=50),
        "--label tool_call_loop (none)": lambda: store.list_traces("tool_call_loop", limit=50),
        "--label refund_without_identity_check": lambda: store.list_traces(
            "refund_without_identity_check", limit=50
        ),
        "--tool issue_refund": lambda: store.list_traces(tool="issue_refund", limit=50),
        "--since (the newer half)": lambda: store.list_traces(since=middle, limit=50),
        "--session s-70": lambda: store.list_traces(session="s-70", limit=50),
    }


def store_size(store: Store) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(text("SELECT count(*) FROM traces")).scalar_one())


def time_lists(url: str, rounds: int) -> dict[str, tuple[float, int]]:
    """Median milliseconds of each query, and the rows it gave."""
    timed: dict[str, tuple[float, int]] = {}
    with Store.open(url) as store:
        for label, query in list_queries(store).items():
            seconds, rows = [], 0
            for _ in range(rounds):
                began = time.perf_counter()
                rows = len(query())  # type: ignore[arg-type]
                seconds.append(time.perf_counter() - began)
            timed[label] = (statistics.median(seconds) * 1000, rows)
    return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--db", default=os.environ.get("TRAILCHECK_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    if not args.db:
        sys.exit("no PostgreSQL: give --db or source scripts/postgres-start.sh")
    schema = f"scale_{uuid.uuid4().hex[:12]}"
    admin = create_engine(args.db, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(args.db).update_query_dict({"options": f"-csearch_path={schema}"})
    scoped = url.render_as_string(hide_password=False)
    try:
        print(f"{args.traces} traces into PostgreSQL with COPY; load {_load()}")
        tenth = max(1, args.traces // 10)
        for start, stop in ((0, tenth), (tenth, args.traces)):
            seconds = ingest(scoped, start, stop)
            print(
                f"ingest {stop - start:>9} traces: {seconds:8.1f} s"
                f" ({(stop - start) / seconds:,.0f} traces/s); load {_load()}"
            )
            seconds, peak = detect(scoped)
            print(
                f"detect over {stop:>9} stored: {seconds:8.1f} s ({stop / seconds:,.0f}"
                f" traces/s), peak RSS {peak:.0f} MiB; load {_load()}"
            )
        for label, (millis, rows) in time_lists(scoped, args.rounds).items():
            print(f"traces list {label:<40} {millis:8.1f} ms  ({rows} rows)")
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


if __name__ == "__main__":
    main()
