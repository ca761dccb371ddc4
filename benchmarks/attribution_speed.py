"""Attribution's share of grading time: ``grade`` with failure attribution against without it.

The file is the scoring benchmark's (``scoring_speed.py``): N seeded traces of about 12 spans
for 40 cases (``peers.corpus.make_corpus``, seed 7), written as trailcheck JSONL and read back
with ``parse_trace_line``; graded with the same three scorers (trajectory, arguments,
efficiency). Each round reads every line afresh (untimed, so no view cached by an earlier
grading helps), then times ``grade(..., attribution=False)`` and ``grade(...)`` over all of
them, in alternating order; every failed grade is attributed (the passed ones cost nothing).
The difference of two whole gradings is small beside a busy machine's noise, so each round
also times ``attribute`` alone over the failed grades, right after grading them without it (on
the same traces, as ``grade`` does): that sum over the grading time is the added share the
target is checked on.

Prints the medians per trace, the share of failed grades, how many of them were attributed
and by which category, and the added share of grading time (issue 37's target: < 20%)::

    uv run python benchmarks/attribution_speed.py --traces 20000 --rounds 5
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections import Counter
from collections.abc import Mapping, Sequence

from peers.corpus import make_corpus
from trailcheck.cases import Case
from trailcheck.importing.records import Rejection
from trailcheck.importing.trailcheck_jsonl import parse_trace_line
from trailcheck.scorers import (
    ArgumentsScorer,
    EfficiencyScorer,
    Grade,
    Scorer,
    TrajectoryScorer,
    attribute,
    grade,
)
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace

TARGET = 0.20


def read_all(lines: Sequence[bytes]) -> list[Trace]:
    """Every line read afresh, as ``trailcheck score`` reads it."""
    traces: list[Trace] = []
    for line in lines:
        read = parse_trace_line(line, source="corpus", line_number=0)
        if isinstance(read, Rejection):
            raise SystemExit(f"the corpus has a rejected line: {read.message}")
        traces.append(read)
    return traces


def time_grading(
    traces: Sequence[Trace],
    cases: Mapping[str, Case],
    scorers: Sequence[Scorer],
    *,
    attribution: bool,
) -> tuple[float, list[Grade]]:
    """Seconds to grade every trace, and the grades."""
    grades: list[Grade] = []
    began = time.perf_counter()
    for trace in traces:
        case = cases[trace.metadata["case_id"]]
        grades.append(grade(trace, case, scorers, attribution=attribution))
    return time.perf_counter() - began, grades


def time_attribution(
    traces: Sequence[Trace],
    grades: Sequence[Grade],
    cases: Mapping[str, Case],
    scorers: Sequence[Scorer],
) -> float:
    """Seconds to attribute every failed grade of ``traces``, alone."""
    began = time.perf_counter()
    for trace, graded in zip(traces, grades, strict=True):
        if graded.status == "failed":
            attribute(trace, cases[trace.metadata["case_id"]], graded, scorers)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    cases, made = make_corpus(args.traces, seed=7)
    lines = [dump_trace(trace) for trace in made]
    del made
    scorers = (TrajectoryScorer(), ArgumentsScorer(), EfficiencyScorer())
    plain: list[float] = []
    attributed: list[float] = []
    shares: list[float] = []
    grades: list[Grade] = []
    for round_ in range(args.rounds):
        # Alternating which goes first, so that neither always meets a warmer machine.
        for attribution in (round_ % 2 == 0, round_ % 2 == 1):
            traces = read_all(lines)
            gc.collect()
            seconds, graded = time_grading(traces, cases, scorers, attribution=attribution)
            (attributed if attribution else plain).append(seconds / len(lines) * 1e6)
            if attribution:
                grades = graded
            else:
                alone = time_attribution(traces, graded, cases, scorers)
                shares.append(alone / seconds)
    with open("/proc/loadavg", encoding="ascii") as stream:
        load = " ".join(stream.read().split()[:3])
    failed = [g for g in grades if g.status == "failed"]
    found = Counter(g.attribution.category for g in failed if g.attribution is not None)
    without, with_ = statistics.median(plain), statistics.median(attributed)
    added = (with_ - without) / without
    print(
        f"{len(lines)} traces, {len(cases)} cases; medians over {args.rounds} rounds; load {load}"
    )
    print(
        f"failed grades: {len(failed)} ({len(failed) / len(lines):.1%}), attributed:"
        f" {sum(found.values())} ({', '.join(f'{k} {n}' for k, n in found.most_common())})"
    )
    print(f"grade without attribution  {without:8.1f} µs/trace")
    print(f"grade with attribution     {with_:8.1f} µs/trace")
    print(f"difference of the two whole gradings: {added:+.1%} (noisy on a busy machine)")
    share = statistics.median(shares)
    per_failed = share * without * len(lines) / max(len(failed), 1)
    print(f"attribute alone, per failed grade {per_failed:6.1f} µs")
    verdict = "PASS" if share < TARGET else "MISS"
    print(f"target: attribution adds < {TARGET:.0%} to grading time: +{share:.1%}  {verdict}")


if __name__ == "__main__":
    main()
