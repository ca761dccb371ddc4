"""Scale: ``trailcheck score``'s bulk path on this machine's processes against the same work as
Ray tasks, at 1 and 2 workers, and what starting Ray costs.

Generates N seeded traces (those of ``import_speed.py``: 12 spans, 5 tool calls) into a
trailcheck JSONL file and a dataset of the 40 cases they name, then times, each over
``--rounds`` rounds (median):

- **local**: :func:`trailcheck.bulk.grading.grade_files` with ``workers`` processes (1: in
  process, no fork), the path ``trailcheck score --workers W`` takes;
- **ray**: :func:`trailcheck.distributed.grade_files_on_ray` on a local Ray of ``workers``
  CPUs, ``workers`` tasks at once, the path of ``trailcheck score --executor ray``. Ray is
  started before the clock starts (its start-up is measured apart); the first round's workers
  are cold (they start, import trailcheck and load the dataset inside the timing).

And Ray's start-up, apart: ``ray.init`` of a local Ray, the first task's round trip (a worker
process started), and ``ray.shutdown``. Every run's grades are checked equal to the local
1-worker run's. Prints the machine's load average before and after, since the cores are shared::

    uv run python benchmarks/scale_speed.py --traces 10000 100000 --workers 1 2 --rounds 3
    uv run python benchmarks/scale_speed.py --traces 2000 --rounds 1      # quick
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

from import_speed import TOOLS, make_trace
from trailcheck.bulk.grading import Unmatched, grade_files
from trailcheck.distributed import grade_files_on_ray, ray_session
from trailcheck.distributed.ray_import import ray
from trailcheck.importing.importer import ImportSummary
from trailcheck.scorers import Grade
from trailcheck.trace.jsonl import dump_trace

CASES = 40


def write_corpus(folder: Path, traces: int) -> tuple[Path, Path]:
    """The traces file and the dataset of the cases they name."""
    rng = random.Random(7)
    path = folder / f"traces-{traces}.jsonl"
    with path.open("wb") as stream:
        for index in range(traces):
            stream.write(dump_trace(make_trace(index, rng)) + b"\n")
    tools = ", ".join(TOOLS)
    cases = "".join(
        f"  - id: case-{n}\n    input: Refund A-{n}\n    expected_tools: [{tools}]\n"
        for n in range(CASES)
    )
    dataset = folder / "dataset.yaml"
    dataset.write_text(f"name: scale\ncases:\n{cases}")
    return path, dataset


Verdicts = list[bool | str]


def _verdicts(items: Iterable[Grade | Unmatched]) -> Verdicts:
    return [str(item) if isinstance(item, Unmatched) else item.passed for item in items]


def _timed(run: Callable[[], Verdicts], rounds: int, expected: Verdicts | None) -> float:
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        verdicts = run()
        times.append(time.perf_counter() - began)
        if expected is not None and verdicts != expected:
            sys.exit("the grades differ from the local 1-worker run's")
    return statistics.median(times)


def _local(path: Path, dataset: Path, workers: int) -> Verdicts:
    return _verdicts(grade_files([path], dataset, ImportSummary(), workers=workers))


def _on_ray(path: Path, dataset: Path, workers: int) -> Verdicts:
    return _verdicts(grade_files_on_ray([path], dataset, ImportSummary(), workers=workers))


def ray_startup(workers: int) -> tuple[float, float, float]:
    """Seconds for ``ray.init``, the first task's round trip, and ``ray.shutdown``."""
    began = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, configure_logging=False)
    started = time.perf_counter()
    ray.get(ray.remote(lambda: None).remote())
    first = time.perf_counter()
    ray.shutdown()
    return started - began, first - started, time.perf_counter() - first


def loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {loadavg()}")
    for workers in args.workers:
        init_s, first_s, shutdown_s = ray_startup(workers)
        print(
            f"ray start-up, {workers} CPU(s): init {init_s:.2f} s, first task {first_s:.2f} s,"
            f" shutdown {shutdown_s:.2f} s"
        )
    with tempfile.TemporaryDirectory() as folder:
        for traces in args.traces:
            path, dataset = write_corpus(Path(folder), traces)
            size_mb = path.stat().st_size / 1e6
            print(f"\n{traces} traces, {size_mb:.0f} MB; median of {args.rounds} round(s)")
            print(f"{'executor':<8} {'workers':>7} {'seconds':>8} {'traces/s':>9} {'vs local':>8}")
            expected = _verdicts(grade_files([path], dataset, ImportSummary(), workers=1))
            for workers in args.workers:
                local = partial(_local, path, dataset, workers)
                local_s = _timed(local, args.rounds, expected)
                with ray_session(num_cpus=workers):
                    ray_s = _timed(partial(_on_ray, path, dataset, workers), args.rounds, expected)
                for name, seconds in (("local", local_s), ("ray", ray_s)):
                    ratio = seconds / local_s
                    print(
                        f"{name:<8} {workers:>7} {seconds:>8.2f} {traces / seconds:>9.0f}"
                        f" {ratio:>7.2f}x"
                    )
    print(f"\nload average after: {loadavg()}")


if __name__ == "__main__":
    main()
