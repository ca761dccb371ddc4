"""Prune speed: ``Store.prune`` over a store of N generated traces, half of them past the age,
while a writer ingests new traces beside it, against one ``DELETE`` of the same traces in one
transaction (the long lock a prune must not take), on SQLite and on PostgreSQL.

Each round builds a fresh store (a SQLite file; a new schema on the PostgreSQL server at
``--db`` or ``$TRAILCHECK_TEST_POSTGRES_URL``): N three-span traces, copies of one built trace
under new ids and times (``Store.ingest``, COPY on PostgreSQL), the first half started 60 days
before "now" and the second half 1 day before; among the old, 1% carry a person's note, 1% a
person's label, 1% a rule's finding (which holds nothing) and 1% are the sources of a candidate
case of a dataset recorded in the store. Then, for each method, a writer thread ingests fresh
traces, 20 per transaction (``Store.ingest``, as the OTLP receiver's sweep does), from before the
deletion starts until it ends, timing each of its transactions:

- **prune**: ``Store.prune(Retention("30d"), batch_size=B)``: batches in their own
  transactions, each asking what holds its traces and deleting every row they own;
- **one DELETE**: the same traces' spans, findings and ``traces`` rows deleted by three
  statements in one transaction (the held ids excluded), no holds asked, no log.

After each, the store is checked: exactly the old traces nothing holds are gone (every new,
held and freshly ingested trace is there), and the writer met no error. Prints, per backend,
the medians: traces deleted per second, and the writer's traces stored meanwhile and its
longest and 99th-percentile transaction (how long a prune can hold it up). The writer runs
flat out (a transaction as soon as the last committed), or paced at ``--writer-rate`` traces/s::

    uv run python benchmarks/prune_speed.py --traces 100000   # and $TRAILCHECK_TEST_POSTGRES_URL
    uv run python benchmarks/prune_speed.py --traces 100000 --writer-rate 500
    uv run python benchmarks/prune_speed.py --traces 10000 --backends sqlite   # quick
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from sqlalchemy import Connection, create_engine, delete, insert, text
from sqlalchemy.engine import make_url

from trailcheck.cases import Case, Dataset
from trailcheck.store import Retention, Store, schema
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

DAY_NS = 86_400 * 10**9
NOW_NS = 1_790_000_000 * 10**9
WRITER_BATCH = 20
HELD_EVERY = 100  # 1% of the old traces for each kind of row
GUARD_S = 600.0


def _template() -> Trace:
    return (
        TraceBuilder("template", input="Where is my order A-1?")
        .tool("lookup_order", {"order_id": "A-1"}, result={"status": "delivered"})
        .output("It was delivered.")
        .build()
    )


TEMPLATE = _template()


def copy_trace(trace_id: str, start_ns: int) -> Trace:
    """The template under ``trace_id``, its spans moved to start at ``start_ns``."""
    shift = start_ns - TEMPLATE.spans[0].start_ns
    spans = [
        span.model_copy(
            update={
                "trace_id": trace_id,
                "start_ns": span.start_ns + shift,
                "end_ns": None if span.end_ns is None else span.end_ns + shift,
            }
        )
        for span in TEMPLATE.spans
    ]
    return TEMPLATE.model_copy(update={"trace_id": trace_id, "spans": spans})


@dataclass
class Built:
    """What a generated store holds: the old ids held, and those that should go."""

    held: set[str] = field(default_factory=set)
    doomed: set[str] = field(default_factory=set)
    kept: set[str] = field(default_factory=set)


def build_store(store: Store, traces: int) -> Built:
    """N traces, half old, 1% of the old with each kind of row (see the module)."""
    built = Built()
    half = traces // 2
    old = [f"old-{n:07d}" for n in range(half)]
    new = [f"new-{n:07d}" for n in range(traces - half)]
    for start in range(0, half, 10_000):
        chunk = old[start : start + 10_000]
        store.ingest(
            [copy_trace(t, NOW_NS - 60 * DAY_NS + n) for n, t in enumerate(chunk)], bulk=True
        )
    for start in range(0, len(new), 10_000):
        chunk = new[start : start + 10_000]
        store.ingest([copy_trace(t, NOW_NS - DAY_NS + n) for n, t in enumerate(chunk)], bulk=True)
    noted, labelled = old[0::HELD_EVERY], old[1::HELD_EVERY]
    ruled, cited = old[2::HELD_EVERY], old[3::HELD_EVERY]
    with store.engine.begin() as connection:
        _insert(connection, schema.notes, [_note(t) for t in noted])
        _insert(connection, schema.findings, [_finding(t, "human:ana") for t in labelled])
        _insert(connection, schema.findings, [_finding(t, "rule:slow") for t in ruled])
    cases = [
        Case.model_validate({"id": f"c{n}", "input": "hi", "source_trace_ids": cited[n : n + 10]})
        for n in range(0, len(cited), 10)
    ]
    store.save_dataset(Dataset(name="shop", cases=cases))
    built.held = {*noted, *labelled, *cited}
    built.doomed = set(old) - built.held
    built.kept = set(new) | built.held
    return built


def _insert(connection: Connection, table: object, rows: list[dict[str, object]]) -> None:
    if rows:
        connection.execute(insert(table), rows)  # type: ignore[arg-type]


def _note(trace_id: str) -> dict[str, object]:
    return {"trace_id": trace_id, "text": "odd", "author": "ana", "created_ns": NOW_NS}


def _finding(trace_id: str, source: str) -> dict[str, object]:
    return {
        "trace_id": trace_id,
        "label": "slow",
        "severity": "low",
        "reason": "slow",
        "evidence": "[]",
        "source": source,
        "created_ns": NOW_NS,
    }


@dataclass
class Writer:
    """Ingests fresh traces ``WRITER_BATCH`` per transaction until stopped, timing each."""

    url: str
    prefix: str
    rate: float = 0.0
    stop: threading.Event = field(default_factory=threading.Event)
    first: threading.Event = field(default_factory=threading.Event)
    seconds: list[float] = field(default_factory=list)
    stored: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def run(self) -> None:
        try:
            with Store.open(self.url) as store:
                n = 0
                start = time.perf_counter()
                while not self.stop.is_set():
                    if self.rate:  # paced: the next transaction's turn, at rate traces/s
                        turn = start + n / self.rate - time.perf_counter()
                        if turn > 0 and self.stop.wait(turn):
                            break
                    ids = [f"{self.prefix}-{n + i:07d}" for i in range(WRITER_BATCH)]
                    began = time.perf_counter()
                    summary = store.ingest([copy_trace(t, NOW_NS) for t in ids])
                    self.seconds.append(time.perf_counter() - began)
                    if summary.stored != len(ids):
                        self.errors.append(f"stored {summary.stored} of {len(ids)}")
                    self.stored += ids
                    self.first.set()
                    n += WRITER_BATCH
        except Exception as error:  # noqa: BLE001 - what the writer met is the finding
            self.errors.append(f"{type(error).__name__}: {error}")
            self.first.set()


@dataclass
class Measured:
    seconds: float
    deleted: int
    writer_traces: int
    writer_max_s: float
    writer_p99_s: float


def beside_a_writer(
    url: str, prefix: str, work: Callable[[], int], built: Built, rate: float
) -> Measured:
    """Run ``work`` (it returns how many traces it deleted) while a writer ingests (``rate``
    traces/s, 0: flat out); check the store afterwards."""
    writer = Writer(url, prefix, rate)
    thread = threading.Thread(target=writer.run)
    thread.start()
    if not writer.first.wait(GUARD_S):
        sys.exit("the writer stored nothing")
    began = time.perf_counter()
    deleted = work()
    seconds = time.perf_counter() - began
    writer.stop.set()
    thread.join(GUARD_S)
    if writer.errors:
        sys.exit(f"{prefix}: the writer met errors: {writer.errors[:3]}")
    with Store.open(url) as store, store.engine.connect() as connection:
        left = set(connection.scalars(text("SELECT trace_id FROM traces")))
    expected = built.kept | set(writer.stored)
    if left != expected or deleted != len(built.doomed):
        sys.exit(
            f"{prefix}: deleted {deleted}, expected {len(built.doomed)}; left {len(left)},"
            f" expected {len(expected)} ({len(left - expected)} unexpected,"
            f" {len(expected - left)} missing)"
        )
    waits = sorted(writer.seconds)
    return Measured(
        seconds=seconds,
        deleted=deleted,
        writer_traces=len(writer.stored),
        writer_max_s=waits[-1],
        writer_p99_s=waits[min(len(waits) - 1, int(len(waits) * 0.99))],
    )


def one_delete(store: Store, built: Built) -> int:
    """The baseline: the same traces deleted by three statements in one transaction."""
    cutoff = NOW_NS - 30 * DAY_NS
    held = sorted(built.held)
    traces, spans, findings = schema.traces, schema.spans, schema.findings
    doomed = (
        traces.select()
        .with_only_columns(traces.c.trace_id)
        .where(traces.c.start_key < cutoff, traces.c.trace_id.not_in(held))
    )
    with store.engine.begin() as connection:
        connection.execute(delete(spans).where(spans.c.trace_id.in_(doomed)))
        connection.execute(delete(findings).where(findings.c.trace_id.in_(doomed)))
        return connection.execute(delete(traces).where(traces.c.trace_id.in_(doomed))).rowcount


@contextmanager
def fresh_store(backend: str, pg_url: str | None, folder: Path) -> Iterator[str]:
    """A new, empty store's URL: a SQLite file, or a schema on the PostgreSQL server."""
    if backend == "sqlite":
        path = folder / f"{uuid.uuid4().hex}.db"
        yield f"sqlite:///{path}"
        return
    assert pg_url is not None
    name = f"bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(make_url(pg_url), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{name}"'))
    scoped = make_url(pg_url).update_query_dict({"options": f"-csearch_path={name}"})
    try:
        yield scoped.render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{name}" CASCADE'))
        admin.dispose()


def one_round(
    backend: str, pg_url: str | None, folder: Path, args: argparse.Namespace
) -> dict[str, Measured]:
    measured: dict[str, Measured] = {}
    for method in ("prune", "one DELETE"):
        with fresh_store(backend, pg_url, folder) as url, Store.open(url) as store:
            built = build_store(store, args.traces)
            work = partial(_delete, method, store, built, args.batch_size)
            prefix = method.replace(" ", "-")
            measured[method] = beside_a_writer(url, prefix, work, built, args.writer_rate)
    return measured


def _delete(method: str, store: Store, built: Built, batch_size: int) -> int:
    if method == "one DELETE":
        return one_delete(store, built)
    summary = store.prune(Retention("30d"), now_ns=NOW_NS, batch_size=batch_size)
    return summary.deleted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--writer-rate", type=float, default=0.0, help="the writer's traces/s (0: flat out)"
    )
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--db", default=os.environ.get("TRAILCHECK_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    backends = [b for b in args.backends if b == "sqlite" or args.db]
    if len(backends) < len(args.backends):
        print("PostgreSQL left out: give --db or set $TRAILCHECK_TEST_POSTGRES_URL")
    print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
    print(
        f"{args.traces:,} traces of 3 spans, half past 30 days ({args.traces // 2:,}), 3% of"
        f" those held; prune batches of {args.batch_size}; writer: {WRITER_BATCH} traces a"
        f" transaction, {f'{args.writer_rate:g} traces/s' if args.writer_rate else 'flat out'};"
        f" median of {args.rounds} round(s)"
    )
    print(
        f"{'backend':<11} {'method':<11} {'deleted':>8} {'seconds':>8} {'traces/s':>9}"
        f" {'writer traces':>13} {'writer max s':>12} {'writer p99 s':>12}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for backend in backends:
            rounds = [one_round(backend, args.db, Path(folder), args) for _ in range(args.rounds)]
            for method in ("prune", "one DELETE"):
                runs = [r[method] for r in rounds]
                seconds = statistics.median(m.seconds for m in runs)
                deleted = runs[0].deleted
                print(
                    f"{backend:<11} {method:<11} {deleted:>8,} {seconds:>8.2f}"
                    f" {deleted / seconds:>9,.0f}"
                    f" {statistics.median(m.writer_traces for m in runs):>13,.0f}"
                    f" {statistics.median(m.writer_max_s for m in runs):>12.3f}"
                    f" {statistics.median(m.writer_p99_s for m in runs):>12.3f}"
                )
    print("no ingest error; every round deleted exactly the old traces nothing holds")
    print(f"load average after: {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
