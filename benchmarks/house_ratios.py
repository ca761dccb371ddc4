"""The four speed ratios of issue 34, printed in one run, each against its baseline measured in
the same run (medians over rounds) and its target:

- **read + grade**: ``parse_trace_line`` then ``grade`` (trajectory, arguments, efficiency) of
  every line of the scoring corpus (``scoring_speed.py``'s), on one core, over ``orjson.loads``
  of the same lines; target <= 3;
- **import**: what ``trailcheck import`` of a trailcheck JSONL file runs on one core, reading and
  writing each line back (``import_speed.py``'s corpus), over ``orjson.loads``; target <= 3;
- **bulk scaling**: the bulk path of ``trailcheck score`` on every core against one core, as a
  speed-up; target >= 0.8 x cores;
- **start-up**: ``trailcheck --help`` in a fresh interpreter over ``python -c "import pydantic,
  rich"``; target <= 3.

The one-core figures (all but the scaling) are CPU time by default: this process's, and the
child's for start-up, so that other work on a shared machine does not move a ratio (its wall
time counts the moments another process held the core). ``--clock wall`` times them by the
wall clock, as on a quiet machine. Each ratio's two sides are timed in alternating rounds.

    uv run python benchmarks/house_ratios.py [--traces 5000] [--rounds 5] [--clock cpu|wall]
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
from collections.abc import Callable, Sequence
from pathlib import Path

import orjson

from import_speed import make_trace, time_paths
from peers.corpus import make_corpus
from scoring_speed import _bulk_setup, time_bulk
from trailcheck.bulk import default_workers
from trailcheck.cases import Case
from trailcheck.importing.records import Rejection
from trailcheck.importing.trailcheck_jsonl import parse_trace_line
from trailcheck.scorers import ArgumentsScorer, EfficiencyScorer, TrajectoryScorer, grade
from trailcheck.trace.jsonl import dump_trace

Clock = Callable[[], float]


def _children_cpu() -> float:
    """CPU seconds of the child processes waited for so far (user and system)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _medians(runs: dict[str, Callable[[], object]], rounds: int, clock: Clock) -> list[float]:
    """Median seconds of each run, by ``clock``, the runs taking turns round after round."""
    seconds: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for taken, run in zip(seconds, runs.values(), strict=True):
            began = clock()
            run()
            taken.append(clock() - began)
    return [statistics.median(taken) for taken in seconds]


def _bare(lines: Sequence[bytes]) -> None:
    for line in lines:
        orjson.loads(line)


def _read_and_grade(lines: Sequence[bytes], cases: dict[str, Case]) -> None:
    scorers = (TrajectoryScorer(), ArgumentsScorer(), EfficiencyScorer())
    for number, line in enumerate(lines, 1):
        trace = parse_trace_line(line, source="corpus", line_number=number)
        assert not isinstance(trace, Rejection), trace
        grade(trace, cases[trace.metadata["case_id"]], scorers)


def _started(command: list[str]) -> None:
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def _row(name: str, ratio: float, target: str, passed: bool, detail: str) -> None:
    print(f"{name:<14} {ratio:6.2f}  target {target:<16} {'PASS' if passed else 'MISS'}  {detail}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = parser.parse_args()
    cores = default_workers()
    clock: Clock = time.process_time if args.clock == "cpu" else time.perf_counter
    child_clock: Clock = _children_cpu if args.clock == "cpu" else time.perf_counter
    with open("/proc/loadavg", encoding="ascii") as stream:
        print(
            f"{args.traces} traces, {args.rounds} rounds, {cores} cores, load {stream.read()[:14]},"
            f" {args.clock} time"
        )

    cases, traces = make_corpus(args.traces, seed=7)
    lines = [dump_trace(trace) for trace in traces]
    bare, graded = _medians(
        {"bare": lambda: _bare(lines), "graded": lambda: _read_and_grade(lines, cases)},
        args.rounds,
        clock,
    )
    ratio = graded / bare
    per_trace = f"{graded / len(lines) * 1e6:.1f} µs vs {bare / len(lines) * 1e6:.1f} µs"
    _row("read + grade", ratio, "<= 3x orjson", ratio <= 3, per_trace)

    with tempfile.TemporaryDirectory() as tmp:
        scoring = Path(tmp) / "scoring.jsonl"
        scoring.write_bytes(b"".join(line + b"\n" for line in lines))
        scorers = (TrajectoryScorer(), ArgumentsScorer(), EfficiencyScorer())
        _bulk_setup.append((cases, scorers))
        one = statistics.median(
            time_bulk(scoring, len(lines), 1).seconds for _ in range(args.rounds)
        )
        every = statistics.median(
            time_bulk(scoring, len(lines), cores).seconds for _ in range(args.rounds)
        )
        speedup = one / every
        detail = f"{one:.2f} s on 1 core, {every:.2f} s on {cores}"
        _row("bulk scaling", speedup, f">= {0.8 * cores:.1f}x", speedup >= 0.8 * cores, detail)

        rng = random.Random(7)
        imported = Path(tmp) / "import.jsonl"
        imported.write_bytes(
            b"".join(dump_trace(make_trace(i, rng)) + b"\n" for i in range(args.traces))
        )
        medians = time_paths(
            imported,
            imported.read_bytes().splitlines(),
            args.rounds,
            only=frozenset({"bare", "command-1"}),
            clock=clock,
        )
        ratio = medians["command-1"] / medians["bare"]
        detail = f"{medians['command-1']:.2f} s vs {medians['bare']:.2f} s"
        _row("import", ratio, "<= 3x orjson", ratio <= 3, detail)

    python = sys.executable
    baseline, startup = _medians(
        {
            "bare": lambda: _started([python, "-c", "import pydantic, rich"]),
            "help": lambda: _started([python, "-m", "trailcheck", "--help"]),
        },
        args.rounds,
        child_clock,
    )
    ratio = startup / baseline
    detail = f"{startup * 1e3:.0f} ms vs {baseline * 1e3:.0f} ms"
    _row("start-up", ratio, "<= 3x bare", ratio <= 3, detail)


if __name__ == "__main__":
    main()
