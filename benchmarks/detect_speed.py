"""Detection speed over a stored corpus, and the memory it needs as the corpus grows.

Ingests N generated traces (those of ``import_speed.py``) into a fresh SQLite store once, then,
each in its own subprocess so that peak RSS is the run's own, and over several rounds:

- **read**: ``Store.iter_traces()`` alone, every trace read into a Trace and dropped;
- **decode only**: ``Store.content_pages()`` decoded by ``Trace.model_validate_json``: the cost
  of getting the traces out on the path ``trailcheck detect`` takes, which detection cannot avoid;
- **detect, one process**: the built-in rules (``trailcheck.loop.builtin_rules``) over
  ``Store.iter_traces()``, streaming, findings counted;
- **detect, 1 core** and **detect, all cores**: what ``trailcheck detect --workers 1`` and
  ``--workers N`` run (``trailcheck.bulk.detection.detect_pages`` over the store's pages).

Prints traces/s and each ratio to decoding only (medians), and the peak RSS of detection over
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
from trailcheck.bulk import default_workers
from trailcheck.bulk.detection import detect_pages
from trailcheck.loop import builtin_rules, detect
from trailcheck.store import Store
from trailcheck.trace import Trace
from trailcheck.trace.content_gap import GapTally

MODES = {
    "read": "read (Store.iter_traces)",
    "decode": "decode only (content_pages + Trace.model_validate_json)",
    "detect": "detect, one process (detect over iter_traces)",
    "detect-1": "detect, 1 core (trailcheck detect --workers 1)",
    "detect-all": "detect, all cores (trailcheck detect)",
}

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
    pages = max(1, limit // 200)  # the store's page: 200 rows
    with Store.open(url, must_exist=True) as store:
        started = time.perf_counter()
        findings, count = 0, limit
        if mode == "read":
            count = sum(1 for _ in islice(store.iter_traces(), limit))
        elif mode == "decode":
            count = sum(
                1
                for page in islice(store.content_pages(), pages)
                for _ in map(Trace.model_validate_json, page)
            )
        elif mode == "detect":
            counted = _Counted(islice(store.iter_traces(), limit))
            findings = sum(1 for _ in detect(counted, rules))
            count = counted.count
        else:
            workers = 1 if mode == "detect-1" else default_workers()
            chosen = islice(store.content_pages(), pages)
            findings = sum(1 for _ in detect_pages(chosen, rules, GapTally(), workers=workers))
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
    parser.add_argument("--child", choices=list(MODES), help=argparse.SUPPRESS)
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
        seconds: dict[str, list[float]] = {mode: [] for mode in MODES}
        found: dict[str, int] = {}
        for _ in range(args.rounds):
            for mode in MODES:
                elapsed, _, findings, _ = child(url, mode, args.traces)
                seconds[mode].append(elapsed)
                found[mode] = findings
        tenth = max(200, args.traces // 10)
        peak_tenth = child(url, "detect-1", tenth)[3]
        peak_all = child(url, "detect-1", args.traces)[3]
    decode_only = statistics.median(seconds["decode"])
    print(f"{args.traces} traces, {default_workers()} cores, load {_load()}")
    for mode, label in MODES.items():
        median = statistics.median(seconds[mode])
        shown = f" ({found[mode]} findings)" if mode.startswith("detect") else ""
        ratio = median / decode_only
        print(f"{label:50} {args.traces / median:9.0f} traces/s  {ratio:5.2f}x decode only{shown}")
    print(f"peak RSS of detect, 1 core: {peak_tenth / 1024:.0f} MiB over {tenth} traces,")
    print(f"                            {peak_all / 1024:.0f} MiB over {args.traces} traces")


def _load() -> str:
    with open("/proc/loadavg", encoding="ascii") as stream:
        return " ".join(stream.read().split()[:3])


if __name__ == "__main__":
    main()
