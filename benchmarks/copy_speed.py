"""Bulk ingest into PostgreSQL: ``COPY`` against ``executemany`` (INSERT), the same traces into a
fresh schema each, through :func:`trailcheck.store.ingest.ingest_traces` (``copy=True`` or not).

Generates N seeded traces (those of ``import_speed.py``: 12 spans each) into a trailcheck JSONL
file, then for each round and each method creates an empty schema with the store's tables and
times ``ingest_traces`` over the traces parsed from the file, 500 per transaction. Both methods
pay the same parsing and row building (canonical JSON, content hash, derived columns), timed
apart as **rows only** and subtracted to show the database's part. Needs a PostgreSQL URL
(``--db`` or ``$TRAILCHECK_TEST_POSTGRES_URL``; ``source scripts/postgres-start.sh`` starts a
throwaway one, with ``fsync=off``)::

    uv run python benchmarks/copy_speed.py --traces 100000 --rounds 2
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from import_speed import make_trace
from trailcheck.store import Store
from trailcheck.store.ingest import ingest_traces
from trailcheck.store.rows import trace_rows
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace

CLOCK = 1_790_000_000_000_000_000


def write_corpus(path: Path, traces: int) -> None:
    rng = random.Random(11)
    with path.open("wb") as stream:
        for index in range(traces):
            stream.write(dump_trace(make_trace(index, rng)) + b"\n")


def read_traces(path: Path) -> Iterator[Trace]:
    with path.open("rb") as stream:
        for line in stream:
            yield Trace.model_validate_json(line)


def rows_only(path: Path) -> float:
    began = time.perf_counter()
    for trace in read_traces(path):
        trace_rows(trace, CLOCK)
    return time.perf_counter() - began


def ingest_once(url: str, path: Path, *, copy: bool) -> float:
    """Seconds to ingest the file into a new, empty schema (dropped afterwards)."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    scoped = make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        with Store.open(scoped.render_as_string(hide_password=False)) as store:
            began = time.perf_counter()
            summary = ingest_traces(store.engine, read_traces(path), clock=lambda: CLOCK, copy=copy)
            seconds = time.perf_counter() - began
        if not summary.ok:
            sys.exit(f"ingest refused traces: {summary.conflicts[:1]} {summary.refused[:1]}")
        return seconds
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--db", default=os.environ.get("TRAILCHECK_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    if not args.db:
        sys.exit("no PostgreSQL: give --db or source scripts/postgres-start.sh")
    print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "traces.jsonl"
        write_corpus(path, args.traces)
        rows_s = statistics.median(rows_only(path) for _ in range(args.rounds))
        times: dict[str, list[float]] = {"executemany": [], "copy": []}
        for _ in range(args.rounds):
            times["executemany"].append(ingest_once(args.db, path, copy=False))
            times["copy"].append(ingest_once(args.db, path, copy=True))
    print(f"{args.traces} traces, 12 spans each; median of {args.rounds} round(s)")
    print(f"rows only (parse + trace_rows, no database): {rows_s:.2f} s")
    print(f"{'method':<12} {'seconds':>8} {'traces/s':>9} {'database part':>14}")
    medians = {method: statistics.median(values) for method, values in times.items()}
    for method, seconds in medians.items():
        print(
            f"{method:<12} {seconds:>8.2f} {args.traces / seconds:>9.0f}"
            f" {seconds - rows_s:>12.2f} s"
        )
    whole = medians["executemany"] / medians["copy"]
    part = (medians["executemany"] - rows_s) / max(medians["copy"] - rows_s, 1e-9)
    print(f"copy is {whole:.2f}x executemany end to end, {part:.2f}x on the database's part")
    print(f"load average after: {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
