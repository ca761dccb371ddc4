"""Ingest speed: generated traces into the SQLite store, against a bare ``executemany`` of the
same rows in the same run.

Generates N seeded traces (those of ``import_speed.py``: 12 spans, an agent root, 5 model calls,
5 tool calls with JSON arguments and results, a guard), chunk by chunk so memory holds one chunk,
and for every chunk times, over several rounds, each into its own fresh SQLite file with the
store's schema and settings (WAL, ``synchronous=FULL``):

- **trailcheck**: ``Store.ingest(chunk)``: canonical JSON, content hash and derived columns per
  trace, each span's score as a component call (``trailcheck.components``), the look-up of
  stored ids (no-op or conflict), then the inserts, one transaction per batch of 500 traces;
- **baseline**: the same rows (``trailcheck.store.rows.trace_rows``, the least a store must
  compute: the content to keep, the columns to filter on and the span scores), inserted with a bare
  ``sqlite3`` ``executemany`` per table, one transaction per 500 traces; no look-up, no
  SQLAlchemy. Its row-building and ``executemany`` parts are printed apart.

Prints the medians, traces/s, and the ratio trailcheck / baseline (target <= 1.5), with the
ratio against the ``executemany`` part alone for a reader who wants the raw insert cost::

    uv run python benchmarks/ingest_speed.py --traces 100000 --rounds 3
    uv run python benchmarks/ingest_speed.py --traces 5000 --rounds 2     # quick
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from import_speed import make_trace
from trailcheck.store import Store
from trailcheck.store.rows import trace_rows
from trailcheck.trace import Trace

CHUNK = 2_000
BATCH = 500
TARGET = 1.5


@dataclass
class Round:
    store_s: float = 0.0
    rows_s: float = 0.0
    executemany_s: float = 0.0

    @property
    def baseline_s(self) -> float:
        return self.rows_s + self.executemany_s


def _chunks(total: int) -> list[range]:
    return [range(start, min(total, start + CHUNK)) for start in range(0, total, CHUNK)]


def _generate(indices: range, seed: int) -> list[Trace]:
    rng = random.Random(seed * 1_000_003 + indices.start)
    return [make_trace(index, rng) for index in indices]


def _insert_sql(connection: sqlite3.Connection, table: str) -> str:
    columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
    columns = [column for column in columns if column != "seq"]
    names = ", ".join(columns)
    values = ", ".join(f":{column}" for column in columns)
    return f"INSERT INTO {table} ({names}) VALUES ({values})"


def _baseline_connection(path: Path) -> sqlite3.Connection:
    # The store's schema, made by the store, then written with sqlite3 alone.
    Store.open(f"sqlite:///{path}").close()
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("PRAGMA foreign_keys=ON")
    return connection


def _baseline(
    connection: sqlite3.Connection, traces: list[Trace], sql: tuple[str, str]
) -> tuple[float, float]:
    rows_s = executemany_s = 0.0
    for start in range(0, len(traces), BATCH):
        began = time.perf_counter()
        now = time.time_ns()
        rows = [trace_rows(trace, now) for trace in traces[start : start + BATCH]]
        built = time.perf_counter()
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany(sql[0], [row.trace for row in rows])
        connection.executemany(sql[1], [span for row in rows for span in row.spans])
        connection.execute("COMMIT")
        rows_s += built - began
        executemany_s += time.perf_counter() - built
    return rows_s, executemany_s


def _count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as connection:
        return int(connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def run_round(total: int, seed: int, folder: Path, number: int) -> Round:
    result = Round()
    store_path = folder / f"store-{number}.db"
    baseline_path = folder / f"baseline-{number}.db"
    baseline = _baseline_connection(baseline_path)
    sql = (_insert_sql(baseline, "traces"), _insert_sql(baseline, "spans"))
    with Store.open(f"sqlite:///{store_path}") as store:
        for position, indices in enumerate(_chunks(total)):
            traces = _generate(indices, seed)
            # Alternate who goes first, so neither always meets a warm cache.
            order = ("store", "baseline") if (number + position) % 2 == 0 else ("baseline", "store")
            for contender in order:
                if contender == "store":
                    began = time.perf_counter()
                    summary = store.ingest(traces, batch_size=BATCH)
                    result.store_s += time.perf_counter() - began
                    assert summary.stored == len(traces), summary
                else:
                    rows_s, executemany_s = _baseline(baseline, traces, sql)
                    result.rows_s += rows_s
                    result.executemany_s += executemany_s
    baseline.close()
    for table in ("traces", "spans"):
        stored, bare = _count(store_path, table), _count(baseline_path, table)
        assert stored == bare, f"{table}: store {stored} rows, baseline {bare}"
    store_path.unlink()
    baseline_path.unlink()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rounds: list[Round] = []
    with tempfile.TemporaryDirectory(prefix="trailcheck-ingest-") as folder:
        for number in range(args.rounds):
            rounds.append(run_round(args.traces, args.seed, Path(folder), number))
            latest = rounds[-1]
            print(
                f"round {number + 1}: store {latest.store_s:.2f} s, baseline"
                f" {latest.baseline_s:.2f} s (rows {latest.rows_s:.2f} s +"
                f" executemany {latest.executemany_s:.2f} s)",
                file=sys.stderr,
            )
    n = args.traces
    store_s = statistics.median(r.store_s for r in rounds)
    baseline_s = statistics.median(r.baseline_s for r in rounds)
    rows_s = statistics.median(r.rows_s for r in rounds)
    executemany_s = statistics.median(r.executemany_s for r in rounds)
    print(f"{n} traces of 12 spans into SQLite, {args.rounds} rounds, medians:")
    print(f"trailcheck Store.ingest   {store_s:.2f} s  ({n / store_s:,.0f} traces/s)")
    print(f"baseline rows+executemany {baseline_s:.2f} s  ({n / baseline_s:,.0f} traces/s)")
    print(f"  of which building rows  {rows_s:.2f} s")
    print(f"  of which executemany    {executemany_s:.2f} s  ({n / executemany_s:,.0f} traces/s)")
    ratio = store_s / baseline_s
    verdict = "met" if ratio <= TARGET else "NOT met"
    print(f"ratio store / baseline: {ratio:.2f} (target <= {TARGET}: {verdict})")
    print(f"ratio store / executemany alone: {store_s / executemany_s:.2f}")


if __name__ == "__main__":
    main()
