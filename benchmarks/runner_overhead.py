"""Runner overhead: trials whose model calls only sleep, against the time the sleeps need.

Each trial is the real path of ``trailcheck run``: a fresh ToolAgent over a ScriptedModel whose
every call sleeps ``--delay`` seconds (20 ms), on a fresh in-script environment with two tools,
recorded, graded by the built-in scorers (trajectory, arguments, state, efficiency, ...), and
counted in the report's statistics. A trial makes three model calls (look a key up, record it,
answer), so with ``--concurrency`` trials at once the ideal wall time is the total sleep over
the concurrency; everything above it is the runner's overhead: the environment, recording,
tool wrapping, grading, bookkeeping and the event loop. Prints the medians over ``--rounds``,
the ratio (target <= 1.3), the CPU time per trial (the loop is one thread, so the trials' CPU
adds up while their sleeps overlap: the target needs it under 1.3 x ideal / trials) and the peak
RSS of the process::

    uv run python benchmarks/runner_overhead.py --trials 1000 --concurrency 50 --rounds 3
    uv run python benchmarks/runner_overhead.py --profile 25     # where the time goes
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import resource
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from trailcheck.cases import Case, Dataset
from trailcheck.models import ScriptedModel, tool_call_reply
from trailcheck.run.plan import RunOptions
from trailcheck.run.runner import RunResult, run
from trailcheck.run.tool_agent import ToolAgent

MODEL_CALLS_PER_TRIAL = 3
TARGET = 1.3


@dataclass
class Ledger:
    """A small environment: keys to look up, and the keys recorded (the state graded)."""

    values: dict[str, int] = field(default_factory=dict)
    recorded: list[str] = field(default_factory=list)

    def reset(self) -> None:
        self.values = {f"k{i}": i for i in range(20)}
        self.recorded = []

    def snapshot(self) -> dict[str, Any]:
        return {"recorded": list(self.recorded)}

    @property
    def tools(self) -> list[Any]:
        return [self.lookup, self.record]

    def lookup(self, key: str) -> dict[str, Any]:
        """The value stored under ``key``."""
        return {"key": key, "value": self.values[key]}

    def record(self, key: str) -> str:
        """Marks ``key`` as seen."""
        self.recorded.append(key)
        return "recorded"


def agent_factory(delay: float) -> Any:
    def make() -> ToolAgent:
        script = [
            tool_call_reply("lookup", {"key": "k3"}),
            tool_call_reply("record", {"key": "k3"}),
            "k3 is 3; recorded.",
        ]
        return ToolAgent(ScriptedModel(script, delay=delay, name="sleepy"))

    return make


def dataset(cases: int) -> Dataset:
    return Dataset(
        name="overhead",
        tools=["lookup", "record"],
        cases=[
            Case.model_validate(
                {
                    "id": f"case-{index:04d}",
                    "input": "Look k3 up and record it.",
                    "expected_tools": ["lookup", "record"],
                    "expected_arguments": [{"tool": "record", "arguments": {"key": "k3"}}],
                    "expected_state": {"recorded": ["k3"]},
                }
            )
            for index in range(cases)
        ],
    )


@dataclass(frozen=True)
class Round:
    wall_s: float
    cpu_s: float
    trials: int
    passed: int
    model_calls: int


def one_round(data: Dataset, args: argparse.Namespace) -> Round:
    options = RunOptions(k=args.k, concurrency=args.concurrency, timeout_s=60.0)
    gc.collect()
    began, cpu = time.perf_counter(), time.process_time()
    result: RunResult = run(data, agent_factory(args.delay), Ledger, options=options)
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    trials = result.report.trials()
    return Round(
        wall_s=wall,
        cpu_s=cpu,
        trials=len(trials),
        passed=sum(t.status == "passed" for t in trials),
        model_calls=sum(t.model_calls for t in trials),
    )


def peak_rss_mb() -> float:
    # ru_maxrss is in kilobytes on Linux (bytes on macOS).
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 / (1024 if os.uname().sysname == "Darwin" else 1)


def profile(data: Dataset, args: argparse.Namespace) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    one_round(data, args)
    profiler.disable()
    stats = pstats.Stats(profiler).strip_dirs()
    stats.sort_stats("tottime").print_stats(args.profile)
    stats.sort_stats("cumulative").print_stats(args.profile)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--k", type=int, default=4, help="trials per case (cases = trials / k)")
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--delay", type=float, default=0.02, help="seconds each model call sleeps")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print N top rows")
    args = parser.parse_args()
    if args.trials % args.k:
        parser.error(f"--trials {args.trials} is not a multiple of --k {args.k}")
    data = dataset(args.trials // args.k)
    if args.profile:
        profile(data, args)
        return

    ideal = args.trials * MODEL_CALLS_PER_TRIAL * args.delay / args.concurrency
    print(
        f"{args.trials} trials ({len(data.cases)} cases x k={args.k}), {MODEL_CALLS_PER_TRIAL}"
        f" model calls each sleeping {args.delay * 1e3:g} ms, concurrency {args.concurrency};"
        f" ideal {ideal:.3f} s (total sleep / concurrency); {args.rounds} rounds"
    )
    rss_before = peak_rss_mb()
    rounds: list[Round] = []
    for number in range(1, args.rounds + 1):
        done = one_round(data, args)
        rounds.append(done)
        print(
            f"round {number}: {done.wall_s:.3f} s, ratio {done.wall_s / ideal:.2f},"
            f" CPU {done.cpu_s:.3f} s,"
            f" {done.passed}/{done.trials} passed, {done.model_calls} model calls"
        )
    wall = statistics.median(r.wall_s for r in rounds)
    ratio = wall / ideal
    cpu_ms = statistics.median(r.cpu_s for r in rounds) / args.trials * 1e3
    budget_ms = TARGET * ideal / args.trials * 1e3
    print(f"median wall {wall:.3f} s against ideal {ideal:.3f} s")
    print(f"target: wall / ideal <= {TARGET}: {ratio:.2f}  {'PASS' if ratio <= TARGET else 'MISS'}")
    # One event loop runs every trial, so their CPU time adds up while their sleeps overlap.
    print(
        f"CPU per trial {cpu_ms:.2f} ms; the target allows at most {budget_ms:.2f} ms"
        f" (target x ideal / trials)"
    )
    print(f"peak RSS {peak_rss_mb():.0f} MB (after imports and setup: {rss_before:.0f} MB)")


if __name__ == "__main__":
    main()
