"""Detection speed over a stored corpus, and the memory it needs as the corpus grows.

Ingests N generated traces (those of ``import_speed.py``) into a fresh SQLite store once, then,
each in its own subprocess so that peak RSS is the run's own, and over several rounds:

- **detect**: the built-in rules (``trailcheck.loop.builtin_rules``) over
  ``Store.iter_traces()``, streaming, findings counted;
- **baseline**: ``Store.iter_traces()`` alone, every trace read and dropped: the cost of
  getting the traces out, which detection cannot avoid.

Prints traces/s and the ratio detect / baseline (medians), and the peak RSS of detection over
the first tenth of the store and over all of it: streaming means the two are close (memory does
not grow with the number of traces)::

    uv run python benchmarks/detect_speed.py --traces 100000 --rounds 3
    uv run python benchmarks/detect_speed.py --traces 5000 --rounds 2     # quick
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from itertools import islice
from pathlib import Path

from import_speed import make_trace
from trailcheck.loop import builtin_rules, detect
from trailcheck.store import Store
from trailcheck.trace import Trace

CHUNK = 2_000


def fill(url: str, total: int, seed: int) -> None:
    rng = random.Random(seed)
    with Store.open(url) as store:
        for start in range(0, total, CHUNK):
            stop = min(total, start + CHUNK)
            store.ingest([make_trace(index, rng) for index in range(start, stop)])


def measure(url: str, mode: str, limit: int) -> None:
    """Child process: one timed pass; prints seconds, traces, findings and peak RSS (KiB)."""
    rules = builtin_rules()
    with Store.open(url, must_exist=True) as store:
        started = time.perf_counter()
        traces = islice(store.iter_traces(), limit)
        if mode == "detect":
            counted = _Counted(traces)
            findings = sum(1 for _ in detect(counted, rules))
            count = counted.count
        else:
            findings = 0
            count = sum(1 for _ in traces)
        elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{elapsed} {count} {findings} {peak}")


class _Counted:
    """An iterator that counts what passes through it."""

    def __init__(self, items: Iterable[Trace]) -> None:
        self._items = iter(items)
        self.count = 0

    def __iter__(self) -> _Counted:
        return self

    def __next__(self) -> Trace:
        item = next(self._items)
        self.count += 1
        return item


def child(url: str, mode: str, limit: int) -> tuple[float, int, int, int]:
    command = [sys.executable, __file__, "--child", mode, "--url", url, "--limit", str(limit)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout.split()
    seconds, count, findings, peak = output
    return float(seconds), int(count), int(findings), int(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", choices=["detect", "read"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--limit", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        measure(args.url, args.child, args.limit)
        return
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        started = time.perf_counter()
        fill(url, args.traces, args.seed)
        print(f"stored {args.traces} traces in {time.perf_counter() - started:.1f} s")
        detect_s, read_s = [], []
        for _ in range(args.rounds):
            seconds, count, findings, peak_all = child(url, "detect", args.traces)
            detect_s.append(seconds)
            read_s.append(child(url, "read", args.traces)[0])
        tenth = max(1, args.traces // 10)
        peak_tenth = child(url, "detect", tenth)[3]
    detect_median, read_median = statistics.median(detect_s), statistics.median(read_s)
    print(f"detect   {count / detect_median:10.0f} traces/s  ({findings} findings)")
    print(f"baseline {count / read_median:10.0f} traces/s  (Store.iter_traces alone)")
    print(f"ratio detect / baseline: {detect_median / read_median:.2f}")
    print(f"peak RSS: {peak_tenth / 1024:.0f} MiB over {tenth} traces,")
    print(f"          {peak_all / 1024:.0f} MiB over {count} traces")


if __name__ == "__main__":
    main()
