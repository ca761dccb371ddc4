"""Online scoring speed: the worker's deterministic evaluators against ingest, the queue's lag
while traffic arrives, and the worker's memory as the store grows (issue 36, item 6).

N synthetic support traces (``TraceBuilder``: a model call, ``lookup_order``, for about four in
five ``verify_identity``, then ``issue_refund``; random-looking W3C trace ids, seeded) go into a
fresh store: a SQLite file in a temporary folder, and a fresh schema on the PostgreSQL server at
``$TRAILCHECK_TEST_POSTGRES_URL`` when it is set (``source scripts/postgres-start.sh``), else
that backend is said to be skipped. Three deterministic evaluators, each at ``sampling: 1``:
the rule ``refund_without_identity_check``, the policy ``must_precede verify_identity before
issue_refund``, and the ``efficiency`` scorer.

- **rates**, medians over ``--rounds``, each round in a fresh store: ``Store.ingest`` of the N
  traces (``bulk``: COPY on PostgreSQL), the baseline; then for each evaluator, its own work
  (**alone**: decode each stored trace, ``evaluate_deterministic``; no queue) and the worker
  scoring the same traces (``OnlineWorker.run_once()``: plan, claim, score, record each
  execution). Printed as traces/s and two ratios of traces/s: to ingest's (the issue asks >= 1:
  the worker keeps up with ingest) and to the evaluator's alone (what the queue leaves of it).
  "The three" is one worker pass per evaluator, one after another: what a worker with all three
  does per trace.
- **lag**, medians over rounds of one run each: a worker with the three evaluators runs passes
  in a thread (``OnlineWorker.run(stop)``, waiting ``--poll`` s after an idle pass, as
  ``online run`` does), on its own connection, while ``--lag-traces`` traces are ingested in
  chunks of ``--chunk``: flat out, then paced at half the rate of "the three" (or
  ``--arrival-rate``). The lag is now minus the oldest trace not yet scored by every evaluator:
  a due job (``online_status(...).evaluators[i].lag_s``) or a trace not yet planned (after the
  evaluator's cursor). Printed: its median and max sampled after each chunk, its max sampled
  every 0.25 s after the last chunk while the worker catches up, and how long after the last
  chunk every trace was scored (or that it was not within ``--drain-timeout``).
- **memory**, one run: the store grows to each size (10%, 50% and 100% of ``--max-traces``, or
  ``--sizes``) and at each a new process scores the whole store with the rule under a new name
  (so all of it is due at once): its RSS before the pass and its peak during it (Linux: the peak
  is reset before the pass through ``/proc/self/clear_refs``; elsewhere ``ru_maxrss``, imports
  included). Flat means the worker's memory does not grow with the store; the traces/s column
  shows whether its speed does not fall either.

::

    uv run python benchmarks/online_speed.py                               # a few minutes
    uv run python benchmarks/online_speed.py --traces 1000 --rounds 1 --lag-traces 500 \\
        --max-traces 5000                                                  # quick
    uv run python benchmarks/online_speed.py --parts memory --backends sqlite \\
        --sizes 10000 100000 1000000                                       # 1M traces (~1 h)
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine, create_engine, func, select, text
from sqlalchemy.engine import make_url

from trailcheck.loop import builtin_rules
from trailcheck.online import Evaluator, OnlineConfig
from trailcheck.online.evaluate import evaluate_deterministic
from trailcheck.online.results import online_status
from trailcheck.online.worker import OnlineWorker, PassSummary
from trailcheck.store import Store, schema
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

POSTGRES_URL_ENV = "TRAILCHECK_TEST_POSTGRES_URL"
GENERATE_CHUNK = 5_000


# --- the traffic and the evaluators ---------------------------------------------------------


def support_trace(number: int, rng: random.Random) -> Trace:
    """A refund: a W3C trace id as a tracer makes one (random 128 bits), the identity checked
    before the refund in about four traces of five."""
    trace_id = f"{rng.getrandbits(128) | 1:032x}"
    order = f"A-{number}"
    builder = (
        TraceBuilder(trace_id, input=f"Please refund order {order}")
        .llm("Let me look the order up.", input_tokens=180, output_tokens=14)
        .tool("lookup_order", {"order_id": order}, result={"order_id": order, "total": 42.5})
    )
    if rng.random() < 0.8:
        builder = builder.tool("verify_identity", {"customer": f"c-{number}"}, result={"ok": True})
    return (
        builder.tool("issue_refund", {"order_id": order, "amount": 42.5}, result={"ok": True})
        .output(f"Refunded 42.50 for order {order}.")
        .build()
    )


def traffic(start: int, stop: int, seed: int) -> list[Trace]:
    rng = random.Random(seed * 1_000_003 + start)
    return [support_trace(number, rng) for number in range(start, stop)]


def evaluators() -> list[Evaluator]:
    return [
        Evaluator(name="refund-rule", rule="refund_without_identity_check"),
        Evaluator.model_validate(
            {
                "name": "refund-policy",
                "policy": [
                    {"name": "must_precede", "tool": "verify_identity", "before": "issue_refund"}
                ],
            }
        ),
        Evaluator.model_validate({"name": "efficiency", "scorer": "efficiency"}),
    ]


# --- stores ---------------------------------------------------------------------------------


@contextmanager
def fresh_store(backend: str, folder: Path) -> Iterator[str]:
    """An empty store's URL: a new SQLite file, or a new PostgreSQL schema (dropped after)."""
    if backend == "sqlite":
        path = folder / f"online-{uuid.uuid4().hex[:8]}.db"
        try:
            yield f"sqlite:///{path}"
        finally:
            for leftover in folder.glob(f"{path.name}*"):
                leftover.unlink()
        return
    base = os.environ[POSTGRES_URL_ENV]
    name = f"bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{name}"'))
    try:
        scoped = make_url(base).update_query_dict({"options": f"-csearch_path={name}"})
        yield scoped.render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{name}" CASCADE'))
        admin.dispose()


def ingest(store: Store, traces: Sequence[Trace]) -> float:
    began = time.perf_counter()
    summary = store.ingest(traces, bulk=True)
    seconds = time.perf_counter() - began
    assert summary.stored == len(traces), summary
    return seconds


def score(store: Store, chosen: Sequence[Evaluator]) -> tuple[float, PassSummary]:
    worker = OnlineWorker(store, OnlineConfig(evaluators=list(chosen)))
    began = time.perf_counter()
    summary = worker.run_once()
    return time.perf_counter() - began, summary


# --- rates ----------------------------------------------------------------------------------


@dataclass
class Rates:
    ingest_s: list[float] = field(default_factory=list)
    alone_s: dict[str, list[float]] = field(default_factory=dict)
    worker_s: dict[str, list[float]] = field(default_factory=dict)


def evaluate_alone(contents: Sequence[str], evaluator: Evaluator) -> float:
    """The evaluator's own work on every stored trace: decode it, evaluate it; no queue."""
    rules = {rule.name: rule for rule in builtin_rules()}
    began = time.perf_counter()
    for content in contents:
        evaluate_deterministic(evaluator, Trace.model_validate_json(content), rules)
    return time.perf_counter() - began


def measure_rates(backend: str, folder: Path, traces: Sequence[Trace], rounds: int) -> Rates:
    rates = Rates()
    for number in range(rounds):
        with fresh_store(backend, folder) as url, Store.open(url) as store:
            rates.ingest_s.append(ingest(store, traces))
            contents = [content for page in store.content_pages() for content in page]
            for evaluator in evaluators():
                alone = evaluate_alone(contents, evaluator)
                seconds, summary = score(store, [evaluator])
                assert summary.scored == len(traces), summary
                rates.alone_s.setdefault(evaluator.name, []).append(alone)
                rates.worker_s.setdefault(evaluator.name, []).append(seconds)
        worked = ", ".join(f"{name} {s[-1]:.2f} s" for name, s in rates.worker_s.items())
        print(f"  round {number + 1}: ingest {rates.ingest_s[-1]:.2f} s, {worked}", file=sys.stderr)
    return rates


def print_rates(rates: Rates, count: int) -> float:
    """Prints the table; returns the rate of the three evaluators' worker passes together."""
    ingest_s = statistics.median(rates.ingest_s)
    print(f"{'':34} {'seconds':>8} {'traces/s':>9} {'/ ingest':>9} {'/ alone':>8}")
    print(f"{'ingest (Store.ingest)':34} {ingest_s:8.2f} {count / ingest_s:9,.0f} {1:9.2f}")
    kinds = {evaluator.name: evaluator.kind for evaluator in evaluators()}
    together = 0.0
    for name, samples in rates.worker_s.items():
        worker_s, alone_s = statistics.median(samples), statistics.median(rates.alone_s[name])
        together += worker_s
        label = f"{name} ({kinds[name]})"
        rate = count / alone_s
        print(f"{label + ': alone':34} {alone_s:8.2f} {rate:9,.0f} {ingest_s / alone_s:9.2f}")
        ratio = ingest_s / worker_s
        print(
            f"{label + ': worker':34} {worker_s:8.2f} {count / worker_s:9,.0f} {ratio:9.3f}"
            f" {alone_s / worker_s:8.3f}  {'keeps up' if ratio >= 1 else 'falls behind'}"
        )
    ratio = ingest_s / together
    print(
        f"{'the three, worker':34} {together:8.2f} {count / together:9,.0f} {ratio:9.3f}"
        f" {'':8}  {'keeps up' if ratio >= 1 else 'falls behind'}"
    )
    return count / together


# --- lag ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LagOptions:
    chunk: int
    poll_s: float
    drain_timeout_s: float
    arrival_rate: float | None = None  # traces/s; None: flat out


@dataclass
class Lag:
    after_chunks_s: list[float]  # sampled after each chunk was ingested
    catching_up_s: list[float]  # sampled while the worker caught up, after the last chunk
    caught_up_s: float | None  # after the last chunk; None: not within the timeout
    waiting: int  # traces not yet scored by every evaluator when the wait ended


def queue_lag(engine: Engine, versions: Sequence[tuple[str, str]], now_ns: int) -> float:
    """Now minus the oldest trace some evaluator has not scored: a due job, or a trace after
    the evaluator's cursor (not planned yet)."""
    status = online_status(engine, now_ns=now_ns, versions=versions)
    oldest = [now_ns - int(e.lag_s * 1e9) for e in status.evaluators if e.lag_s is not None]
    cursors, traces = schema.online_cursors, schema.traces
    with engine.connect() as connection:
        for name, version in versions:
            cursor = connection.execute(
                select(cursors.c.last_seq).where(
                    (cursors.c.name == name) & (cursors.c.version == version)
                )
            ).scalar_one_or_none()
            first = connection.execute(
                select(traces.c.ingested_ns)
                .where(traces.c.seq > (cursor or 0))
                .order_by(traces.c.seq)
                .limit(1)
            ).scalar_one_or_none()
            if first is not None:
                oldest.append(int(first))
    return max(0, now_ns - min(oldest)) / 1e9 if oldest else 0.0


def unscored(engine: Engine, versions: Sequence[tuple[str, str]], total: int) -> int:
    """How many of the ``total`` stored traces some evaluator has not yet finished."""
    jobs = schema.online_jobs
    finished = jobs.c.state.in_(("scored", "skipped", "failed", "quarantined"))
    query = (
        select(jobs.c.name, jobs.c.version, func.count())
        .where(finished)
        .group_by(jobs.c.name, jobs.c.version)
    )
    with engine.connect() as connection:
        done = {(name, version): int(count) for name, version, count in connection.execute(query)}
    return max(total - done.get(version, 0) for version in versions)


@contextmanager
def worker_thread(
    url: str, chosen: Sequence[Evaluator], poll_s: float
) -> Iterator[Callable[[], None]]:
    """A worker running passes in a thread (as ``serve --online`` runs one beside the
    receiver), on its own store connection, until the block ends; yields a check that raises
    what the worker raised."""
    failures: list[BaseException] = []
    stop = threading.Event()

    def work() -> None:
        try:
            with Store.open(url) as store:
                OnlineWorker(store, OnlineConfig(evaluators=list(chosen))).run(stop, poll_s=poll_s)
        except BaseException as error:  # raised again in the main thread by check()
            failures.append(error)
            raise

    def check() -> None:
        if failures:
            raise RuntimeError("the online worker failed") from failures[0]

    thread = threading.Thread(target=work, name="online-worker")
    thread.start()
    try:
        yield check
    finally:
        stop.set()
        thread.join()
    check()


def measure_lag(url: str, traces: Sequence[Trace], options: LagOptions) -> Lag:
    chosen = evaluators()
    versions = [(evaluator.name, evaluator.version) for evaluator in chosen]
    with Store.open(url) as store, worker_thread(url, chosen, options.poll_s) as check:
        after_chunks = []
        began = time.perf_counter()
        for start in range(0, len(traces), options.chunk):
            if options.arrival_rate:  # the chunk arrives on time at the paced rate
                time.sleep(max(0.0, began + start / options.arrival_rate - time.perf_counter()))
            ingest(store, traces[start : start + options.chunk])
            after_chunks.append(queue_lag(store.engine, versions, time.time_ns()))
            check()
        last = time.perf_counter()
        catching_up = []
        waiting = unscored(store.engine, versions, len(traces))
        while waiting and time.perf_counter() < last + options.drain_timeout_s:
            catching_up.append(queue_lag(store.engine, versions, time.time_ns()))
            check()
            time.sleep(0.25)
            waiting = unscored(store.engine, versions, len(traces))
        caught_up = None if waiting else time.perf_counter() - last
    return Lag(after_chunks, catching_up or [0.0], caught_up, waiting)


def print_lag(label: str, runs: Sequence[Lag], options: LagOptions) -> None:
    median = statistics.median(statistics.median(run.after_chunks_s) for run in runs)
    highest = statistics.median(max(run.after_chunks_s) for run in runs)
    catching_up = statistics.median(max(run.catching_up_s) for run in runs)
    caught_up = [run.caught_up_s for run in runs]
    if all(seconds is not None for seconds in caught_up):
        end = f"{statistics.median(s for s in caught_up if s is not None):8.1f} s"
    else:
        left = max(run.waiting for run in runs)
        end = f"not within {options.drain_timeout_s:.0f} s ({left:,} traces waiting)"
    print(f"{label:28} {median:8.2f} {highest:8.2f} {catching_up:8.2f}   {end}")


# --- memory ---------------------------------------------------------------------------------


def memory_child(url: str, name: str) -> None:
    """In its own process: score the whole store with the rule under ``name``; prints seconds,
    traces scored, the RSS before the pass and the peak RSS during it (KiB)."""
    rule = Evaluator(name=name, rule="refund_without_identity_check")
    with Store.open(url, must_exist=True) as store:
        worker = OnlineWorker(store, OnlineConfig(evaluators=[rule]))
        before = reset_peak_rss()
        began = time.perf_counter()
        summary = worker.run_once()
        seconds = time.perf_counter() - began
        peak = peak_rss()
    print(f"{seconds} {summary.scored} {before} {peak}")


def _status_kib(key: str) -> int | None:
    status = Path("/proc/self/status")
    if not status.exists():
        return None
    for line in status.read_text(encoding="ascii").splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1])
    return None


def reset_peak_rss() -> int:
    """The RSS now (KiB), after resetting the peak to it where Linux allows (``clear_refs``),
    so that the peak read after the pass is the pass's own, not the imports'."""
    try:
        Path("/proc/self/clear_refs").write_text("5", encoding="ascii")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return _status_kib("VmRSS") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def peak_rss() -> int:
    """The peak RSS (KiB) since :func:`reset_peak_rss`, else since the process started."""
    return _status_kib("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def measure_memory(backend: str, folder: Path, sizes: Sequence[int], seed: int) -> None:
    print(
        f"{'store':>10} {'seconds':>8} {'traces/s':>9} {'RSS before':>11} {'peak in the pass':>17}"
    )
    peaks = []
    with fresh_store(backend, folder) as url, Store.open(url) as store:
        stored = 0
        for size in sizes:
            for start in range(stored, size, GENERATE_CHUNK):
                ingest(store, traffic(start, min(size, start + GENERATE_CHUNK), seed))
            stored = size
            command = [sys.executable, __file__, "--memory-child", url, f"memory-{size}"]
            output = subprocess.run(command, check=True, capture_output=True, text=True)
            seconds, scored, before, peak = output.stdout.split()
            assert int(scored) == size, output.stdout
            peaks.append(int(peak) / 1024)
            print(
                f"{size:10,} {float(seconds):8.1f} {size / float(seconds):9,.0f}"
                f" {int(before) / 1024:7.0f} MiB {peaks[-1]:13.0f} MiB"
            )
    growth = peaks[-1] - peaks[0]
    print(f"peak RSS {growth:+.1f} MiB from {sizes[0]:,} to {sizes[-1]:,} traces")


# --- the run --------------------------------------------------------------------------------


def backends_to_run(asked: Sequence[str]) -> list[str]:
    chosen = []
    for backend in asked:
        if backend == "postgresql" and not os.environ.get(POSTGRES_URL_ENV):
            print(f"postgresql: skipped, {POSTGRES_URL_ENV} is not set")
            continue
        chosen.append(backend)
    return chosen


def run_backend(backend: str, args: argparse.Namespace, folder: Path) -> None:
    print(f"\n== {backend} ==")
    worker_rate = None
    if "rates" in args.parts:
        print(f"rates: {args.traces:,} traces, {args.rounds} rounds, medians")
        traces = traffic(0, args.traces, args.seed)
        worker_rate = print_rates(measure_rates(backend, folder, traces, args.rounds), args.traces)
    if "lag" in args.parts:
        traces = traffic(0, args.lag_traces, args.seed)
        print(
            f"lag: {args.lag_traces:,} traces in chunks of {args.chunk}, the three evaluators,"
            f" poll {args.poll} s, {args.rounds} rounds, medians"
        )
        paced = args.arrival_rate or (worker_rate / 2 if worker_rate else None)
        plans: list[tuple[str, LagOptions]] = [
            ("flat out", LagOptions(args.chunk, args.poll, args.drain_timeout))
        ]
        if paced:
            plans.append(
                (
                    f"paced, {paced:,.0f} traces/s",
                    LagOptions(args.chunk, args.poll, args.drain_timeout, paced),
                )
            )
        print(f"{'lag (s)':28} {'median':>8} {'max':>8} {'then max':>8}   caught up after")
        for label, options in plans:
            runs = []
            for _ in range(args.rounds):
                with fresh_store(backend, folder) as url:
                    runs.append(measure_lag(url, traces, options))
            print_lag(label, runs, options)
    if "memory" in args.parts:
        sizes = args.sizes or sorted(
            {max(1, args.max_traces // 10), args.max_traces // 2, args.max_traces}
        )
        print("memory: the rule over the whole store, a new process per size, one run")
        measure_memory(backend, folder, sizes, args.seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--traces", type=int, default=5_000, help="traces in the rates part")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--parts", nargs="+", choices=("rates", "lag", "memory"), default=("rates", "lag", "memory")
    )
    parser.add_argument(
        "--backends", nargs="+", choices=("sqlite", "postgresql"), default=("sqlite", "postgresql")
    )
    parser.add_argument("--lag-traces", type=int, default=2_000)
    parser.add_argument(
        "--chunk", type=int, default=100, help="traces ingested at once in the lag part"
    )
    parser.add_argument(
        "--poll", type=float, default=1.0, help="the worker's wait after an idle pass"
    )
    parser.add_argument(
        "--arrival-rate", type=float, help="the paced run's traces/s (default: half the worker's)"
    )
    parser.add_argument("--drain-timeout", type=float, default=600.0)
    parser.add_argument(
        "--max-traces", type=int, default=20_000, help="the memory part's largest store"
    )
    parser.add_argument("--sizes", type=int, nargs="+", help="the memory part's store sizes")
    parser.add_argument("--memory-child", nargs=2, metavar=("URL", "NAME"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(*args.memory_child)
        return
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    print(f"online_speed: {os.cpu_count()} cores, load {' '.join(load)}")
    with tempfile.TemporaryDirectory(prefix="trailcheck-online-") as folder:
        for backend in backends_to_run(args.backends):
            run_backend(backend, args, Path(folder))


if __name__ == "__main__":
    main()
